import type { QueueCommand } from "../../src/queue/index.ts";
import { step } from "../../src/queue/index.ts";
import type { StepFunction } from "../../src/simulator/queue-policy.ts";

/** A wrong queue core: every run is tested on the bare target instead of on top of the PRs ahead of it. */
export const testsOnTheBareTarget: StepFunction = (state, event, now) => {
  const result = step(state, event, now);
  const commands = result.commands.map((command): QueueCommand =>
    command.type === "create_test_branch" ? { ...command, baseSha: state.target.headSha } : command,
  );
  return { ...result, commands };
};
