import type { QueueCommand, QueueEvent } from "../queue/index.ts";
import type { QueueLocation } from "./queue-location.ts";

/**
 * Performs one outbox command on GitHub and returns the events that report its result. Implementations
 * must be idempotent: after a crash a command runs again, and "already exists", "already merged" and
 * "not found" on delete count as success.
 */
export interface CommandExecutor {
  execute(location: QueueLocation, command: QueueCommand): Promise<QueueEvent[]>;
}
