// npm run bench:github — the GitHub API budget of the queue: every call the service makes to GitHub while 12 good PRs
// go through a queue with batches of 4 (CI passes every tested commit, oldest run first), counted by the fake GitHub
// (src/sandbox/fake-github) and divided by the PRs merged, by kind. GitHub's documented secondary limits allow
// about 80 content-creating requests (writes) a minute and 500 an hour per app installation: writes per merged PR
// set how many PRs an hour a queue can land before it meets them. The same scenario twice: with squash, the
// default merge method (each PR lands through its pull request's merge), then with merge_commit (a passed batch
// lands with one fast-forward). A count, not a timing: the service runs in this process (the same code as the
// bundle), on SQLite, against the fake on loopback.
import { repoRef as repo, startScenario } from "../support/queue-scenario.ts";

const prs = 12;
const batchSize = 4;

/** `METHOD /path` with the numbers, shas and names in it replaced by placeholders. */
function callKind(method: string, url: string): string {
  const path = new URL(url).pathname
    .replace(/^\/repos\/[^/]+\/[^/]+/, "/repos/{repo}")
    .replace(/\/git\/refs\/.*$/, "/git/refs/{ref}")
    .replace(/switchyard-build%2F[0-9a-f]+$/, "switchyard-build%2F{queue}")
    .replace(/\/git\/(commits|trees|blobs)\/[0-9a-f]+$/, "/git/$1/{sha}")
    .replace(/\/(commits|statuses|compare)\/.*$/, "/$1/{ref}")
    .replace(/\/branches\/.*$/, "/branches/{branch}")
    .replace(/\/(\d+)(?=\/|$)/g, "/{n}");
  return `${method} ${path}`;
}

const isWrite = (kind: string) => !kind.startsWith("GET ") && !kind.includes("/access_tokens");

/** What a write is for, as a person reads the budget: the PR's notifications, the test branches, or landing. */
function writePurpose(method: string, url: string): string {
  const path = decodeURIComponent(new URL(url).pathname);
  if (path.includes("/statuses/")) return "commit statuses";
  if (path.includes("/comments")) return "comments (posts and edits)";
  if (path.endsWith("/merge") || path.endsWith("/git/refs/heads/main"))
    return "landing (PR merges, fast-forwards)";
  if (/\/(merges|git\/commits|git\/refs)/.test(path)) return "test branches (refs, merges, commits)";
  return `other: ${method} ${path}`;
}

type Measured = { calls: Map<string, number>; purposes: Map<string, number>; merged: number };

/** Every call the service made to GitHub while the PRs merged, by kind and by purpose, and how many merged. */
async function measure(mergeMethod: "squash" | "merge_commit"): Promise<Measured> {
  const calls = new Map<string, number>();
  const purposes = new Map<string, number>();
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const s = await startScenario({
    whileAppWaits: async (request) => {
      const kind = callKind(request.method, request.url);
      count(calls, kind);
      if (isWrite(kind)) count(purposes, writePurpose(request.method, request.url));
    },
  });
  try {
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      batch: true,
      batchingMinSize: batchSize,
      mergeMethod,
    });
    await s.submitPullRequests(Array.from({ length: prs }, (_, index) => index + 1));
    await s.settle();
    // CI passes each run in flight, oldest first, until every PR is merged.
    for (let round = 0; round < 4 * prs; round++) {
      const open = s.repo.pullRequests().filter((pr) => !pr.merged);
      if (open.length === 0) break;
      const runIds = new Set<string>();
      for (const pr of open) {
        const { body } = await s.api("getSubmittedPullRequest", {
          repo,
          targetBranch: "main",
          pr: { number: pr.number },
        });
        if (typeof body.testRunId === "string") runIds.add(body.testRunId);
      }
      const runs = [];
      for (const testRunId of runIds) {
        const { body } = await s.api("getMergeQueueTestingDetails", {
          repo,
          targetBranch: "main",
          testRunId,
        });
        if (body.status === "in_progress" && typeof body.testBranchSha === "string") runs.push(body);
      }
      const oldest = runs.sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))[0];
      if (oldest === undefined) {
        // Nothing in flight: let a batch's wait end, then run the scheduler.
        s.clock.now += 60 * 60_000;
        await s.poll();
        continue;
      }
      s.repo.reportStatus(oldest.testBranchSha, "ci", "success", { targetUrl: "https://ci.example/build" });
      await s.settle();
    }
    const merged = s.repo.pullRequests().filter((pr) => pr.merged).length;
    if (merged !== prs) throw new Error(`only ${merged} of ${prs} PRs merged`);
    return { calls, purposes, merged };
  } finally {
    await s.close();
  }
}

function report(mergeMethod: string, { calls, purposes, merged }: Measured): void {
  const total = (filter: (kind: string) => boolean) =>
    [...calls].filter(([kind]) => filter(kind)).reduce((sum, [, n]) => sum + n, 0);
  const perPr = (n: number) => (n / merged).toFixed(1);
  const writes = total(isWrite);
  console.log(
    `\nSwitchyard GitHub API budget: ${prs} good PRs, batches of ${batchSize}, CI passing every tested commit, mergeMethod ${mergeMethod}`,
  );
  console.log(
    `${perPr(total(() => true))} calls and ${perPr(writes)} writes per merged PR (${total(() => true)} calls, ${writes} writes, ${merged} PRs merged)`,
  );
  console.log(
    `at 80 writes a minute and 500 an hour (GitHub's secondary limits), writes alone allow ${Math.floor(500 / (writes / merged))} merged PRs an hour`,
  );
  for (const [purpose, n] of [...purposes].sort((a, b) => b[1] - a[1])) {
    console.log(`writes ${perPr(n).padStart(4)} per PR  ${purpose} (${n})`);
  }
  for (const [kind, n] of [...calls].sort((a, b) => b[1] - a[1])) {
    console.log(`${isWrite(kind) ? "write" : "read "} ${perPr(n).padStart(5)} per PR  ${kind} (${n})`);
  }
}

// squash, the default, first: each PR lands through its own pull request merge. merge_commit lands a passed batch
// with one fast-forward of the target to its tested commit.
for (const mergeMethod of ["squash", "merge_commit"] as const)
  report(mergeMethod, await measure(mergeMethod));
