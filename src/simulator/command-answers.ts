// How the simulated GitHub and CI answer the queue core's commands. Kept in one place: when the core's
// commands change shape, this is the only file that has to follow.
import type { QueueCommand, QueueEvent } from "../queue/index.ts";
import type { CiRun, SimulatedCi } from "./ci.ts";
import type { SimulatedRepository } from "./repository.ts";

/** The required status every simulated run reports. */
export const CI_STATUS = "ci";

export interface SimulatedWorld {
  readonly repo: SimulatedRepository;
  readonly ci: SimulatedCi;
  /** Schedules the report of a CI run at its end. */
  readonly scheduleReport: (run: CiRun) => void;
}

/**
 * Executes one command at `now` and returns the events it produces at once (commands take no simulated
 * time). create_test_branch is read as "start from `baseSha` and merge `prs` on top, in order", so it
 * works whether the base is the run ahead's test branch or the target head with every PR ahead listed.
 * Notifications (commit statuses, comments) and the test branches' draft PRs change nothing here. A simulated
 * PR is a change written before the PRs it may conflict with landed, not a commit on top of the target, and CI
 * runs on test branches only: no PR qualifies for a direct merge, and each is tested.
 */
export function interpret(world: SimulatedWorld, command: QueueCommand, now: number): QueueEvent[] {
  switch (command.type) {
    case "create_test_branch": {
      // Every simulated target requires the one CI status; a queue that names none learns it here first.
      const resolution: QueueEvent[] =
        command.resolveRequiredStatusesOf === null
          ? []
          : [
              {
                type: "required_statuses_resolved",
                runId: command.runId,
                statuses: [CI_STATUS],
                source: "service_config",
              },
            ];
      const built = world.repo.build(command.baseSha, command.prs);
      if ("conflict" in built) {
        return [
          ...resolution,
          { type: "test_branch_conflict", runId: command.runId, prNumber: built.conflict },
        ];
      }
      world.scheduleReport(world.ci.start(command.branch, built.head, now));
      return [...resolution, { type: "test_branch_created", runId: command.runId, sha: built.head.sha }];
    }
    case "delete_test_branch":
      world.ci.cancel(command.branch, now);
      return [];
    case "fast_forward_target":
      return mergeResult(
        command.mergeId,
        command.prNumbers[0] ?? 0,
        world.repo.fastForward(command.sha, command.expectedHeadSha, now),
      );
    case "merge_pull_request":
      return mergeResult(
        command.mergeId,
        command.prNumber,
        world.repo.mergeOne(command.prNumber, command.expectedTargetSha, now),
      );
    case "check_direct_merge":
      return [
        {
          type: "direct_merge_checked",
          prNumber: command.prNumber,
          headSha: command.headSha,
          targetSha: command.targetSha,
          facts: { kind: "read", containsTarget: false, requiredStatuses: [CI_STATUS], reports: [] },
        },
      ];
    case "open_test_pull_request":
    case "close_test_pull_request":
    case "set_commit_status":
    case "upsert_pr_comment":
      return [];
  }
}

function mergeResult(
  mergeId: string,
  prNumber: number,
  result: ReturnType<SimulatedRepository["fastForward"]>,
): QueueEvent[] {
  switch (result.kind) {
    case "merged":
      return [{ type: "merge_succeeded", mergeId, sha: result.sha }];
    case "target_moved":
      return [
        {
          type: "merge_failed",
          mergeId,
          prNumber,
          failure: { kind: "target_moved", headSha: result.headSha },
        },
      ];
    case "rejected":
      return [
        { type: "merge_failed", mergeId, prNumber, failure: { kind: "rejected", message: result.message } },
      ];
  }
}

/** CI's report of a finished run, as a commit status on the tested commit. */
export function ciReport(run: CiRun, id: number): QueueEvent {
  return {
    type: "status_reported",
    sha: run.sha,
    report: { kind: "status", name: CI_STATUS, id, state: run.passes ? "success" : "failure", url: "" },
  };
}
