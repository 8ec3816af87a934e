// The queue keeps its promises under faults: a day of queue traffic squeezed into a few minutes against a
// fake GitHub over HTTP, while replicas are killed with SIGKILL, GitHub answers 500, 502 and secondary rate
// limits or hangs, and webhooks come twice, never, or out of order. See "Reliability" in docs/operations.md.
import { describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import { runChaos } from "./chaos-run.ts";
import { chaosSettings } from "./settings.ts";
import { formatFigures, judge } from "./verdict.ts";

// The run itself takes trafficMs plus up to drainMs; starting processes and reading records adds a little.
const timeoutMs = chaosSettings.trafficMs + chaosSettings.drainMs + 90_000;

describe.each(testDialects)("fault injection on %s", (dialect) => {
  it(
    "every PR ends merged, failed for a true reason or truly queued; nothing untested reaches the target",
    async () => {
      const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
      const run = await runChaos(dialect, chaosSettings, seed);
      try {
        const verdict = judge(run);
        console.log(`Fault injection on ${dialect}:\n${formatFigures(verdict)}`);
        if (verdict.violations.length > 0) {
          for (const replica of run.replicas)
            console.log(`--- ${replica.name}, last output:\n${replica.logTail()}`);
        }
        expect(verdict.violations).toEqual([]);
      } finally {
        await run.close();
      }
    },
    timeoutMs,
  );
});
