// What every part of the fake shares: where it lives, its clock, its id sequence and its webhook outbox.
export interface WebhookDelivery<N extends string = string, P = unknown> {
  /** Deterministic, so a redelivery can be simulated by delivering the same object twice. */
  readonly id: string;
  readonly name: N;
  readonly payload: P;
}

export interface World {
  /** `https://api.github.com` (or a GitHub Enterprise `/api/v3` root). */
  readonly apiUrl: string;
  /** `https://github.com`, for `html_url`s. */
  readonly webUrl: string;
  /** The login the app acts as through the API, `<slug>[bot]`. */
  readonly appLogin: string;
  readonly appSlug: string;
  /** The next id of GitHub's global id space (comments, statuses, check runs…). */
  nextId(): number;
  /** One stable id per key (users, apps, repositories), from the same sequence. */
  idFor(key: string): number;
  /** An ISO timestamp; a logical clock unless the test gave one. */
  now(): string;
  emit<N extends string, P>(name: N, payload: P): WebhookDelivery<N, P>;
}

export const documentationUrl = "https://docs.github.com/rest";

/** A GitHub REST error: the router turns it into `{ message, documentation_url, errors? }` with its status. */
export class GitHubApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: readonly Record<string, unknown>[],
  ) {
    super(message);
    this.name = "GitHubApiError";
  }
}

export function notFound(): GitHubApiError {
  return new GitHubApiError(404, "Not Found");
}

export function validationFailed(...errors: Record<string, unknown>[]): GitHubApiError {
  return new GitHubApiError(422, "Validation Failed", errors);
}
