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

type GitHubError = { status?: number; response?: { headers?: Record<string, string | undefined> } };

/** A failure worth trying again later (GitHub unreachable, 5xx, rate limited). */
export function isTransient(error: unknown): boolean {
  const status = (error as GitHubError).status;
  return status === undefined || status >= 500 || isRateLimited(error);
}

/**
 * GitHub's rate limits: 429, or 403 with a secondary limit's `retry-after` (seconds) or the primary limit's
 * `x-ratelimit-remaining: 0` (then `x-ratelimit-reset`, epoch seconds, says until when).
 */
export function isRateLimited(error: unknown): boolean {
  const { status, response } = error as GitHubError;
  const headers = response?.headers ?? {};
  return (
    status === 429 ||
    (status === 403 && (headers["retry-after"] !== undefined || headers["x-ratelimit-remaining"] === "0"))
  );
}

/** When GitHub allows requests again after a rate-limit answer (epoch ms), or undefined if it did not say. */
export function rateLimitedUntil(error: unknown, now: number): number | undefined {
  if (!isRateLimited(error)) return undefined;
  const headers = (error as GitHubError).response?.headers ?? {};
  const number = (name: string) => {
    const value = Number(headers[name] ?? Number.NaN);
    return Number.isFinite(value) ? value : undefined;
  };
  const retryAfterSeconds = number("retry-after");
  if (retryAfterSeconds !== undefined) return now + retryAfterSeconds * 1000;
  const resetSeconds = number("x-ratelimit-reset");
  return resetSeconds === undefined ? undefined : Math.max(now, resetSeconds * 1000);
}
