// A queue's page in a real browser: Chromium signs in, watches a PR go from pending to testing to merged as the
// fake GitHub reports CI, without a reload, and pauses and resumes the queue with the page's own forms (sending
// the Origin and Sec-Fetch-Site it really sends). The run leaves a screenshot of the page in artifacts/
// (docs/images/queue-page.png, shown in docs/queue.md, is taken from it).
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserUnavailable, useBrowser } from "../support/browser.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

const unavailable = browserUnavailable();
if (unavailable !== null) console.warn(`skipping the browser tests of the queue pages: ${unavailable}`);

const SCREENSHOT = "artifacts/queue-page.png";
const hostileTitle = `<img src=x onerror="window.owned = true"> Fix the "widgets" & more`;
/** The page's script asks twice a second; a change must show within a second (plus a loaded machine's slack). */
const LIVE_TIMEOUT_MS = 2000;

describe.skipIf(unavailable !== null)("queue page in Chromium", () => {
  const browser = useBrowser();
  let s: Scenario;
  let page: Page;

  beforeAll(async () => {
    s = await startScenario();
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await page?.close();
    await s?.close();
  });

  const click = async (button: string) => {
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name: button }).click(),
    ]);
    return response?.status();
  };
  const stateOf = (number: number) => page.locator(`#pr-${number} .pr-state`).innerText();
  const submit = async (number: number, title: string) => {
    s.repo.openPullRequest({ number, title, author: "alice", files: { [`src/${number}.ts`]: "x\n" } });
    expect((await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number } })).status).toBe(
      200,
    );
  };

  it("signs in, pauses and resumes, and follows a PR from pending to testing to merged without a reload", async () => {
    const first = await page.goto(`${s.server.url}/queues/github.com/acme/widgets/main`);
    expect(first?.status()).toBe(401);
    await page.getByLabel(/token/i).fill(s.token);
    expect(await click("Sign in")).toBe(200);
    expect(await page.locator("h1").innerText()).toBe("Merge queue of main");

    expect(await click("Pause the queue")).toBe(200);
    expect(await page.locator("#queue-state").innerText()).toBe("paused");
    await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));

    await submit(1, hostileTitle);
    await s.settle();
    await expect.poll(() => stateOf(1), { timeout: LIVE_TIMEOUT_MS }).toBe("pending");
    const row = await page.locator("#pr-1").innerText();
    expect(row).toContain(hostileTitle);
    expect(await page.evaluate(() => "owned" in globalThis)).toBe(false);

    expect(await click("Resume the queue")).toBe(200);
    expect(await page.locator(".notice").innerText()).toBe("Resumed: the queue is running.");
    await s.settle();
    await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
    await expect.poll(() => stateOf(1), { timeout: LIVE_TIMEOUT_MS }).toBe("testing");

    const { testRunId } = (
      await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 1 } })
    ).body;
    const run = (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId })).body;
    s.clock.now += 4 * 60_000;
    s.repo.reportStatus(run.testBranchSha, "ci", "pending", { targetUrl: "https://ci.example/build/1" });
    await s.settle();
    await expect
      .poll(() => page.locator("#pr-1 .checks").innerText(), { timeout: LIVE_TIMEOUT_MS })
      .toContain("pending ci");
    await submit(2, "Make widgets faster");
    await submit(3, "Document the widgets");
    await s.settle();
    await expect.poll(() => page.locator("#queued tbody tr").count(), { timeout: LIVE_TIMEOUT_MS }).toBe(3);

    s.clock.now += 8 * 60_000;
    s.repo.reportStatus(run.testBranchSha, "ci", "success", { targetUrl: "https://ci.example/build/1" });
    await s.settle();
    await expect
      .poll(() => page.locator("#departed").innerText(), { timeout: LIVE_TIMEOUT_MS })
      .toContain("merged");
    expect(await page.locator("#departed").innerText()).toContain(hostileTitle);
    expect(await page.evaluate(() => "sameDocument" in globalThis)).toBe(true);
    expect(await page.evaluate(() => "owned" in globalThis)).toBe(false);

    // The next PR is tested once #1 merged: the page as a team would watch it.
    await expect.poll(() => stateOf(2), { timeout: LIVE_TIMEOUT_MS }).toBe("testing");
    await mkdir(dirname(SCREENSHOT), { recursive: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });
});
