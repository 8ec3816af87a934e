// A repository's test health page at /tests/<host>/<owner>/<name>: the listings (docs/test-health.md#listings) for a person.
import { beforeEach, describe, expect, it } from "vitest";
import { type TestServer, tokenFor } from "../support/api-server.ts";
import { type TestStore, testDialects } from "../support/database.ts";
import {
  type CaseSpec,
  junitReport,
  TEST_HEALTH_START,
  useTestHealthServer,
  widgetsTarget as target,
  widgetsTestId,
} from "../support/test-health.ts";
import { type Browser, browserOn, squashed, visible } from "../support/test-pages.ts";

const HOUR = 3600 * 1000;
const sha = (n: number) => String(n).repeat(40);
const hostileName = `<script>alert("owned")</script> & "quotes"`;
const widgetsPage = "github.com/acme/widgets";
/** The markup of one section of the page. */
const section = (page: string, name: string) => {
  const start = page.indexOf(`<section id="${name}">`);
  return page.slice(start, page.indexOf("</section>", start));
};
/** The names of the tests a section lists, in its order. */
const listed = (page: string, name: string) =>
  [...section(page, name).matchAll(/<a href="\.\.\/\.\.\/([0-9a-f-]{36})">/g)].map((match) => match[1]);

describe.each(testDialects)("repository pages on %s", (dialect) => {
  let store: TestStore;
  let server: TestServer;
  let token: string;
  let browser: Browser;
  let now: number;

  const fixture = useTestHealthServer(dialect, () => now);
  beforeEach(() => {
    now = TEST_HEALTH_START;
    ({ store, server, token } = fixture);
    browser = browserOn(server);
  });

  const upload = async (cases: CaseSpec[], commit: number) => {
    const body = { ...target, commit_sha: sha(commit), branch: "main", junit_xml: [junitReport(cases)] };
    expect((await server.post("flaky-tests/upload", body, token)).status).toBe(200);
  };
  const signedIn = () => browser.sessionCookie(token, { repository: "github.com/acme/widgets" });
  const openPage = async (path: string, cookie: string) => {
    const response = await browser.open(path, { cookie });
    expect(response.status).toBe(200);
    return squashed(await response.text());
  };

  it("asks for a token and returns to the repository's page", async () => {
    const first = await browser.open("github.com/ACME/widgets");
    expect(first.status).toBe(401);
    const form = squashed(await first.text());
    expect(form).toContain("Sign in to see the tests of ACME/widgets");
    expect(form).toContain('<form method="post" action="../../sign-in">');
    expect(form).toContain('<input type="hidden" name="repository" value="github.com/ACME/widgets" />');

    const refused = await browser.signIn({ token: "sy_nope", repository: "github.com/ACME/widgets" });
    expect(refused.status).toBe(401);
    expect(squashed(await refused.text())).toContain('<form method="post" action="sign-in">');
    const signIn = await browser.signIn({ token, repository: "github.com/ACME/widgets" });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("location")).toBe("./github.com/ACME/widgets");
    // The form names a page of this service or nothing: no redirect elsewhere.
    for (const repository of [
      "//evil.example/a/b",
      "https://evil.example/a",
      "github.com/acme/..",
      "a/b/c/d",
    ]) {
      expect((await browser.signIn({ token, repository })).status, repository).toBe(404);
    }
  });

  it("lists broken, flaky and quarantined tests and those that failed in 7 days, each linking to its page", async () => {
    const broken = { name: hostileName, outcome: "failed" as const };
    await upload([broken, { name: "flips", outcome: "failed" }, { name: "steady" }], 1);
    now += HOUR;
    await upload([broken, { name: "flips" }, { name: "steady" }], 1);
    now += HOUR;
    await upload([broken, { name: "flips" }, { name: "steady" }], 2);
    now += HOUR;
    await upload([{ name: "wobbles", outcome: "failed" }, { name: "wobbles" }], 3);

    const page = await openPage(widgetsPage, await signedIn());
    const text = visible(page);
    expect(page).toContain("<h1>Test health of acme/widgets</h1>");
    expect(text).toContain("1 broken · 2 flaky · 2 quarantined · 3 failed in the last 7 days");
    expect(listed(page, "broken")).toEqual([widgetsTestId(hostileName)]);
    // Most recent status change, or quarantine, first.
    expect(listed(page, "flaky")).toEqual([widgetsTestId("wobbles"), widgetsTestId("flips")]);
    expect(listed(page, "quarantined")).toEqual([widgetsTestId("wobbles"), widgetsTestId("flips")]);
    // Most failures first.
    expect(listed(page, "failing")).toEqual([
      widgetsTestId(hostileName),
      widgetsTestId("flips"),
      widgetsTestId("wobbles"),
    ]);
    expect(visible(section(page, "failing"))).toContain("failed in the last 7 days");
    expect(visible(section(page, "failing"))).toMatch(/&quot;quotes&quot; pkg\.Widget broken since .* 3 /);
    expect(page).not.toContain("<script");
    expect(page).toContain("&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt; &amp; &quot;quotes&quot;");

    // The test's page links back.
    const testPage = await openPage(widgetsTestId("flips"), await signedIn());
    expect(testPage).toContain('<a href="./github.com/acme/widgets">acme/widgets</a>');
  });

  it("pages each section on its own with signed links, and refuses an altered one", async () => {
    const names = Array.from({ length: 27 }, (_, i) => `test ${String(i).padStart(2, "0")}`);
    await upload(
      names.map((name) => ({ name, outcome: "failed" as const })),
      1,
    );
    await upload(
      names.map((name) => ({ name })),
      1,
    );
    const cookie = await signedIn();
    const first = await openPage(widgetsPage, cookie);
    expect(listed(first, "flaky")).toHaveLength(25);
    expect(visible(section(first, "flaky"))).toContain("Page 1 of 2 · next · last");
    const next = /<a href="([^"]+)#flaky">next<\/a>/.exec(section(first, "flaky"))?.[1] as string;
    const second = await openPage(`${widgetsPage}${next.replaceAll("&amp;", "&")}`, cookie);
    expect(listed(second, "flaky")).toHaveLength(2);
    expect(new Set([...listed(first, "flaky"), ...listed(second, "flaky")]).size).toBe(27);
    expect(visible(section(second, "flaky"))).toContain("Page 2 of 2 · first · previous");
    // The other sections stay on their first page; their links keep the flaky section on its second.
    expect(listed(second, "failing")).toEqual(listed(first, "failing"));
    const failingNext = /<a href="([^"]+)#failing">next<\/a>/.exec(section(second, "failing"))?.[1] as string;
    expect(failingNext).toContain(next.slice(1).replaceAll("&amp;", "&").replace(/&.*/, ""));

    const altered = await browser.open(`${widgetsPage}?flaky=${next.slice(7, -3)}AAA`, { cookie });
    expect(altered.status).toBe(400);
    expect(await altered.text()).toContain("This page link has expired");
  });

  it("answers 404 for a repository outside the token's organization, an unknown one and a malformed one", async () => {
    await upload([{ name: "flips" }], 1);
    const globex = await browser.sessionCookie(await tokenFor(store, "globex"), { repository: widgetsPage });
    const foreign = await browser.open(widgetsPage, { cookie: globex });
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).toContain("Repository not found");
    const cookie = await signedIn();
    expect((await browser.open(widgetsPage, { cookie })).status).toBe(200);
    for (const path of ["github.com/acme/gadgets", "gitlab.com/acme/widgets", "github.com/-acme/widgets"]) {
      expect((await browser.open(path, { cookie })).status, path).toBe(404);
    }
  });
});
