// The sandbox as a newcomer meets it: the real service in its own process against the simulated GitHub and CI.
// Chromium opens the queue page it prints, signs in with the token it prints, and watches a PR reach `merged`.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/sandbox.ts";
import { browserUnavailable, useBrowser } from "../support/browser.ts";

const unavailable = browserUnavailable();
if (unavailable !== null) console.warn(`skipping the sandbox's browser test: ${unavailable}`);

describe.skipIf(unavailable !== null)("the sandbox in Chromium", () => {
  const browser = useBrowser();
  let sandbox: Sandbox;
  let page: Page;
  const lines: string[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({
      port: 0,
      prsPerMinute: 30,
      brokenShare: 0,
      flakyShare: 0,
      mode: "single",
      concurrency: 2,
      batch: false,
      ciMinMs: 200,
      ciMaxMs: 800,
      maxPullRequests: 3,
      log: (line) => lines.push(line),
    });
    page = await browser.context.newPage();
  }, 90_000);
  afterAll(async () => {
    await page?.close();
    await sandbox?.stop();
  });

  it("serves the queue page it prints, where a PR goes through to merged", async () => {
    // Everything the service talks to is on this machine.
    expect(new URL(sandbox.dashboardUrl).hostname).toBe("127.0.0.1");
    expect(sandbox.github.host).toMatch(/^127\.0\.0\.1:\d+$/);

    expect((await page.goto(sandbox.dashboardUrl))?.status()).toBe(401);
    await page.getByLabel(/token/i).fill(sandbox.token);
    await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Sign in" }).click()]);
    expect(await page.locator("h1").innerText()).toBe("Merge queue of main");
    await expect
      .poll(() => page.locator("#departed").innerText(), { timeout: 60_000, interval: 500 })
      .toContain("merged");
    expect(lines[0]).toMatch(/^opened and submitted #1/);
  }, 90_000);
});
