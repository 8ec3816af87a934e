// RFC 9457 problem details with a stable machine `code` (docs/api.md#errors).
import { STATUS_CODES } from "node:http";
import type { Refusal } from "../ports/refusals.ts";

export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemBody {
  type: "about:blank";
  title: string;
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[];
}

export class Problem extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: FieldError[] | undefined;
  /** Sent as `Retry-After` when set: when asking again can succeed. */
  retryAfterSeconds: number | undefined;

  constructor(status: number, code: string, detail: string, errors?: FieldError[]) {
    super(detail);
    this.name = "Problem";
    this.status = status;
    this.code = code;
    this.errors = errors;
  }

  toBody(): ProblemBody {
    const body: ProblemBody = {
      type: "about:blank",
      title: STATUS_CODES[this.status] ?? "Error",
      status: this.status,
      code: this.code,
      detail: this.message,
    };
    if (this.errors !== undefined) body.errors = this.errors;
    return body;
  }
}

export const problemContentType = "application/problem+json";
export const bodyLimitBytes = 20 * 1024 * 1024;

export const invalidRequest = (detail: string, errors?: FieldError[]) =>
  new Problem(400, "invalid_request", detail, errors);
export const notFound = (code: string, detail: string) => new Problem(404, code, detail);
export const conflict = (code: string, detail: string) => new Problem(409, code, detail);
/** `hint`: what the client of that endpoint can send instead. */
export const payloadTooLarge = (hint?: string) =>
  new Problem(
    413,
    "payload_too_large",
    `request body exceeds the limit of ${bodyLimitBytes} bytes (20 MiB)${hint === undefined ? "" : `; ${hint}`}`,
  );

const refusalStatus = { invalid: 400, not_found: 404 } as const;

/** A use case's refusal as an HTTP problem: the same code, words and fields, with the status its kind has. */
export const refusalProblem = (refusal: Refusal) =>
  new Problem(refusalStatus[refusal.kind], refusal.code, refusal.message, refusal.faults);
