// docs/queue.md#what-people-see in the PR comment: in parallel mode a queued PR tells which PRs ahead it waits for and why, or
// that it has a lane of its own.
import { describe, expect, it } from "vitest";
import type { QueueSettings } from "../../src/queue/index.ts";
import { aScenario } from "../support/queue-factories.ts";

type Targets = readonly string[] | "ALL";

/**
 * Submits PRs 1, 2… and sets their targets in that order (CI uploads them after submission), and answers the
 * lane line of the latest comment of the last PR.
 */
function laneOfLast(targets: readonly Targets[], settings: Partial<QueueSettings> = {}): string | undefined {
  const queue = aScenario({ mode: "parallel", concurrency: 1, ...settings });
  const comments = new Map<number, string>();
  targets.forEach((impacted, index) => {
    const prNumber = index + 1;
    queue.submit(prNumber);
    queue.on({ type: "impacted_targets_set", prNumber, headSha: `head-${prNumber}`, targets: impacted });
    for (const command of queue.commands) {
      if (command.type === "upsert_pr_comment") comments.set(command.prNumber, command.body);
    }
  });
  const body = comments.get(targets.length) ?? "";
  return body.split("\n").find((line) => line.startsWith("**Lane:**"));
}

interface LaneCase {
  case: string;
  targets: Targets[];
  settings?: Partial<QueueSettings>;
  lane?: string;
}

describe("lanes in the PR comment", () => {
  it.each<LaneCase>([
    {
      case: "a PR that shares no target with the PRs ahead",
      targets: [["//app/api"], ["//docs"]],
      lane: "**Lane:** its own. No PR ahead shares its impacted targets, so it waits for none of them.",
    },
    {
      case: "a PR that impacts nothing",
      targets: [["//app/api"], []],
      lane: "**Lane:** its own. No PR ahead shares its impacted targets, so it waits for none of them.",
    },
    {
      case: "a waiting PR sharing targets, named up to two",
      targets: [
        ["//a", "//b", "//c"],
        ["//c", "//b", "//a"],
      ],
      lane: "**Lane:** waits for #1 (shares `//c`, `//b` and 1 more).",
    },
    {
      case: "a PR behind one that impacts ALL",
      targets: [["//lib"], "ALL", ["//app/api", "//web"]],
      settings: { concurrency: 3 },
      lane: "**Lane:** waits for #1 (through #2), #2 (impacts ALL).",
    },
    {
      case: "a testing PR, on top of its run's dependencies",
      targets: [["//app/api", "//lib"], "ALL", ["//app/api", "//web"]],
      settings: { concurrency: 3 },
      lane: "**Lane:** waits for #1 (shares `//app/api`), #2 (impacts ALL).",
    },
    {
      case: "a PR in the lane of another only through a PR between them",
      targets: [["//a"], ["//a", "//b"], ["//b"]],
      settings: { concurrency: 3 },
      lane: "**Lane:** waits for #1 (through #2), #2 (shares `//b`).",
    },
    {
      case: "a PR that impacts ALL",
      targets: [["//a"], ["//b"], "ALL"],
      settings: { concurrency: 2 },
      lane: "**Lane:** waits for #1, #2: it impacts ALL targets.",
    },
    {
      case: "a PR behind many, naming five",
      targets: [...Array.from({ length: 7 }, () => "ALL" as const), ["//x"]],
      settings: { concurrency: 8 },
      lane:
        "**Lane:** waits for #1 (impacts ALL), #2 (impacts ALL), #3 (impacts ALL), #4 (impacts ALL), " +
        "#5 (impacts ALL) and 2 more.",
    },
    { case: "a single-mode queue", targets: [["//a"], ["//a"]], settings: { mode: "single" } },
  ])("shows $case", ({ targets, settings, lane }) => {
    expect(laneOfLast(targets, settings)).toBe(lane);
  });

  it("says nothing of lanes while the PR waits for its targets, nor once it left the queue", () => {
    const queue = aScenario({ mode: "parallel" }).submit(1);
    const waiting = queue.commandsOf("upsert_pr_comment")[0]?.body;
    queue.on({ type: "cancel_requested", prNumber: 1, reason: "cancelled_by_user" });
    const cancelled = queue.commandsOf("upsert_pr_comment")[0]?.body;

    expect(waiting).toContain("no impacted targets were set");
    expect([waiting, cancelled].map((body) => body?.includes("Lane"))).toEqual([false, false]);
  });
});
