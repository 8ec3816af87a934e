// A queue's page kept current by its script (the live part, sent again only when the queue changed) and its
// controls: forms with the session's anti-forgery token, from this site, by an organization covering the repository.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokenFor } from "../support/api-server.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";
import { browserOn, squashed, visible } from "../support/test-pages.ts";

const mainPage = "github.com/acme/widgets/main";

describe("queue page controls and live updates", () => {
  let s: Scenario;
  let cookie: string;

  const open = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${s.server.url}/queues/${path}`, { headers: { cookie, ...headers }, redirect: "manual" });
  const formToken = async () => {
    const page = await (await open(mainPage)).text();
    return /name="form_token" value="([^"]+)"/.exec(page)?.[1] as string;
  };
  const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${s.server.url}/queues/${mainPage}`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(form).toString(),
      redirect: "manual",
    });
  const queueState = async () => (await s.api("getQueue", { repo, targetBranch: "main" })).body;
  const submit = async (number: number) => {
    s.repo.openPullRequest({
      number,
      title: `Change ${number}`,
      author: "alice",
      files: { [`${number}.ts`]: "x\n" },
    });
    expect((await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number } })).status).toBe(
      200,
    );
  };

  beforeEach(async () => {
    s = await startScenario();
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    cookie = await browserOn(s.server).sessionCookie(s.token, { queue: mainPage });
  });
  afterEach(async () => {
    await s.close();
  });

  it("loads its own script only, and sends the live part again only when the queue changed", async () => {
    const first = await open(mainPage);
    const csp = first.headers.get("content-security-policy") as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline'; script");
    const page = squashed(await first.text());
    expect(page).toContain('<script src="../../../../queues/live.js" defer></script>');
    const script = await fetch(`${s.server.url}/queues/live.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toContain('"?part=live"');

    const version = first.headers.get("etag") as string;
    expect(page).toContain(`<div id="live" data-version="${version.replaceAll('"', "&quot;")}">`);
    const unchanged = await open(`${mainPage}?part=live`, { "if-none-match": version });
    expect(unchanged.status).toBe(304);

    await submit(1);
    await s.settle();
    const changed = await open(`${mainPage}?part=live`, { "if-none-match": version });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(version);
    const part = await changed.text();
    expect(part).not.toContain("<html");
    expect(visible(part)).toContain("#1 Change 1 by alice testing");
  });

  it("pauses, resumes and drains the queue from the page", async () => {
    const form_token = await formToken();
    for (const [action, state] of [
      ["pause", "paused"],
      ["resume", "running"],
      ["drain", "draining"],
    ] as const) {
      const response = await post({ form_token, action });
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe(`../../../../queues/${mainPage}?changed=${action}`);
      expect((await queueState()).state).toBe(state);
    }
    const after = visible(await (await open(`${mainPage}?changed=drain`)).text());
    expect(after).toContain("Draining: the PRs queued go on; no new PR is taken.");
    expect(after).toContain("State: draining");
  });

  it("cancels, restarts and makes urgent a PR from the page", async () => {
    await submit(1);
    await submit(2);
    await s.settle();
    const form_token = await formToken();
    const record = async (number: number) =>
      (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;

    const urgent = await post({ form_token, action: "urgent", pr: "2" });
    expect(urgent.headers.get("location")).toBe(`../../../../queues/${mainPage}?changed=urgent#pr-2`);
    expect(await record(2)).toMatchObject({ priorityName: "urgent" });

    const before = (await record(2)).testRunId;
    expect(before).not.toBeNull();
    expect((await post({ form_token, action: "restart", pr: "2" })).status).toBe(303);
    await s.settle();
    expect((await record(2)).testRunId).not.toBe(before);

    expect((await post({ form_token, action: "cancel", pr: "1" })).status).toBe(303);
    expect(await record(1)).toMatchObject({ state: "cancelled", stateReason: "cancelled_by_user" });
    expect((await record(1)).stateDetail).toMatch(
      /^Cancelled on request by the queue page, signed in with API token \S+ of acme\.$/,
    );
    const again = await post({ form_token, action: "cancel", pr: "1" });
    expect(again.status).toBe(409);
    expect(visible(await again.text())).toContain("#1 is not in the queue any more.");
  });

  it("changes nothing for a form without the session's token, from another site, or of another organization", async () => {
    const form_token = await formToken();
    expect((await post({ form_token: "forged", action: "pause" })).status).toBe(403);
    expect((await post({ form_token, action: "pause" }, { "sec-fetch-site": "cross-site" })).status).toBe(
      403,
    );
    expect((await post({ form_token, action: "pause" }, { origin: "https://evil.example" })).status).toBe(
      403,
    );
    expect((await post({ form_token, action: "explode" })).status).toBe(400);

    const other = await tokenFor(s.store, "globex");
    const otherCookie = await browserOn(s.server).sessionCookie(other, { queue: mainPage });
    const otherPage = await open(mainPage, { cookie: otherCookie });
    expect(otherPage.status).toBe(404);
    expect((await post({ form_token, action: "pause" }, { cookie: otherCookie })).status).toBe(404);
    expect((await queueState()).state).toBe("running");
  });
});
