// The forms of a test's page: its quarantine setting and its ticket, as set-quarantine-setting and link-ticket
// would set them, behind the session and its anti-forgery token.
import { beforeEach, describe, expect, it } from "vitest";
import { BrowserSessions } from "../../src/web/browser-sessions.ts";
import { serviceSecret } from "../../src/store/service-secrets.ts";
import { type TestServer, tokenFor } from "../support/api-server.ts";
import { type TestStore, testDialects } from "../support/database.ts";
import {
  junitReport,
  TEST_HEALTH_START,
  useTestHealthServer,
  widgetsTarget as target,
  widgetsTestId,
} from "../support/test-health.ts";
import { type Browser, browserOn, squashed, visible } from "../support/test-pages.ts";

const flipsId = widgetsTestId("flips");
const jira = "https://acme.atlassian.net/browse/WID-42";

describe.each(testDialects)("test page actions on %s", (dialect) => {
  let store: TestStore;
  let server: TestServer;
  let token: string;
  let browser: Browser;
  let now: number;

  const fixture = useTestHealthServer(dialect, () => now);
  beforeEach(async () => {
    now = TEST_HEALTH_START;
    ({ store, server, token } = fixture);
    browser = browserOn(server);
    // Failed and passed on one commit: flaky, and so quarantined (auto).
    for (const outcome of ["failed", "passed"] as const) {
      const junit_xml = [junitReport([{ name: "flips", outcome }])];
      const body = { ...target, commit_sha: "a".repeat(40), branch: "main", junit_xml };
      expect((await server.post("flaky-tests/upload", body, token)).status).toBe(200);
    }
  });

  /** The test's record as get-test-details answers it. */
  const details = async () =>
    (
      (await (
        await server.post("flaky-tests/get-test-details", { ...target, test_id: flipsId }, token)
      ).json()) as any
    ).test;
  /** A session: its cookie and the form token its pages carry. */
  const session = async (as = token) => {
    const cookie = await browser.sessionCookie(as, { test_id: flipsId });
    const page = await (await browser.open(flipsId, { cookie })).text();
    return { cookie, formToken: /name="form_token" value="([^"]+)"/.exec(page)?.[1] as string };
  };
  const send = async (form: Record<string, string>, headers: Record<string, string> = {}) => {
    const { cookie, formToken } = await session();
    return browser.submit(flipsId, { form_token: formToken, ...form }, { cookie, ...headers });
  };
  /** Follows a 303 to the page and returns what a person reads there. */
  const followed = async (response: Response, cookie: string) => {
    expect(response.status).toBe(303);
    const location = response.headers.get("location") as string;
    return visible(await (await browser.open(location, { cookie })).text());
  };

  it("sets the quarantine setting, answers 303 to the page, and says what changed", async () => {
    const { cookie, formToken } = await session();
    const page = squashed(await (await browser.open(flipsId, { cookie })).text());
    expect(page).toContain(`<form method="post" action="${flipsId}">`);
    expect(page).toContain('<option value="auto" selected>');

    const response = await browser.submit(
      flipsId,
      { form_token: formToken, action: "quarantine-setting", setting: "NEVER" },
      { cookie, origin: server.url, "sec-fetch-site": "same-origin" },
    );
    expect(response.headers.get("location")).toBe(`${flipsId}?changed=quarantine-setting`);
    expect(await followed(response, cookie)).toContain(
      "Saved: the quarantine setting is now never; the test is not quarantined.",
    );
    expect(await details()).toMatchObject({ quarantine_setting: "never", quarantined: false });
    expect(squashed(await (await browser.open(flipsId, { cookie })).text())).toContain(
      '<option value="never" selected>',
    );
  });

  it("quarantines a test as set-quarantine-setting does: one use case behind both doors", async () => {
    const setByApi = async (setting: string) =>
      expect(
        (
          await server.post(
            "flaky-tests/set-quarantine-setting",
            { ...target, test_id: flipsId, setting },
            token,
          )
        ).status,
      ).toBe(200);
    await setByApi("never");
    await setByApi("always");
    const byApi = await details();
    await setByApi("never");
    expect((await send({ action: "quarantine-setting", setting: "always" })).status).toBe(303);
    expect(await details()).toEqual(byApi);
    expect(byApi).toMatchObject({ quarantine_setting: "always", quarantined: true });
  });

  it("links a ticket, replaces it, and unlinks it", async () => {
    const { cookie, formToken } = await session();
    const link = (ticketUrl: string) =>
      browser.submit(
        flipsId,
        { form_token: formToken, action: "link-ticket", ticket_url: ticketUrl },
        { cookie },
      );
    expect(await followed(await link(jira), cookie)).toContain(`Saved: linked the ticket ${jira}.`);
    expect((await details()).ticket).toEqual({ html_url: jira });
    await followed(await link("http://tracker.internal/7"), cookie);
    expect((await details()).ticket).toEqual({ html_url: "http://tracker.internal/7" });

    const unlinked = await browser.submit(
      flipsId,
      { form_token: formToken, action: "unlink-ticket" },
      { cookie },
    );
    expect(await followed(unlinked, cookie)).toContain("Saved: the test has no ticket now.");
    expect((await details()).ticket).toBeNull();
  });

  it("shows the page again with the reason for input it refuses, and changes nothing", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ action: "link-ticket", ticket_url: "javascript:alert(1)" }, "must be an absolute http or https URL"],
      [
        { action: "link-ticket", ticket_url: "https://bot:hunter2@tickets.example/1" },
        "must not hold a user name",
      ],
      [
        { action: "link-ticket", ticket_url: `https://tickets.example/${"x".repeat(2048 - 23)}` },
        "must NOT have more than 2048 characters",
      ],
      [{ action: "link-ticket", ticket_url: "" }, "must NOT have fewer than 1 characters"],
      [{ action: "link-ticket" }, "must NOT have fewer than 1 characters"],
      [{ action: "quarantine-setting", setting: "sometimes" }, "must be one of always, never, auto"],
      [{ action: "delete" }, "must be one of quarantine-setting, link-ticket, unlink-ticket"],
    ];
    for (const [form, reason] of cases) {
      const response = await send(form);
      expect(response.status, JSON.stringify(form)).toBe(400);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(visible(await response.text())).toMatch(new RegExp(`Nothing was changed\\. .*${reason}`));
    }
    const refused = squashed(await (await send(cases[0]![0])).text());
    expect(visible(refused)).toContain(
      "Nothing was changed. The ticket URL must be an absolute http or https URL.",
    );
    expect(refused).toContain('value="javascript:alert(1)"');
    const hostile = squashed(await (await send({ action: "link-ticket", ticket_url: `x"><script>` })).text());
    expect(hostile).not.toContain("<script");
    expect(hostile).toContain('value="x&quot;&gt;&lt;script&gt;"');
    expect(await details()).toMatchObject({ quarantine_setting: "auto", ticket: null });
  });

  it("refuses a form without the session's token, or from another site, and changes nothing", async () => {
    const form = { action: "quarantine-setting", setting: "never" };
    const { cookie, formToken } = await session();
    const other = await session(await tokenFor(store, "acme"));
    const forged: [Record<string, string>, Record<string, string>][] = [
      [form, { cookie }],
      [{ ...form, form_token: "" }, { cookie }],
      [{ ...form, form_token: other.formToken }, { cookie }],
      [
        { ...form, form_token: formToken },
        { cookie, "sec-fetch-site": "cross-site" },
      ],
      [
        { ...form, form_token: formToken },
        { cookie, "sec-fetch-site": "same-site" },
      ],
      [
        { ...form, form_token: formToken },
        { cookie, origin: "https://evil.example" },
      ],
      [
        { ...form, form_token: formToken },
        { cookie, origin: "null" },
      ],
    ];
    for (const [body, headers] of forged) {
      const response = await browser.submit(flipsId, body, headers);
      expect(response.status, JSON.stringify([body, headers])).toBe(403);
      expect(await response.text()).toContain("Nothing was changed");
    }
    const signedOut = await browser.submit(flipsId, { ...form, form_token: formToken });
    expect(signedOut.status).toBe(401);
    // Globex sees no page of acme's to take a form token from: its session's token, as its pages would carry it.
    const globex = await browser.sessionCookie(await tokenFor(store, "globex"), { test_id: flipsId });
    const signer = new BrowserSessions(await serviceSecret(store.db, "browser_sessions"));
    const globexToken = signer.formToken(globex.slice(globex.indexOf("=") + 1));
    const foreign = await browser.submit(flipsId, { ...form, form_token: globexToken }, { cookie: globex });
    expect(foreign.status).toBe(404);
    expect(await details()).toMatchObject({ quarantine_setting: "auto", quarantined: true });
    // The other session's own token works with its own cookie.
    const own = await browser.submit(
      flipsId,
      { ...form, form_token: other.formToken },
      { cookie: other.cookie },
    );
    expect(own.status).toBe(303);
  });
});
