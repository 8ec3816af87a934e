// docs/queue.md#direct-merge, directMergeMode always: a ready PR whose head already contains the target head, with nothing
// ahead of it in its lane, and whose required statuses passed on its own head, merges without a test run. The
// target then moves to a state that was tested (the Not Rocket Science rule, docs/queue.md#merging): the PR head holds the
// target head and nothing else the PR's own CI did not see.
import { checkDirectMerge, fastForwardTarget, mergePullRequest } from "./commands.ts";
import type { QueueDraft } from "./draft.ts";
import type { DirectMergeFacts } from "./events.ts";
import { inSameLane } from "./lanes.ts";
import { sidelinedPrs, waitingPrs } from "./ordering.ts";
import { canStartRuns } from "./runs.ts";
import type { DirectMergeCheck, MergeInFlight, PullRequestEntry, QueueState } from "./state.ts";
import type { StatusReport } from "./status-reports.ts";
import { judgeRun, reportKey, supersedes } from "./status-reports.ts";
import { patchPr, requirePr } from "./transitions.ts";

/** The PR's check, when it is about its head on the target head as they are now. */
function currentCheck(state: QueueState, pr: PullRequestEntry): DirectMergeCheck | undefined {
  const check = pr.directMerge;
  return check?.headSha === pr.headSha && check.targetSha === state.target.headSha ? check : undefined;
}

/**
 * A PR checked or merging directly holds back the runs of the main line: a run would test it (or the PRs behind
 * it on top of it) while it may be about to merge on its own. The check is one read of GitHub.
 */
export function directMergeUnderway(state: QueueState): boolean {
  return waitingPrs(state).some((prNumber) => {
    const pr = state.prs[prNumber] as PullRequestEntry;
    const outcome = pr.state === "pending" ? currentCheck(state, pr)?.outcome : undefined;
    return outcome === "checking" || outcome === "merging";
  });
}

/** A PR queued or testing ahead of it, in its lane (every PR ahead is, in single mode). */
function blockerAhead(state: QueueState, pr: PullRequestEntry): PullRequestEntry | undefined {
  const ahead = [...state.line.slice(0, state.line.indexOf(pr.number)), ...sidelinedPrs(state)];
  return ahead
    .map((prNumber) => state.prs[prNumber] as PullRequestEntry)
    .find((other) => other.number !== pr.number && inSameLane(state, other, pr));
}

/** Asks the shell for the facts about the first ready PR that was not checked on the target as it now is. */
export function planDirectMerge(draft: QueueDraft): void {
  const state = draft.state;
  if (state.settings.directMergeMode !== "always" || state.merging !== null || !canStartRuns(draft)) return;
  if (directMergeUnderway(state)) return;
  const candidate = waitingPrs(state)
    .map((prNumber) => requirePr(draft, prNumber))
    .find(
      (pr) =>
        pr.state === "pending" &&
        currentCheck(state, pr) === undefined &&
        blockerAhead(state, pr) === undefined,
    );
  if (candidate === undefined) return;
  const attempt = (candidate.directMerge?.attempt ?? 0) + 1;
  const check = { attempt, headSha: candidate.headSha, targetSha: state.target.headSha, why: "" };
  patchPr(draft, candidate.number, { directMerge: { ...check, outcome: "checking" } });
  draft.emit(checkDirectMerge(state, candidate, attempt));
}

/** Why the queue no longer lets the PR merge directly, whatever GitHub said; null when it still does. */
function whyNotNow(state: QueueState, pr: PullRequestEntry): string | null {
  if (state.settings.directMergeMode !== "always") return "direct merge was turned off meanwhile";
  if (pr.state !== "pending") return "it is no longer ready";
  if (state.merging !== null) return "another merge went in flight meanwhile";
  if (!canStartRuns(state)) return "the queue stopped starting new work meanwhile";
  const blocker = blockerAhead(state, pr);
  return blocker === undefined ? null : `#${blocker.number} is queued ahead of it`;
}

/** The latest report per check, as a run keeps them (see `TestRun.reports`). */
function latestReports(reports: readonly StatusReport[]): Record<string, StatusReport> {
  const latest: Record<string, StatusReport> = {};
  for (const report of reports) {
    const recorded = latest[reportKey(report)];
    if (recorded === undefined || supersedes(report, recorded)) latest[reportKey(report)] = report;
  }
  return latest;
}

/** Why GitHub's facts rule out a direct merge; null when they allow it. */
function whyNotEligible(state: QueueState, facts: DirectMergeFacts): string | null {
  if (facts.kind === "refused") return `GitHub did not answer the check: ${facts.message}`;
  if (!facts.containsTarget) return `its head does not contain the head of ${state.targetBranch}`;
  if (facts.requiredStatuses.length === 0) return "no required statuses are configured";
  const verdict = judgeRun(facts.requiredStatuses, latestReports(facts.reports));
  if (verdict.kind === "failed") return `required status ${verdict.name} failed on its head`;
  if (verdict.kind === "pending")
    return `required statuses ${verdict.waitingFor.join(", ")} did not pass on its head`;
  return null;
}

/** Through the queue's merge machinery (see merging.ts), with the PR's own head as the tested commit. */
function mergeDirectly(draft: QueueDraft, pr: PullRequestEntry): void {
  const state = draft.state;
  const method = state.settings.mergeMethod;
  const merge: MergeInFlight = {
    id: `direct:${pr.submissionId}:${pr.headSha}:${state.target.headSha}`,
    runId: null,
    prNumbers: [pr.number],
    inFlight: [pr.number],
    ...(method === "merge_commit" ? {} : { rewrites: true }),
    note: `Merged directly: its head already contained ${state.targetBranch} and its required statuses passed on it.`,
  };
  draft.update({ merging: merge });
  draft.emit(
    method === "merge_commit"
      ? fastForwardTarget(state, merge, pr.headSha)
      : mergePullRequest(state, merge, pr, method),
  );
}

/** The facts for one check: the PR merges at once if they allow it and nothing changed meanwhile, else it is tested. */
export function onDirectMergeChecked(
  draft: QueueDraft,
  prNumber: number,
  checked: Pick<DirectMergeCheck, "headSha" | "targetSha">,
  facts: DirectMergeFacts,
): void {
  const pr = draft.pr(prNumber);
  const check = pr === undefined ? undefined : currentCheck(draft.state, pr);
  if (pr === undefined || check === undefined || check.outcome !== "checking") return;
  if (check.headSha !== checked.headSha || check.targetSha !== checked.targetSha) return;
  const why = whyNotNow(draft.state, pr) ?? whyNotEligible(draft.state, facts);
  patchPr(draft, prNumber, {
    directMerge: { ...check, outcome: why === null ? "merging" : "not_eligible", why: why ?? "" },
  });
  if (why === null) mergeDirectly(draft, pr);
}
