// Each queue command has one use case (src/queue-commands/) behind its doors: the /v1 endpoint, the `/merge`
// comment and the queue page's button. Driven through each door it has, a command leaves the queue the same,
// and a command the queue refuses changes nothing, whichever door said so.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { browserOn } from "../support/test-pages.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

const mainPage = "github.com/acme/widgets/main";

type Outcome = "done" | "refused";

interface Door {
  readonly name: string;
  submit?: (s: Scenario, number: number, priority?: string) => Promise<Outcome>;
  cancel: (s: Scenario, number: number) => Promise<Outcome>;
  restart: (s: Scenario, number: number) => Promise<Outcome>;
  /** Submits a queued PR again as urgent. */
  urgent: (s: Scenario, number: number) => Promise<Outcome>;
  queueStatus?: (s: Scenario, status: "paused" | "running" | "draining") => Promise<Outcome>;
}

const answered = (status: number): Outcome => (status === 200 || status === 303 ? "done" : "refused");

const api: Door = {
  name: "the /v1 API",
  submit: async (s, number, priority) =>
    answered(
      (await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number }, priority })).status,
    ),
  cancel: async (s, number) =>
    answered((await s.api("cancelPullRequest", { repo, targetBranch: "main", pr: { number } })).status),
  restart: async (s, number) =>
    answered(
      (await s.api("restartTestsOnPullRequest", { repo, targetBranch: "main", pr: { number } })).status,
    ),
  urgent: (s, number) => api.submit!(s, number, "urgent"),
  queueStatus: async (s, state) =>
    answered((await s.api("updateQueue", { repo, targetBranch: "main", state })).status),
};

/** Comments `body` as alice, a writer: done when the app reacted 👍, refused when it replied instead. */
async function comment(s: Scenario, number: number, body: string): Promise<Outcome> {
  const delivery = s.repo.comment(number, "alice", body);
  await s.settle();
  const reactions = s.repo.reactions(delivery.payload.comment.id).map((reaction) => reaction.content);
  if (reactions.includes("+1")) return "done";
  const replies = s.repo.comments(number).filter((reply) => reply.author !== "alice");
  expect(replies.at(-1)?.body).toMatch(/^@alice /);
  return "refused";
}

const comments: Door = {
  name: "a /merge comment",
  submit: (s, number, priority) => comment(s, number, priority ? `/merge --priority ${priority}` : "/merge"),
  cancel: (s, number) => comment(s, number, "/merge cancel"),
  restart: (s, number) => comment(s, number, "/merge restart"),
  urgent: (s, number) => comment(s, number, "/merge --priority urgent"),
};

/** Posts the page's form for `action` as a signed-in visitor of acme. */
async function pageAction(s: Scenario, form: Record<string, string>): Promise<Outcome> {
  const cookie = await browserOn(s.server).sessionCookie(s.token, { queue: mainPage });
  const page = await (
    await fetch(`${s.server.url}/queues/${mainPage}`, { headers: { cookie }, redirect: "manual" })
  ).text();
  const formToken = /name="form_token" value="([^"]+)"/.exec(page)?.[1] as string;
  const response = await fetch(`${s.server.url}/queues/${mainPage}`, {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ form_token: formToken, ...form }).toString(),
    redirect: "manual",
  });
  return answered(response.status);
}

const queuePage: Door = {
  name: "the queue page",
  cancel: (s, number) => pageAction(s, { action: "cancel", pr: String(number) }),
  restart: (s, number) => pageAction(s, { action: "restart", pr: String(number) }),
  urgent: (s, number) => pageAction(s, { action: "urgent", pr: String(number) }),
  queueStatus: (s, status) =>
    pageAction(s, { action: ({ paused: "pause", running: "resume", draining: "drain" } as const)[status] }),
};

