// The test's page at its html_url (docs/test-health.md#a-tests-page), in a browser's shoes: sign in with a token, carry the cookie.
import { beforeEach, describe, expect, it } from "vitest";
import { testCaseId } from "../../src/test-health/index.ts";
import { revokeToken } from "../../src/store/tokens.ts";
import { type TestServer, tokenFor } from "../support/api-server.ts";
import { type TestStore, testDialects } from "../support/database.ts";
import { browserOn, squashed, visible } from "../support/test-pages.ts";
import {
  type CaseSpec,
  junitReport,
  TEST_HEALTH_START,
  useTestHealthServer,
  widgets as repo,
  widgetsTarget as target,
} from "../support/test-health.ts";

const HOUR = 3600 * 1000;
const sha = (n: number) => String(n).repeat(40);
const hostileName = `renders <script>alert("owned")</script> & "quotes"`;
const cart = { name: "adds an item", classname: "cart", file: "src/cart/cart.test.ts" };
const cartId = testCaseId(repo, { filePath: cart.file, classname: "cart", parent: "suite", name: cart.name });

describe.each(testDialects)("test pages on %s", (dialect) => {
  let store: TestStore;
  let server: TestServer;
  let token: string;
  let now: number;

  const fixture = useTestHealthServer(dialect, () => now);
  beforeEach(() => {
    now = TEST_HEALTH_START;
    ({ store, server, token } = fixture);
  });

  const upload = async (cases: CaseSpec[], extra: Record<string, unknown> = {}) => {
    const response = await server.post(
      "flaky-tests/upload",
      { ...target, commit_sha: sha(1), branch: "main", junit_xml: [junitReport(cases)], ...extra },
      token,
    );
    expect(response.status).toBe(200);
  };
  const open = (testId: string, headers: Record<string, string> = {}) =>
    browserOn(server).open(testId, headers);
  const signIn = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    browserOn(server).signIn(form, headers);
  /** Signs in as a browser does and returns the Cookie header it then sends. */
  const sessionCookieFor = (as: string, testId = cartId) =>
    browserOn(server).sessionCookie(as, { test_id: testId });

  it("asks a browser without a session for a token, and signs it in with a cookie that holds no token", async () => {
    const first = await open(cartId);
    expect(first.status).toBe(401);
    expect(first.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(first.headers.get("content-security-policy")).toContain("default-src 'none'");
    const form = squashed(await first.text());
    expect(form).toContain('<form method="post" action="sign-in">');
    expect(form).toContain(`<input type="hidden" name="test_id" value="${cartId}" />`);

    const refused = await signIn({ token: `${token.slice(0, -4)}AAAA`, test_id: cartId });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect(await refused.text()).toContain("unknown or revoked");

    const signedIn = await signIn({ token: ` ${token} `, test_id: cartId.toUpperCase() });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(cartId);
    // One cookie for the test pages and one for the queue pages, holding the same session.
    const [cookie, queuesCookie] = signedIn.headers.getSetCookie() as [string, string];
    expect(cookie).toMatch(
      /^switchyard_session=[^;]+; Path=\/tests; Max-Age=43200; HttpOnly; SameSite=Strict; Secure$/,
    );
    expect(queuesCookie).toBe(cookie.replace("Path=/tests", "Path=/queues"));
    expect(cookie).not.toContain(token.slice("sy_0123456789abcdef_".length));
  });

  it("shows what get-test-details answers, and the latest results", async () => {
    const runs: [number, CaseSpec["outcome"], number | null][] = [
      [3, "failed", 12],
      [2, "passed", 12],
      [1, "failed", null],
    ];
    for (const [hoursAgo, outcome, pr] of runs) {
      await upload([{ ...cart, outcome, message: "Timeout after 3000 ms" }], {
        started_at: new Date(now - hoursAgo * HOUR).toISOString(),
        commit_sha: sha(hoursAgo),
        branch: "feature/cart",
        pr_number: pr,
        job_name: "unit",
        run_url: "https://ci.example/runs/7",
        codeowners: "src/cart/ @acme/cart @octocat\n",
      });
    }
    const cookie = await sessionCookieFor(token);
    const response = await open(cartId.toUpperCase(), { cookie });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const page = squashed(await response.text());
    const text = visible(page);
    expect(page).toContain("<h1>adds an item</h1>");
    expect(text).toContain("Class cart in suite suite ; file src/cart/cart.test.ts");
    expect(page).toContain(
      '<a href="./github.com/acme/widgets">acme/widgets</a> (<a href="https://github.com/acme/widgets" rel="noreferrer">on GitHub</a>)',
    );
    expect(text).toContain(
      "healthy since 2026-11-21 12:00 UTC : failed 2 of 3 runs in the last 7 days, but never passed on a commit or stable branch where it failed",
    );
    expect(text).toContain("Quarantine not quarantined; setting: auto (quarantined while flaky)");
    expect(text).toContain("Ticket none linked");
    expect(text).toContain("Failure rate, last 7 days 66.7%");
    expect(text).toContain("Failure rate, last 24 hours 66.7%");
    expect(text).toContain("Pull requests impacted, last 7 days 1");
    expect(text).toContain("Code owners @acme/cart, @octocat");
    expect(text).toContain("Failure Times Last Timeout after &lt;n&gt; ms 2 2026-11-21 11:00 UTC");
    // Newest first: the failure an hour ago, on no PR, then the pass and the failure on PR 12.
    const results = text.slice(text.indexOf("Recent results"));
    expect(results).toContain(
      [
        "Recent results, latest first Time Branch Commit PR Job Outcome Failure",
        `2026-11-21 11:00 UTC feature/cart ${sha(1).slice(0, 7)} unit failed Timeout after &lt;n&gt; ms`,
        `2026-11-21 10:00 UTC feature/cart ${sha(2).slice(0, 7)} #12 unit passed`,
        `2026-11-21 09:00 UTC feature/cart ${sha(3).slice(0, 7)} #12 unit failed Timeout after &lt;n&gt; ms`,
      ].join(" "),
    );
    expect(page).toContain(
      `<a href="https://github.com/acme/widgets/commit/${sha(2)}" rel="noreferrer">${sha(2).slice(0, 7)}</a>`,
    );
    expect(page).toContain('<a href="https://github.com/acme/widgets/pull/12" rel="noreferrer">#12</a>');
    expect(page).toContain('<a href="https://ci.example/runs/7" rel="noreferrer">unit</a>');
    expect(page).toContain('<td class="passed">passed</td>');
  });

  it("escapes test names and failure messages, and links no run URL but http(s)", async () => {
    const spec = { name: hostileName, classname: "<b>pkg</b>", outcome: "failed" as const };
    await upload([{ ...spec, message: `<img src=x onerror="alert(1)">` }], {
      job_name: "<i>job</i>",
      run_url: "javascript:alert(1)",
    });
    const id = testCaseId(repo, { classname: spec.classname, parent: "suite", name: hostileName });
    const page = squashed(await (await open(id, { cookie: await sessionCookieFor(token, id) })).text());
    expect(page).not.toMatch(/<script|<img|<b>pkg|<i>job|javascript:/);
    expect(page).toContain(
      "<h1>renders &lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt; &amp; &quot;quotes&quot;</h1>",
    );
    expect(page).toContain("<title>renders &lt;script&gt;");
    expect(page).toContain("&lt;img src=x onerror=&quot;alert(&lt;n&gt;)&quot;&gt;");
    expect(page).toContain("<td> &lt;i&gt;job&lt;/i&gt; </td>");
  });

  it("links the ticket linked to the test", async () => {
    await upload([cart]);
    const ticketUrl = `https://tickets.example/WID-42?q="><script>alert(1)</script>`;
    const linked = await server.post(
      "flaky-tests/link-ticket",
      { ...target, test_id: cartId, ticket_url: ticketUrl },
      token,
    );
    expect(linked.status).toBe(200);
    const page = squashed(await (await open(cartId, { cookie: await sessionCookieFor(token) })).text());
    const href = "https://tickets.example/WID-42?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E";
    expect(page).toContain(`<dt>Ticket</dt> <dd> <a href="${href}" rel="noreferrer">${href}</a> </dd>`);
    expect(page).not.toContain("<script");
  });

  it("answers 404 for another organization's test, an unknown id and a malformed one", async () => {
    await upload([cart]);
    const globex = await sessionCookieFor(await tokenFor(store, "globex"));
    const foreign = await open(cartId, { cookie: globex });
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).toContain("Test not found");
    const cookie = await sessionCookieFor(token);
    expect((await open(cartId, { cookie })).status).toBe(200);
    const unknown = testCaseId(repo, { name: "never uploaded" });
    expect((await open(unknown, { cookie })).status).toBe(404);
    const malformed = await open("not-a-uuid", { cookie });
    expect(malformed.status).toBe(404);
    expect(malformed.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect((await fetch(`${server.url}/tests/${cartId}/more`)).status).toBe(404);
  });

  it("ends a session when its token is revoked, when it expires, and when it was forged", async () => {
    await upload([cart]);
    const cookie = await sessionCookieFor(token);
    expect((await open(cartId, { cookie })).status).toBe(200);

    const [name, value] = cookie.split("=") as [string, string];
    const [tokenId, expiresAt, mac] = value.split(".") as [string, string, string];
    const longer = `${name}=${tokenId}.${Number(expiresAt) + 365 * 24 * HOUR}.${mac}`;
    expect((await open(cartId, { cookie: longer })).status).toBe(401);
    expect((await open(cartId, { cookie: `${name}=${tokenId}.${expiresAt}.${"A".repeat(22)}` })).status).toBe(
      401,
    );

    now += 12 * HOUR + 1;
    expect((await open(cartId, { cookie })).status).toBe(401);
    now -= 12 * HOUR + 1;
    expect((await open(cartId, { cookie })).status).toBe(200);
    await revokeToken(store.db, tokenId, now);
    expect((await open(cartId, { cookie })).status).toBe(401);
  });

  it("refuses a sign-in posted from another site, and reloads a link followed from one once", async () => {
    const fromElsewhere: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { origin: "https://evil.example" },
      { origin: "null" },
    ];
    for (const headers of fromElsewhere) {
      const crossSite = await signIn({ token, test_id: cartId }, headers);
      expect(crossSite.status, JSON.stringify(headers)).toBe(403);
      expect(crossSite.headers.get("set-cookie")).toBeNull();
    }
    // What Chromium sends from the page itself.
    const sameOrigin = { "sec-fetch-site": "same-origin", origin: server.url };
    expect((await signIn({ token, test_id: cartId }, sameOrigin)).status).toBe(303);
    // A SameSite=Strict cookie is not sent on a navigation from another site: a reload from this one carries it.
    const followed = await (await open(cartId, { "sec-fetch-site": "cross-site" })).text();
    expect(followed).toContain('<meta http-equiv="refresh" content="0" />');
    const reloaded = await (await open(cartId, { "sec-fetch-site": "same-origin" })).text();
    expect(reloaded).not.toContain("http-equiv");
  });

  it("stays out of the OpenAPI document, which describes /v1", async () => {
    const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as any;
    expect(Object.keys(document.paths).filter((path) => !path.startsWith("/v1/"))).toEqual([]);
  });

  it("answers a sign-in that is not a form with an HTML error, never a 500", async () => {
    const text = await fetch(`${server.url}/tests/sign-in`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "token",
    });
    expect(text.status).toBe(415);
    expect(text.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const noId = await signIn({ token });
    expect(noId.status).toBe(404);
    const huge = await signIn({ token, test_id: cartId, padding: "x".repeat(10_000) });
    expect(huge.status).toBe(413);
    // A form posted where no form is taken (a sign-in sent to the page's own address) is refused, not a failure.
    const misdirected = await fetch(`${server.url}/tests/github.com/acme/widgets`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(misdirected.status).toBe(415);
    expect(misdirected.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });
});
