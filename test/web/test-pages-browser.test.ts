// The test pages in a real browser: Chromium signs in and posts every form, sending the headers it really sends
// (Origin, Sec-Fetch-Site, as the pages' Referrer-Policy lets it), which no hand-written request can stand in for.
import type { Page } from "playwright-core";
import { beforeEach, describe, expect, it } from "vitest";
import { browserUnavailable, useBrowser } from "../support/browser.ts";
import {
  junitReport,
  TEST_HEALTH_START,
  useTestHealthServer,
  widgetsTarget as target,
  widgetsTestId,
} from "../support/test-health.ts";

const unavailable = browserUnavailable();
if (unavailable !== null) console.warn(`skipping the browser tests of the test pages: ${unavailable}`);

const flipsId = widgetsTestId("flips");
const jira = "https://acme.atlassian.net/browse/WID-42";

describe.skipIf(unavailable !== null)("test pages in Chromium", () => {
  const browser = useBrowser();
  const fixture = useTestHealthServer("sqlite", () => TEST_HEALTH_START);
  let page: Page;

  beforeEach(async () => {
    // Failed and passed on one commit: a flaky test, with a page.
    for (const outcome of ["failed", "passed"] as const) {
      const junit_xml = [junitReport([{ name: "flips", outcome }])];
      const body = { ...target, commit_sha: "a".repeat(40), branch: "main", junit_xml };
      expect((await fixture.server.post("flaky-tests/upload", body, fixture.token)).status).toBe(200);
    }
    await browser.context.clearCookies();
    page = await browser.context.newPage();
    return () => page.close();
  });

  /** Clicks `button` and waits for the page the form's answer leads to; returns its status and text. */
  const submit = async (button: string) => {
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name: button }).click(),
    ]);
    return { status: response?.status(), text: await page.locator("body").innerText() };
  };
  const signIn = async () => {
    await page.getByLabel(/token/i).fill(fixture.token);
    return submit("Sign in");
  };

  it("signs in on a test's page and changes the test with each of its forms", async () => {
    const first = await page.goto(`${fixture.server.url}/tests/${flipsId}`);
    expect(first?.status()).toBe(401);
    expect(await signIn()).toMatchObject({ status: 200 });

    await page.getByLabel("Quarantine setting").selectOption("never");
    const saved = await submit("Save");
    expect(saved.status).toBe(200);
    expect(saved.text).toContain("Saved: the quarantine setting is now never; the test is not quarantined.");

    await page.getByLabel("Ticket URL").fill(jira);
    const linked = await submit("Link the ticket");
    expect(linked.status).toBe(200);
    expect(linked.text).toContain(`Saved: linked the ticket ${jira}.`);

    const unlinked = await submit("Unlink the ticket");
    expect(unlinked.status).toBe(200);
    expect(unlinked.text).toContain("Saved: the test has no ticket now.");
  });

  it("signs in on a repository's page", async () => {
    const first = await page.goto(`${fixture.server.url}/tests/github.com/acme/widgets`);
    expect(first?.status()).toBe(401);
    const signedIn = await signIn();
    expect(signedIn.status).toBe(200);
    expect(signedIn.text).toContain("flips");
  });
});
