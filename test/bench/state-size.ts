// What a queue's stored state weighs after a busy day (npm run bench:queue): every step loads and saves it whole,
// so its size is a cost per webhook. Finished PRs and runs stay in it for the compaction's retention.
import { performance } from "node:perf_hooks";
import { compact, FINISHED_RETENTION_MS } from "../../src/queue/compaction.ts";
import { type QueueState, step } from "../../src/queue/index.ts";
import { generateDay } from "../../src/simulator/model.ts";
import { parsePolicies } from "../../src/simulator/policy-spec.ts";
import { playQueue } from "../../src/simulator/queue-policy.ts";
import { stressDay } from "../simulator/days.ts";

/** The state's size at the end of the stress day, compacted before every step as the queue runner does. */
export function benchStateSize(): string {
  const policy = parsePolicies("k=8,optimistic,d=2")[0]!;
  let last: QueueState | undefined;
  playQueue(generateDay(stressDay, 1), policy.settings, (state, event, now) => {
    const result = step(compact(state, now), event, now);
    last = result.state;
    return result;
  });
  const state = last!;
  const json = JSON.stringify(state);
  const kib = (json.length / 1024).toFixed(0);
  const started = performance.now();
  for (let i = 0; i < 100; i++) JSON.stringify(JSON.parse(json));
  const parseAndSaveMs = ((performance.now() - started) / 100).toFixed(2);
  const hours = FINISHED_RETENTION_MS / 3_600_000;
  return `queue state after the stress day (24 h at 30 PRs/h), finished PRs and runs kept ${hours} h: ${kib} KiB (${Object.keys(state.prs).length} PRs, ${Object.keys(state.runs).length} runs), parsed and serialised in ${parseAndSaveMs} ms`;
}