describe.each([api, comments, queuePage])("queue commands through %s", (door: Door) => {
  let s: Scenario;
  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;
  const queueRecord = async () => (await s.api("getQueue", { repo, targetBranch: "main" })).body;
  const open = (number: number) =>
    s.repo.openPullRequest({
      number,
      title: `Change ${number}`,
      author: "bob",
      files: { [`${number}.ts`]: "x\n" },
    });
  /** Submits through the API: the door under test need not have a submit of its own. */
  const queued = async (number: number) => {
    open(number);
    expect(await api.submit!(s, number)).toBe("done");
    await s.settle();
  };

  beforeEach(async () => {
    s = await startScenario();
    s.repo.setPermission("alice", "write");
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
  });
  afterEach(async () => {
    await s.close();
  });

  it("cancels a queued PR, and refuses to cancel it again", async () => {
    await queued(1);
    expect(await door.cancel(s, 1)).toBe("done");
    await s.settle();
    expect(await record(1)).toMatchObject({ state: "cancelled", stateReason: "cancelled_by_user" });
    const before = await queueRecord();
    // The API answers a cancelled PR's cancel with its record (idempotent); the others say there is nothing to do.
    expect(await door.cancel(s, 1)).toBe(door === api ? "done" : "refused");
    expect(await queueRecord()).toEqual(before);
  });

  it("tests a queued PR again, and refuses a PR that was never submitted", async () => {
    await queued(1);
    const firstRun = (await record(1)).testRunId;
    expect(firstRun).not.toBeNull();
    expect(await door.restart(s, 1)).toBe("done");
    await s.settle();
    expect((await record(1)).testRunId).not.toBe(firstRun);

    open(2);
    const before = await queueRecord();
    expect(await door.restart(s, 2)).toBe("refused");
    expect(await door.cancel(s, 2)).toBe("refused");
    expect(await queueRecord()).toEqual(before);
  });

  it("makes a queued PR urgent by submitting it again", async () => {
    await queued(1);
    await queued(2);
    expect(await door.urgent(s, 2)).toBe("done");
    await s.settle();
    expect(await record(2)).toMatchObject({ priorityName: "urgent", state: expect.any(String) });
    expect((await record(2)).isCurrentlySubmittedToQueue).toBe(true);
  });

  it.runIf(door.queueStatus !== undefined)("pauses, resumes and drains the queue", async () => {
    for (const status of ["paused", "running", "draining"] as const) {
      expect(await door.queueStatus!(s, status)).toBe("done");
      expect((await queueRecord()).state).toBe(status);
    }
  });

  it.runIf(door.submit !== undefined)(
    "submits a PR, and refuses a new one while the queue drains",
    async () => {
      open(1);
      expect(await door.submit!(s, 1)).toBe("done");
      await s.settle();
      expect(await record(1)).toMatchObject({ state: "testing", isCurrentlySubmittedToQueue: true });

      await api.queueStatus!(s, "draining");
      open(2);
      expect(await door.submit!(s, 2)).toBe("refused");
      expect(
        (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 2 } })).status,
      ).toBe(404);
    },
  );

  it.runIf(door.submit !== undefined)(
    "tells the queue the CI result its head had before it was submitted",
    async () => {
      const failed = open(1);
      s.repo.reportCheckRun(failed.headSha, "lint", { conclusion: "failure" });
      s.repo.reportStatus(failed.headSha, "ci", "success");
      const passed = open(2);
      s.repo.reportStatus(passed.headSha, "ci", "success");
      open(3);
      // Webhooks about PRs no queue holds yet: they reach no queue.
      await s.settle();
      for (const number of [1, 2, 3]) expect(await door.submit!(s, number)).toBe("done");
      await s.settle();

      const queue = await s.store.db.selectFrom("queues").select("id").executeTakeFirstOrThrow();
      const state = await s.server.engine.read(queue.id);
      expect(state?.prs[1]?.evidence?.headChecks).toEqual({ headSha: failed.headSha, outcome: "failure" });
      expect(state?.prs[2]?.evidence?.headChecks).toEqual({ headSha: passed.headSha, outcome: "success" });
      expect(state?.prs[3]?.evidence?.headChecks).toBeUndefined();
    },
  );
});
