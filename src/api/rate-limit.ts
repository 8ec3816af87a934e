// The optional per-token rate limit (API_RATE_LIMIT_PER_MINUTE): one token bucket per API token, holding a minute's
// allowance and refilled evenly over the minute, so a token may burst up to its limit and then keeps to the rate.
// One runaway CI job then gets 429 rate_limited while the other tokens go on. Each process keeps its own buckets:
// behind several replicas a token's allowance is the limit times the replicas.
import { Problem } from "../http/problem.ts";

interface Bucket {
  requests: number;
  at: number;
}

export class TokenRateLimit {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(private readonly perMinute: number) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** Counts a request of `tokenId` at `now`; throws 429 rate_limited with when to ask again when none is left. */
  take(tokenId: string, now: number): void {
    const bucket = this.buckets.get(tokenId) ?? { requests: this.perMinute, at: now };
    const requests = Math.min(
      this.perMinute,
      bucket.requests + Math.max(0, now - bucket.at) * this.refillPerMs,
    );
    if (requests < 1) {
      this.buckets.set(tokenId, { requests, at: now });
      const problem = new Problem(
        429,
        "rate_limited",
        `this token may make ${this.perMinute} requests a minute; ask again later`,
      );
      problem.retryAfterSeconds = Math.max(1, Math.ceil((1 - requests) / this.refillPerMs / 1000));
      throw problem;
    }
    this.buckets.set(tokenId, { requests: requests - 1, at: now });
  }
}
