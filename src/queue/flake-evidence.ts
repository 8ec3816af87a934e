// Flake evidence from test health (docs/flake-evidence.md): CI uploads the JUnit reports of a test branch commit,
// and test health says which of the tests that failed are known to be flaky or quarantined. A run whose required
// status failed with nothing but such tests failing proves nothing against its PRs: it is tested again instead
// of failing, bisecting or confirming them. Any other failing test, or none known, is a real failure.
import { releaseStarted } from "./abandonment.ts";
import type { QueueDraft } from "./draft.ts";
import { failRunTests } from "./failures.ts";
import { endRun, inProgressRuns, requireRun } from "./run-lifecycle.ts";
import type { FailingTest, PullRequestEntry, QueueState, TestHealth, TestRun } from "./state.ts";
import { requirePr, returnToWaiting } from "./transitions.ts";

const MINUTE_MS = 60_000;

/**
 * How long a run whose required status failed waits for an upload that may explain the failure, in a queue that
 * gets uploads: CI usually uploads before its status turns red, but a slow upload or a separate upload job comes
 * after the status webhook.
 */
export const EVIDENCE_WAIT_MS = 5 * MINUTE_MS;

/** A queue that got an upload for one of its test branches this recently expects one for every run. */
export const UPLOADS_EXPECTED_FOR_MS = 7 * 24 * 60 * MINUTE_MS;

/** How many times a PR is tested again after flaky failures, per submission; after that a failure counts. */
export const MAX_FLAKY_RETESTS = 2;

const KNOWN_FLAKY: ReadonlySet<TestHealth> = new Set(["flaky", "quarantined"]);

/** The failing tests of a run that test health knows as flaky or quarantined, in the order they came. */
export function knownFlakyFailures(run: TestRun): string[] {
  return (run.failingTests ?? []).filter((test) => KNOWN_FLAKY.has(test.health)).map((test) => test.name);
}

/** What the evidence so far says of a run's failure. */
type Explanation = "flaky" | "real" | "unknown";

function explanationOf(run: TestRun): Explanation {
  const failing = run.failingTests ?? [];
  if (failing.some((test) => !KNOWN_FLAKY.has(test.health))) return "real";
  // An upload without failures (another shard's, or one before the tests ran) explains nothing yet.
  return failing.length > 0 ? "flaky" : "unknown";
}

function expectsUploads(state: QueueState, now: number): boolean {
  return state.lastEvidenceAt !== undefined && now - state.lastEvidenceAt < UPLOADS_EXPECTED_FOR_MS;
}

/** Uploads of one commit add up (CI shards upload apart); a test reported again is judged as reported last. */
function combined(recorded: readonly FailingTest[], incoming: readonly FailingTest[]): FailingTest[] {
  const byName = new Map(recorded.map((test) => [test.name, test]));
  for (const test of incoming) byName.set(test.name, test);
  return [...byName.values()];
}

function flakyRetests(pr: PullRequestEntry): number {
  return pr.history.filter((step) => step.reason === "flaky_failure").length;
}

function quoted(names: readonly string[]): string {
  return names.map((name) => `\`${name}\``).join(", ");
}

/**
 * Tests a flaked run's PRs again. A run of the main line gives its place back: its PRs return to waiting at the
 * head of the line (everything built on them with them) and are tested again on the same PRs ahead, on new
 * commits (a test branch merges a PR dated when its attempt started, see TestBranchMerge), since CI's results are
 * kept per commit. A run of the bisection pool did not show its PRs broken either:
 * they go back to the queue, as when such a run passes, and are tested there before anything merges.
 */
function retest(draft: QueueDraft, run: TestRun, statusDetail: string): void {
  const flaky = knownFlakyFailures(run);
  const detail =
    `Run ${run.id} failed only on known-flaky tests (${quoted(flaky)}): ${statusDetail} ` +
    "It is tested again; nobody is bisected or failed for it.";
  endRun(draft, run.id, "failed", "flaky_failure", detail);
  const prNumbers = run.prs.map((pr) => pr.number);
  const leaving = new Set(prNumbers);
  for (const prNumber of [...prNumbers].reverse()) {
    const pr = requirePr(draft, prNumber);
    if (pr.testRunId !== run.id || pr.state !== "testing") continue;
    if (run.purpose === undefined) {
      releaseStarted(draft, prNumber, { to: "waiting", reason: "flaky_failure", detail }, leaving);
    } else returnToWaiting(draft, prNumber, "flaky_failure", detail);
  }
}

