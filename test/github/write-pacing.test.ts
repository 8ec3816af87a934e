// The service paces its writes under GitHub's secondary limits instead of waiting to be refused: a write past a
// limit is answered as GitHub would refuse it (403, retry-after) without being sent, so the outbox postpones it.
import { describe, expect, it } from "vitest";
import { githubOctokit } from "../../src/github/octokit.ts";
import { githubWriteLimits, WritePacer } from "../../src/github/write-pacing.ts";
import { classifyGitHubFailure, rateLimitedUntil } from "../../src/ports/github-failures.ts";

const MINUTE = 60_000;

describe("the write pacer", () => {
  it("allows GitHub's documented rates with a margin: under 80 writes a minute and 500 an hour", () => {
    for (const { windowMs, requests } of githubWriteLimits) {
      expect(requests).toBeLessThan(windowMs === MINUTE ? 80 : 500);
    }
  });

  it("answers how long to wait once a minute's writes are taken, and frees a slot as the oldest ages out", () => {
    const clock = { now: 0 };
    const pacer = new WritePacer([{ windowMs: MINUTE, requests: 3 }], () => clock.now);
    for (const at of [0, 10_000, 20_000]) {
      clock.now = at;
      expect(pacer.take("acme")).toBeUndefined();
    }
    clock.now = 30_000;
    expect(pacer.take("acme")).toBe(30_000);
    // A refused write takes no slot: at one minute after the first, one is free again.
    clock.now = MINUTE + 1;
    expect(pacer.take("acme")).toBeUndefined();
    expect(pacer.take("acme")).toBe(10_000 - 1);
  });

  it("counts each account apart, and honours the tightest of several windows", () => {
    const clock = { now: 0 };
    const pacer = new WritePacer(
      [
        { windowMs: MINUTE, requests: 2 },
        { windowMs: 60 * MINUTE, requests: 3 },
      ],
      () => clock.now,
    );
    expect(pacer.take("acme")).toBeUndefined();
    expect(pacer.take("acme")).toBeUndefined();
    expect(pacer.take("other")).toBeUndefined();
    clock.now = 2 * MINUTE;
    expect(pacer.take("acme")).toBeUndefined();
    clock.now = 4 * MINUTE;
    expect(pacer.take("acme")).toBe(56 * MINUTE);
  });
});

describe("the app's GitHub client with a pacer", () => {
  it("answers a write past the limit itself, as a rate limit with when to come back, and never sends it", async () => {
    const sent: string[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      sent.push(`${init?.method ?? "GET"} ${String(input)}`);
      return Response.json({ id: 1 }, { status: 201 });
    };
    const pacer = new WritePacer([{ windowMs: MINUTE, requests: 2 }]);
    const Octokit = githubOctokit({ timeoutMs: 5_000, writePacer: pacer });
    const octokit = new Octokit({ request: { fetch } });
    const status = (context: string) =>
      octokit.rest.repos.createCommitStatus({
        owner: "Acme",
        repo: "widgets",
        sha: "a".repeat(40),
        state: "pending",
        context,
      });
    await status("one");
    await octokit.rest.repos.get({ owner: "acme", repo: "widgets" });
    await status("two");
    const error = await status("three").catch((caught: unknown) => caught);
    expect(sent).toHaveLength(3);
    expect(classifyGitHubFailure(error)).toBe("rate_limited");
    const until = rateLimitedUntil(error, 0)!;
    expect(until).toBeGreaterThan(50_000);
    expect(until).toBeLessThanOrEqual(MINUTE);
    // Reads are not content-creating: they go on.
    await octokit.rest.repos.get({ owner: "acme", repo: "widgets" });
    expect(sent).toHaveLength(4);
  });
});
