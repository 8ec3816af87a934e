// Whether the service's record of a PR is what really happened on GitHub and in CI.
import type { FakeGitHub } from "../../src/sandbox/fake-github/index.ts";
import type { CiSimulator } from "../../src/sandbox/ci-simulator.ts";
import type { SubmittedPullRequest } from "./traffic.ts";

/** The branch every queue of the test merges into. */
export const targetBranch = "main";

/** Why the service's record of `pr` is not what happened, or null when it is. */
export function untruth(
  fake: FakeGitHub,
  ci: CiSimulator,
  pr: SubmittedPullRequest,
  record: any,
): string | null {
  const repo = fake.repository(pr.repo);
  const onGitHub = repo.pullRequest(pr.number);
  const inTarget = repo.isAncestor(onGitHub.headSha, targetBranch);
  switch (record.state) {
    case "merged":
      if (pr.broken) return "merged, but its change breaks the build";
      return onGitHub.merged && inTarget ? null : "the queue says merged, GitHub says not";
    case "failed": {
      if (onGitHub.merged || inTarget) return "the queue says failed, GitHub says merged";
      const failedRun = ci.runs.some(
        (ciRun) => ciRun.repo === pr.repo && !ciRun.passed && repo.isAncestor(onGitHub.headSha, ciRun.sha),
      );
      if (record.stateReason === "tests_failed" && failedRun) return null;
      return `failed (${record.stateReason}: ${record.stateDetail}) though ${failedRun ? "" : "no CI run of it failed and "}nothing else went wrong with it`;
    }
    case "cancelled":
      return `cancelled (${record.stateReason}: ${record.stateDetail}) though nobody cancelled it`;
    default:
      return onGitHub.state === "open" && !inTarget
        ? null
        : `still ${record.state}, but GitHub has it ${onGitHub.merged ? "merged" : "closed"}`;
  }
}