/**
 * The failure path's hook, for a run in flight whose required status just failed (`statusDetail` says which):
 * true when flake evidence dealt with the failure (the run is tested again, waits for an upload, or failed as
 * usual once its PRs used up their retests after flaky failures, saying so), false when it counts now as any
 * failure does and the caller fails the run. It waits only in a queue that gets uploads, for `EVIDENCE_WAIT_MS`
 * from the failure at most.
 */
export function deferFailureToEvidence(draft: QueueDraft, run: TestRun, statusDetail: string): boolean {
  const explanation = explanationOf(run);
  if (explanation === "real") return false;
  if (explanation === "flaky") {
    const exhausted = run.prs.some((pr) => flakyRetests(requirePr(draft, pr.number)) >= MAX_FLAKY_RETESTS);
    if (!exhausted) retest(draft, run, statusDetail);
    else {
      const often = `It failed only on known-flaky tests (${quoted(knownFlakyFailures(run))}), but was tested again for them ${MAX_FLAKY_RETESTS} times already: the failure counts.`;
      failRunTests(draft, run.id, "tests_failed", `${statusDetail} ${often}`);
    }
    return true;
  }
  const since = run.awaitingEvidence?.since ?? draft.now;
  if (!expectsUploads(draft.state, draft.now) || draft.now >= since + EVIDENCE_WAIT_MS) return false;
  if (run.awaitingEvidence === undefined) {
    draft.putRun({ ...run, awaitingEvidence: { since, detail: statusDetail } });
  }
  return true;
}

/** When a failed run's wait for an upload ends (for `nextDeadline`); null when it is not waiting. */
export function evidenceDeadline(run: TestRun): number | null {
  return run.awaitingEvidence === undefined ? null : run.awaitingEvidence.since + EVIDENCE_WAIT_MS;
}

/** Whether a run in flight already failed and only waits for an upload: its testing timeout no longer applies. */
export function isAwaitingEvidence(run: TestRun): boolean {
  return run.awaitingEvidence !== undefined;
}

/** The end of a wait for an upload that did not come, or explained nothing: the failure counts. */
export function endExpiredEvidenceWaits(draft: QueueDraft): void {
  for (const { id } of inProgressRuns(draft.state)) {
    // Failing one run may have ended another (built on it, or tested with its PRs).
    const run = requireRun(draft, id);
    const deadline = evidenceDeadline(run);
    if (run.status !== "in_progress" || deadline === null || draft.now < deadline) continue;
    const waited = `${run.awaitingEvidence?.detail ?? ""} No test results explained it within ${EVIDENCE_WAIT_MS / MINUTE_MS} minutes.`;
    failRunTests(draft, run.id, "tests_failed", waited);
  }
}

/**
 * A JUnit upload on `sha`: its failing tests join what the runs testing that commit know. A run waiting for it is
 * decided at once: tested again when every failing test is known-flaky, failed when one is not. A run already
 * decided keeps its decision (its failure may have cleared its PRs' way, or failed them, already); the tests are
 * recorded on it for its testing details.
 */
export function onRunFailuresExplained(
  draft: QueueDraft,
  sha: string,
  failingTests: readonly FailingTest[],
): void {
  const runs = Object.values(draft.state.runs).filter((run) => run.testBranchSha === sha);
  if (runs.length === 0) return;
  // A succeeded run's commit may be the target's head now (fast-forwarded), which CI on the target uploads for
  // too: only an upload for another run shows that uploads come for the test branches.
  if (runs.some((run) => run.status !== "succeeded")) draft.update({ lastEvidenceAt: draft.now });
  for (const { id } of runs) {
    // Deciding one run may have changed another (retired its branch): each is read as it stands.
    const recorded = requireRun(draft, id);
    draft.putRun({ ...recorded, failingTests: combined(recorded.failingTests ?? [], failingTests) });
    const current = requireRun(draft, id);
    if (current.status !== "in_progress" || current.awaitingEvidence === undefined) continue;
    const { detail } = current.awaitingEvidence;
    if (deferFailureToEvidence(draft, current, detail)) continue;
    failRunTests(draft, id, "tests_failed", detail);
  }
}
