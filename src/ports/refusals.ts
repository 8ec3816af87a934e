// What a use case refuses, in the service's own terms: a stable code, words for a person and, for a bad request,
// the fields at fault. The edges say it in their own medium: the API as problem JSON (src/http/problem.ts), the
// pages as a page.

export interface FieldFault {
  path: string;
  message: string;
}

/** A request a use case will not carry out; asking again unchanged gets the same answer. */
export abstract class Refusal extends Error {
  abstract readonly kind: "invalid" | "not_found";

  constructor(
    /** Stable and machine-readable: `test_not_found`, `invalid_page_token`… */
    readonly code: string,
    detail: string,
    /** The fields at fault, for a bad request. */
    readonly faults?: FieldFault[],
  ) {
    super(detail);
  }
}

/** The request names something that is not there. */
export class NotFound extends Refusal {
  override readonly name = "NotFound";
  readonly kind = "not_found";
}

/** The request itself is wrong: a field (named in `faults`) or a token it carries. */
export class InvalidRequest extends Refusal {
  override readonly name = "InvalidRequest";
  readonly kind = "invalid";
}
