// The app's GitHub client leaves pacing and retries to the outbox: writes go out at once, and a rate limit or a
// failure comes back to the caller at once, with what the outbox needs to postpone the command.
import { describe, expect, it } from "vitest";
import { isTransient, rateLimitedUntil } from "../../src/ports/github-failures.ts";
import { FakeGitHub } from "../../src/sandbox/fake-github/index.ts";
import { testProbot } from "../support/github-app.ts";

const installationId = 4242;

async function installationClient(limitStatuses = false) {
  const fake = new FakeGitHub();
  const limited: string[] = [];
  const repo = fake.createRepository("acme/widgets", { installationId });
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new Request(input, init).url;
    if (limitStatuses && url.includes("/statuses/")) {
      limited.push(url);
      return new Response(JSON.stringify({ message: "You have exceeded a secondary rate limit" }), {
        status: 403,
        headers: { "content-type": "application/json", "retry-after": "60" },
      });
    }
    return fake.fetch(input as string | URL | Request, init);
  };
  const octokit = await testProbot(fetch).auth(installationId);
  const sha = repo.branch("main")!;
  const setStatus = (context: string) =>
    octokit.rest.repos.createCommitStatus({ owner: "acme", repo: "widgets", sha, state: "pending", context });
  return { fake, limited, setStatus };
}

describe("the app's GitHub client", () => {
  it("sends writes at once, not a second apart", async () => {
    const { setStatus } = await installationClient();
    const started = Date.now();
    await Promise.all(Array.from({ length: 10 }, (_, index) => setStatus(`ci-${index}`)));
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("hands a secondary rate limit back at once, with when to come back", async () => {
    const { limited, setStatus } = await installationClient(true);
    const error = await setStatus("ci").catch((caught: unknown) => caught);
    expect(limited).toHaveLength(1);
    expect(isTransient(error)).toBe(true);
    expect(rateLimitedUntil(error, 1_000)).toBe(61_000);
  });

  it("does not repeat a failed call itself", async () => {
    const { fake, setStatus } = await installationClient();
    fake.failNext({ method: "POST", path: /\/statuses\//, status: 502 });
    await expect(setStatus("ci")).rejects.toMatchObject({ status: 502 });
    expect(fake.calls().filter((call) => call.includes("/statuses/"))).toHaveLength(1);
  });
});
