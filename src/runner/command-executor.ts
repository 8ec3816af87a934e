import type { QueueCommand, QueueEvent } from "../queue/index.ts";
import type { QueueLocation } from "../store/queue-locations.ts";

/**
 * Performs one outbox command on GitHub and returns the events that report its result. Implementations
 * must be idempotent: after a crash a command runs again, and "already exists", "already merged" and
 * "not found" on delete count as success.
 */
export interface CommandExecutor {
  execute(location: QueueLocation, command: QueueCommand): Promise<QueueEvent[]>;
}

/** A failure worth trying again later (GitHub unreachable, 5xx, rate limited). */
export function isTransient(error: unknown): boolean {
  const status = (error as { status?: number }).status;
  if (status === undefined) return true;
  if (status >= 500 || status === 429) return true;
  const headers = (error as { response?: { headers?: Record<string, string> } }).response?.headers;
  return status === 403 && headers?.["x-ratelimit-remaining"] === "0";
}
