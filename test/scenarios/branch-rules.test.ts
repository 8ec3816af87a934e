// GitHub's branch rules under each merge method: the queue lands its PRs where the rules allow it, and where
// they do not it fails them naming the rule, within a bounded number of GitHub calls, never looping.
import { afterEach, describe, expect, it } from "vitest";
import type { FakeRepository } from "../../src/sandbox/fake-github/index.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";
import { browserOn, visible } from "../support/test-pages.ts";

type Method = "squash" | "rebase" | "merge_commit";

interface RuleCase {
  readonly name: string;
  readonly apply: (repo: FakeRepository) => void;
}

const signaturesRuleset: RuleCase = {
  name: "a ruleset requiring signed commits",
  apply: (r) =>
    r.rules.addRuleset({ name: "signed", branches: ["main"], rules: [{ type: "required_signatures" }] }),
};
const signaturesProtection: RuleCase = {
  name: "branch protection requiring signed commits",
  apply: (r) => {
    r.protectBranch("main", { requiredSignatures: true });
    r.rules.protectionChanged("main");
  },
};
const linearRuleset: RuleCase = {
  name: "a ruleset requiring a linear history",
  apply: (r) =>
    r.rules.addRuleset({ name: "linear", branches: ["main"], rules: [{ type: "required_linear_history" }] }),
};
const lockedProtection: RuleCase = {
  name: "a locked branch",
  apply: (r) => {
    r.protectBranch("main", { lockBranch: true });
    r.rules.protectionChanged("main");
  },
};

