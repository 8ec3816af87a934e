// The queue pages at /queues/<host>/<owner>/<name>[/<branch>]: a repository's queues and one queue, for a person
// signed in with a token of an organization that covers the repository.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokenFor } from "../support/api-server.ts";
import { testDialects } from "../support/database.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";
import { browserOn, squashed, visible } from "../support/test-pages.ts";

const hostileTitle = `<script>alert("owned")</script> & 'quotes'`;
const hostileBranch = `rel/<img_src=x_onerror=alert(1)>"&'`;

describe.each(testDialects)("queue pages on %s", (dialect) => {
  let s: Scenario;
  let cookie: string;

  const open = (path: string, headers: Record<string, string> = { cookie }) =>
    fetch(`${s.server.url}/queues/${path}`, { headers, redirect: "manual" });
  const text = async (path: string) => {
    const response = await open(path);
    expect(response.status).toBe(200);
    return squashed(await response.text());
  };
  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;
  const submit = async (number: number, title: string, priority?: string) => {
    s.repo.openPullRequest({
      number,
      title,
      author: "alice",
      files: { [`src/${number}.ts`]: `${number}\n` },
    });
    const pr = { number, ...(priority === undefined ? {} : { priority }) };
    expect((await s.api("submitPullRequest", { repo, targetBranch: "main", pr })).status).toBe(200);
  };

  beforeEach(async () => {
    s = await startScenario({ dialect });
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    cookie = await browserOn(s.server).sessionCookie(s.token, { queue: "github.com/acme/widgets/main" });
  });
  afterEach(async () => {
    await s.close();
  });

  it("asks for a token on the page, signs in for the test and queue pages, and returns to the queue", async () => {
    const first = await open("github.com/acme/widgets/main", {});
    expect(first.status).toBe(401);
    expect(first.headers.get("content-security-policy")).toContain("default-src 'none'");
    const form = squashed(await first.text());
    expect(form).toContain('<form method="post" action="../../../../tests/sign-in">');
    expect(form).toContain('<input type="hidden" name="queue" value="github.com/acme/widgets/main" />');

    const signedIn = await browserOn(s.server).signIn({
      token: s.token,
      queue: "github.com/acme/widgets/main",
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe("../queues/github.com/acme/widgets/main");
    const paths = signedIn.headers.getSetCookie().map((header) => /Path=([^;]+)/.exec(header)?.[1]);
    expect(paths).toEqual(["/tests", "/queues"]);
  });

  it("lists the repository's queues with their state, depth and runs, linking to each", async () => {
    await s.api("createQueue", { repo, targetBranch: hostileBranch });
    await submit(1, "First");
    await submit(2, "Second");
    await s.settle();
    const page = await text("github.com/acme/widgets");
    const rows = visible(page);
    expect(rows).toContain("main running single 2 1 0 0 — / —");
    expect(page).toContain('<a href="../../../queues/github.com/acme/widgets/main" class="mono">main</a>');
    expect(page).toContain('<a href="../../../tests/github.com/acme/widgets">Test health</a>');
    expect(page).toContain(
      `<a href="../../../queues/github.com/acme/widgets/${encodeURIComponent(hostileBranch).replace("'", "&#39;")}" class="mono">rel/&lt;img_src=x_onerror=alert(1)&gt;&quot;&amp;&#39;</a>`,
    );
    expect(page).not.toContain("<img");

    // The link opens the queue's page; so does the branch written with its slash.
    const hostilePage = await text(`github.com/acme/widgets/${encodeURIComponent(hostileBranch)}`);
    expect(hostilePage).toContain(
      'Merge queue of <span class="mono">rel/&lt;img_src=x_onerror=alert(1)&gt;&quot;&amp;&#39;</span>',
    );
    expect(hostilePage).toContain(
      '<a href="../../../../queues/github.com/acme/widgets">All queues of acme/widgets</a>',
    );
    const slashed = await text(`github.com/acme/widgets/rel/${encodeURIComponent(hostileBranch.slice(4))}`);
    expect(slashed).toContain('<a href="../../../../../queues/github.com/acme/widgets">');
  });

  it("shows the PRs in queue order with why they are there, their run as a train and its checks", async () => {
    await submit(1, hostileTitle);
    await submit(2, "Second");
    await s.settle();
    const run = (
      await s.api("getMergeQueueTestingDetails", {
        repo,
        targetBranch: "main",
        testRunId: (await record(1)).testRunId,
      })
    ).body;
    s.repo.reportStatus(run.testBranchSha, "ci", "pending", { targetUrl: "https://ci.example/build/7" });
    await s.settle();

    const page = await text("github.com/acme/widgets/main");
    expect(page).toContain("&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;");
    expect(page).not.toContain("<script>");
    const queued = visible(
      page.slice(page.indexOf('<section id="queued">'), page.indexOf('<section id="departed">')),
    );
    expect(queued).toMatch(/1 #1 .* testing medium .* Its test run started .* in progress target \w{7} #1 /);
    expect(queued).toContain("pending ci");
    expect(page).toContain('<a href="https://ci.example/build/7" rel="noreferrer">ci</a>');
    expect(page).toContain('<tr id="pr-1">');
    expect(queued).toMatch(
      /2 #2 Second by alice pending medium .* Submitted to the queue Submitted. Ready to be tested. not tested yet/,
    );
    expect(page).toContain('<dt>requiredStatuses</dt> <dd class="mono">ci</dd>');
  });

  it("lists the PRs that left in the last day with why", async () => {
    await submit(3, "Gone");
    await s.settle();
    await s.api("cancelPullRequest", { repo, targetBranch: "main", pr: { number: 3 } });
    await s.settle();
    const page = await text("github.com/acme/widgets/main");
    const departed = visible(page.slice(page.indexOf('<section id="departed">')));
    expect(departed).toContain("#3 Gone by alice cancelled");
    expect(departed).toMatch(/Cancelled on request by API token \S+ of acme\./);
    expect(visible(page)).toContain("No PR is in the queue.");
    // Its comment, posted for the cancellation, links to its place on the page: its row among the departed.
    const place = `${s.server.config.publicUrl}/queues/github.com/acme/widgets/main#pr-3`;
    const comment = s.repo.comments(3).find((c) => c.author === s.fake.appLogin);
    expect(comment?.body).toContain(`[See it on the queue's page](${place})`);
  });

  it("draws the merge in the charts of the last 24 hours and lists it as merged", async () => {
    await submit(4, "Shipped");
    await s.settle();
    const run = (
      await s.api("getMergeQueueTestingDetails", {
        repo,
        targetBranch: "main",
        testRunId: (await record(4)).testRunId,
      })
    ).body;
    s.clock.now += 12 * 60_000;
    s.repo.reportStatus(run.testBranchSha, "ci", "success");
    await s.settle();
    expect(await record(4)).toMatchObject({ state: "merged" });

    const page = await text("github.com/acme/widgets/main");
    const chart = (id: string) =>
      page.slice(page.indexOf(`id="${id}"`), page.indexOf("</figure>", page.indexOf(`id="${id}"`)));
    expect(chart("chart-merged")).toContain("<title>09:12 UTC: 1</title>");
    expect(chart("chart-time-to-merge")).toContain("<title>09:12 UTC: 12 min</title>");
    expect(chart("chart-runs-per-merge")).toContain("<title>09:12 UTC: 1.0</title>");
    expect(chart("chart-depth")).toContain("<title>09:12 UTC: 0</title>");
    expect(visible(page.slice(page.indexOf('<section id="departed">')))).toContain(
      "#4 Shipped by alice merged",
    );

    // The PR's commit status links to its place on the page: its row, once it left, among the departed. (A course
    // with no news gets no comment: the status showed it.)
    const place = `${s.server.config.publicUrl}/queues/github.com/acme/widgets/main#pr-4`;
    expect(s.repo.comments(4).filter((c) => c.author === s.fake.appLogin)).toEqual([]);
    const statuses = s.repo
      .statuses(s.repo.pullRequest(4).headSha)
      .filter((status) => status.context !== "ci");
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status.targetUrl === place)).toBe(true);
    expect(page).toMatch(/<tr id="pr-4"> <td><a href="https:\/\/github.com\/acme\/widgets\/pull\/4"/);
    expect(visible(await text("github.com/acme/widgets"))).toContain(
      "main running single 0 0 1 0 12 min / 12 min",
    );
  });

  it("answers the same 404 to another organization's token as for a repository that is not there", async () => {
    const other = await tokenFor(s.store, "globex");
    const otherCookie = await browserOn(s.server).sessionCookie(other, { queue: "github.com/acme/widgets" });
    for (const path of ["github.com/acme/widgets", "github.com/acme/widgets/main"]) {
      const response = await open(path, { cookie: otherCookie });
      expect(response.status).toBe(404);
      expect(visible(await response.text())).toContain("not one your organization can see");
    }
    expect((await open("github.com/acme/gadgets")).status).toBe(404);
    expect((await open("github.com/acme/widgets/no-such-branch")).status).toBe(404);
  });
});