describe("branch rules", () => {
  let s: Scenario;
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  /** The head of main before the PRs. */
  let base: string;
  /** What the queue put on main. */
  const landed = () => s.repo.commitsBetween(base, s.repo.branch("main") as string);
  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;

  /**
   * Two PRs queued together under `rule` (added after the queue exists, so that it is found at work, not at
   * creation), then every test branch passes.
   */
  const runTwoPrs = async (
    method: Method,
    rule: RuleCase | null,
    { ruleFirst = false, unsigned = [] as number[] } = {},
  ) => {
    s = await startScenario();
    base = s.repo.branch("main") as string;
    if (ruleFirst) rule?.apply(s.repo);
    const created = await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      mergeMethod: method,
      concurrency: 2,
    });
    expect(created.status).toBe(200);
    if (!ruleFirst) rule?.apply(s.repo);
    for (const number of [1, 2]) {
      s.repo.openPullRequest({
        number,
        title: `Change ${number}`,
        author: "alice",
        files: { [`src/${number}.ts`]: `${number}\n` },
      });
      if (unsigned.includes(number)) s.repo.rules.markUnsigned(s.repo.pullRequest(number).headSha);
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number } });
    }
    await s.settle();
    await passEveryTestBranch();
    return { calls: s.fake.calls().length };
  };

  /** CI passes every test branch it sees, until the queue is quiet or 20 rounds passed. */
  const passEveryTestBranch = async () => {
    for (let rounds = 0; rounds < 20; rounds++) {
      const untested = s.repo
        .branches()
        .filter((branch) => branch.startsWith("mq/"))
        .map((branch) => s.repo.branch(branch) as string)
        .filter((sha) => s.repo.statuses(sha).every((status) => status.context !== "ci"));
      if (untested.length === 0) return;
      for (const sha of new Set(untested)) s.repo.reportStatus(sha, "ci", "success");
      await s.settle();
    }
  };

  describe.each<Method>(["squash", "rebase", "merge_commit"])("with %s", (method) => {
    it.each([signaturesRuleset, signaturesProtection])(
      "$name: both PRs land on signed commits",
      async (rule) => {
        const { calls } = await runTwoPrs(method, rule);
        expect((await record(1)).state).toBe("merged");
        expect((await record(2)).state).toBe("merged");
        expect(landed().length).toBeGreaterThan(0);
        for (const commit of landed()) expect(s.repo.rules.isVerified(commit.sha)).toBe(true);
        expect(calls).toBeLessThan(150);
      },
    );

    it("a locked branch: the PRs fail naming the rule, and the queue pauses", async () => {
      const { calls } = await runTwoPrs(method, lockedProtection);
      const first = await record(1);
      expect(first).toMatchObject({ state: "failed", stateReason: "branch_rule_refused" });
      expect(first.stateDetail).toContain("lock_branch");
      expect(first.stateDetail).toContain("Cannot change this locked branch");
      const queue = (await s.api("getQueue", { repo, targetBranch: "main" })).body;
      expect(queue.state).toBe("paused");
      expect(queue.branchRules.rules).toContainEqual(
        expect.objectContaining({ type: "lock_branch", source: "branch protection", blocksLanding: true }),
      );
      const cookie = await browserOn(s.server).sessionCookie(s.token, {
        queue: "github.com/acme/widgets/main",
      });
      const page = visible(
        await (
          await fetch(`${s.server.url}/queues/github.com/acme/widgets/main`, { headers: { cookie } })
        ).text(),
      );
      expect(page).toContain("Branch rules on GitHub lock_branch (branch protection) Nothing can land:");
      expect(page).toContain("GitHub refused 1 merge for a rule");
      expect(calls).toBeLessThan(100);
    });
  });

  it.each<Method>(["squash", "rebase"])(
    "linear history with %s: both PRs land, no merge commit on main",
    async (method) => {
      await runTwoPrs(method, linearRuleset);
      expect((await record(2)).state).toBe("merged");
      expect(landed().every((commit) => commit.parents.length === 1)).toBe(true);
    },
  );

  it("linear history with merge_commit: the PRs fail naming the rule, the queue pauses, GitHub is asked a bounded number of times", async () => {
    const { calls } = await runTwoPrs("merge_commit", linearRuleset);
    const first = await record(1);
    expect(first).toMatchObject({ state: "failed", stateReason: "branch_rule_refused" });
    expect(first.stateDetail).toContain("required_linear_history");
    expect(first.stateDetail).toContain("This branch must not contain merge commits.");
    expect((await s.api("getQueue", { repo, targetBranch: "main" })).body.state).toBe("paused");
    expect(calls).toBeLessThan(100);
  });

  it("a rule webhook that never came: the refusal makes the queue read the rules again; else they are read once, not per test branch", async () => {
    const ruleReads = () =>
      s.fake.calls().filter((call) => call === "GET /repos/acme/widgets/rules/branches/main").length;
    const missedWebhook: RuleCase = {
      name: "a linear history ruleset whose webhook is lost",
      apply: (r) => {
        linearRuleset.apply(r);
        s.fake.takeWebhooks();
      },
    };
    await runTwoPrs("merge_commit", missedWebhook);
    expect(s.fake.webhooks.map((webhook) => webhook.name)).toContain("repository_ruleset");
    const first = await record(1);
    expect(first).toMatchObject({ state: "failed", stateReason: "branch_rule_refused" });
    expect(first.stateDetail).toContain("required_linear_history");
    const queue = (await s.api("getQueue", { repo, targetBranch: "main" })).body;
    expect(queue.branchRules.rules).toEqual([
      expect.objectContaining({ type: "required_linear_history", blocksLanding: true }),
    ]);
    expect(queue.state).toBe("paused");
    // Once at createQueue, once after the refusal: building the two PRs' test branches asked nothing.
    expect(ruleReads()).toBe(2);
  });

  it("merge_commit, a signature rule known only from GitHub's refusal (its webhook lost): the runs are built again from signed commits and land", async () => {
    const missedWebhook: RuleCase = {
      name: "a signatures ruleset whose webhook is lost",
      apply: (r) => {
        signaturesRuleset.apply(r);
        s.fake.takeWebhooks();
      },
    };
    const { calls } = await runTwoPrs("merge_commit", missedWebhook);
    expect((await record(1)).state).toBe("merged");
    expect((await record(2)).state).toBe("merged");
    for (const commit of landed()) expect(s.repo.rules.isVerified(commit.sha)).toBe(true);
    const queue = (await s.api("getQueue", { repo, targetBranch: "main" })).body;
    expect(queue.branchRules).toMatchObject({ refusals: 1, lastRefusal: { rule: "required_signatures" } });
    expect(calls).toBeLessThan(150);
  });

  it.each([
    { method: "merge_commit", how: "PATCH", path: "/repos/acme/widgets/git/refs/heads/main", status: 422 },
    { method: "squash", how: "PUT", path: "/repos/acme/widgets/pulls/1/merge", status: 405 },
  ] as const)(
    "$method: a refusal in a rule's words while main moved is the move's doing; the PR is tested again and lands",
    async ({ method, how, path, status }) => {
      let pushedMeanwhile = false;
      s = await startScenario({
        // GitHub refuses the merge because someone pushed to main just before it: the push is what the queue
        // must act on (test again), not the refusal's words.
        whileAppWaits: async (request, response) => {
          if (request.method !== how || response.status !== status || pushedMeanwhile) return;
          pushedMeanwhile = true;
          s.repo.commit("main", { "other/outside.ts": "x\n" }, "Outside push", "bob");
        },
      });
      await s.api("createQueue", {
        repo,
        targetBranch: "main",
        requiredStatuses: ["ci"],
        mergeMethod: method,
      });
      s.fake.failNext({
        method: how,
        path,
        status,
        message: "Repository rule violations found\n\nThis branch must not contain merge commits.\n\n",
      });
      s.repo.openPullRequest({ number: 1, title: "Change 1", author: "alice", files: { "src/1.ts": "1\n" } });
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
      await s.settle();
      await passEveryTestBranch();
      expect(pushedMeanwhile).toBe(true);
      expect((await record(1)).state).toBe("merged");
      const queue = (await s.api("getQueue", { repo, targetBranch: "main" })).body;
      expect(queue).toMatchObject({ state: "running", branchRules: { refusals: 0, lastRefusal: null } });
    },
  );

  it("merge_commit under a signature rule known from the start: lands without a single refusal", async () => {
    const { calls } = await runTwoPrs("merge_commit", signaturesRuleset, { ruleFirst: true });
    expect((await record(2)).state).toBe("merged");
    const queue = (await s.api("getQueue", { repo, targetBranch: "main" })).body;
    expect(queue.branchRules).toMatchObject({ refusals: 0, lastRefusal: null });
    expect(queue.branchRules.rules).toEqual([
      expect.objectContaining({ type: "required_signatures", blocksLanding: false }),
    ]);
    expect(s.fake.calls().filter((call) => call.endsWith("/git/commits"))).toEqual([]);
    expect(calls).toBeLessThan(80);
  });

  it("merge_commit: a PR whose own commits are unsigned fails naming the rule; the queue goes on with the next", async () => {
    await runTwoPrs("merge_commit", signaturesRuleset, { ruleFirst: true, unsigned: [1] });
    const first = await record(1);
    expect(first).toMatchObject({ state: "failed", stateReason: "branch_rule_refused" });
    expect(first.stateDetail).toBe(
      "GitHub refused the merge for the branch rule required_signatures: Repository rule violations found — Commits must have verified signatures.",
    );
    expect((await record(2)).state).toBe("merged");
    const queue = (await s.api("getQueue", { repo, targetBranch: "main" })).body;
    expect(queue.state).toBe("running");
    expect(queue.branchRules).toMatchObject({ refusals: 1, lastRefusal: { rule: "required_signatures" } });
    const metrics = await fetch(`${s.server.url}/v1/getMergeQueueMetrics`, {
      headers: { "x-api-token": s.token },
    });
    expect(await metrics.text()).toMatch(/mq_branch_rule_refusals_1h_total\{[^}]*\} 1/);
  });

  describe("createQueue and updateQueue", () => {
    const createQueue = (mergeMethod: Method) =>
      s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"], mergeMethod });

    it("refuses merge_commit on a branch that requires a linear history, naming the rule", async () => {
      s = await startScenario();
      linearRuleset.apply(s.repo);
      const refused = await createQueue("merge_commit");
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("branch_rule_conflict");
      expect(refused.body.detail).toContain("required_linear_history");
      expect(refused.body.detail).toContain("use squash or rebase");

      const created = await createQueue("squash");
      expect(created.status).toBe(200);
      expect(created.body.branchRules.rules).toEqual([
        expect.objectContaining({ type: "required_linear_history", blocksLanding: false }),
      ]);
      const switched = await s.api("updateQueue", {
        repo,
        targetBranch: "main",
        mergeMethod: "merge_commit",
      });
      expect(switched.status).toBe(409);
      expect(switched.body.code).toBe("branch_rule_conflict");
      expect((await s.api("getQueue", { repo, targetBranch: "main" })).body.mergeMethod).toBe("squash");
    });

    it("a queue on a locked branch starts paused, and resumes only once it is unlocked", async () => {
      s = await startScenario();
      lockedProtection.apply(s.repo);
      await s.settle();
      const created = await createQueue("squash");
      expect(created.body).toMatchObject({ state: "paused" });
      expect(created.body.branchRules.rules[0]).toMatchObject({ type: "lock_branch", blocksLanding: true });
      const resumed = await s.api("updateQueue", { repo, targetBranch: "main", state: "running" });
      expect(resumed.status).toBe(409);
      expect(resumed.body.detail).toContain("lock_branch");

      s.repo.protectBranch("main", {});
      s.repo.rules.protectionChanged("main");
      await s.settle();
      expect((await s.api("getQueue", { repo, targetBranch: "main" })).body.branchRules.rules).toEqual([]);
      const unlocked = await s.api("updateQueue", { repo, targetBranch: "main", state: "running" });
      expect(unlocked.body.state).toBe("running");
    });
  });

  it("a PR sent back again and again (main keeps moving) starts testing at most 6 times within an hour", async () => {
    s = await startScenario();
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    s.repo.openPullRequest({ number: 1, title: "Change 1", author: "alice", files: { "src/1.ts": "1\n" } });
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    const testBranches = () =>
      s.fake.requests
        .filter((call) => call.method === "POST" && call.path === "/repos/acme/widgets/git/refs")
        .filter((call) => String((call.body as { ref: string }).ref).startsWith("refs/heads/mq/")).length;
    for (let push = 0; push < 10; push++) {
      s.clock.now += 60_000;
      s.repo.commit("main", { [`other/${push}.ts`]: "x\n" }, `Outside push ${push}`, "bob");
      await s.settle();
    }
    expect(testBranches()).toBe(6);
    expect(await record(1)).toMatchObject({ state: "pending", stateReason: "target_moved" });

    // An hour after its first start, it may start again.
    s.clock.now += 60 * 60_000;
    await s.poll();
    expect(testBranches()).toBe(7);
    expect((await record(1)).state).toBe("testing");
  });
});
