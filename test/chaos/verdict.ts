// Judges a fault-injection run: the figures it prints, and every broken promise found (an empty list is a
// pass). Each PR's record is checked against what GitHub and CI really did.
import type { ChaosRun } from "./chaos-run.ts";
import type { Stall } from "./progress-monitor.ts";
import type { MemoryAfterGc } from "./replicas.ts";
import { targetBranch, untruth } from "./pr-truth.ts";
import { acknowledged, type SubmittedPullRequest } from "./traffic.ts";

export interface Verdict {
  readonly figures: readonly (readonly [figure: string, value: string])[];
  readonly violations: readonly string[];
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const counted = (values: readonly string[]) => {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
};
const tally = (values: readonly string[]) =>
  [...counted(values)].map(([value, count]) => `${count} ${value}`).join(", ") || "none";

/**
 * The faults that began in the 10 s before a stall or during it, with how long each kept the queue from GitHub or
 * from a replica: a GitHub outage's length, and a kill's downtime when the replica was the only one (on
 * PostgreSQL another replica answers meanwhile).
 */
function faultsNear(run: ChaosRun, from: number, to: number) {
  const near = (at: number) => at >= from - 10_000 && at <= to;
  const onlyReplica = run.replicas.length === 1;
  return [
    ...run.github.outages
      .filter((outage) => near(outage.startedAt))
      .map((outage) => ({
        at: outage.startedAt,
        what: `GitHub ${outage.kind} outage`,
        ms: outage.endsAt - outage.startedAt,
      })),
    ...run.replicas.flatMap((replica) =>
      replica.killedAtTimes.flatMap((at, kill) =>
        near(at)
          ? [
              {
                at,
                what: `${replica.name} killed`,
                ms: onlyReplica ? (replica.downtimes[kill] ?? to - at) : 0,
              },
            ]
          : [],
      ),
    ),
  ].sort((a, b) => a.at - b.at);
}

/** The faults near a stall, to tell which one the queue did not get over. */
function faultsBefore(run: ChaosRun, from: number, to: number): string {
  const list = faultsNear(run, from, to)
    .map((fault) => `${fault.what} at ${seconds(fault.at - run.startedAt)}`)
    .join(", ");
  return list === "" ? "no fault began then" : `before and during it: ${list}`;
}

export function judge(run: ChaosRun): Verdict {
  const { settings, github, ci, courier, monitor, traffic, api, replicas, records } = run;
  const violations: string[] = [];
  const prs = traffic.pullRequests;
  const label = (pr: SubmittedPullRequest) => `${pr.repo}#${pr.number}`;

  // Every PR: merged, failed with a true reason, or still queued as it really is.
  const states: string[] = [];
  const failures: string[] = [];
  const neverReached: SubmittedPullRequest[] = [];
  let lost = 0;
  let untrue = 0;
  for (const pr of prs) {
    const record = records.get(pr);
    const taken = acknowledged(pr, courier.acknowledged);
    if (!record) {
      if (!taken) neverReached.push(pr);
      else {
        lost += 1;
        const how = pr.apiAcknowledged
          ? "submitPullRequest answered 200"
          : "its /merge delivery was answered 2xx";
        violations.push(`${label(pr)}: command lost (${how}; the service has no record of it)`);
      }
      continue;
    }
    states.push(record.state);
    if (record.state === "failed") failures.push(record.stateReason);
    const why = untruth(run.github.fake, ci, pr, record);
    if (why) {
      untrue += 1;
      violations.push(`${label(pr)}: ${why}`);
    }
  }

  // No target state that CI did not pass on a test branch.
  const untested = monitor.targetUpdates.filter(
    (update) => !monitor.wasOnTestBranch(update.repo, update.sha) || !ci.passedOn(update.repo, update.sha),
  );
  for (const update of untested)
    violations.push(`${update.repo}: ${targetBranch} moved to untested ${update.sha}`);

  // No PR merged twice: one merge commit per PR in each target's history.
  let mergedTwice = 0;
  for (const name of settings.repositories) {
    const merges = new Map<string, number>();
    for (const message of github.fake.repository(name).log(targetBranch)) {
      const number = /^Merge #(\d+):/.exec(message)?.[1];
      if (number) merges.set(number, (merges.get(number) ?? 0) + 1);
    }
    for (const [number, count] of merges) {
      if (count > 1) {
        mergedTwice += 1;
        violations.push(`${name}#${number}: merged ${count} times`);
      }
    }
  }

  // The queue never stood still longer than what it waits for anyway (the poll interval, a scheduler tick, CI's
  // slowest answer) plus what the faults near the stall took: each GitHub outage that began then, and each time
  // the service was down altogether (on PostgreSQL the measured replica is never killed). Faults come every 12 s,
  // so a stall may span two or three of them; a queue stuck for good outlasts them all.
  const longestOutage = Math.max(0, ...github.outages.map((outage) => outage.endsAt - outage.startedAt));
  const longestDowntime = replicas.length === 1 ? Math.max(0, ...replicas.flatMap((r) => r.downtimes)) : 0;
  const stallLimit = (stall: Stall) =>
    settings.pollIntervalSeconds * 1000 +
    settings.tickMs +
    settings.ci.maxDelayMs +
    settings.limits.stallMarginMs +
    faultsNear(run, stall.endedAt - stall.ms, stall.endedAt).reduce((sum, fault) => sum + fault.ms, 0);
  const stalls = monitor.stalls();
  const longestStall = stalls.reduce((a, b) => (b.ms > a.ms ? b : a));
  for (const stall of stalls.filter((s) => s.ms > stallLimit(s))) {
    const from = stall.endedAt - stall.ms;
    violations.push(
      `${stall.repo}: the queue stood still ${seconds(stall.ms)} from ${seconds(from - run.startedAt)} on (limit ${seconds(stallLimit(stall))}); ${faultsBefore(run, from, stall.endedAt)}`,
    );
  }

  // Nothing kept per PR, run or delivery: the data the JavaScript holds after a full garbage collection is judged,
  // not RSS, which also counts the heap V8 grew under load and has not given back yet (and so depends on how busy
  // the machine was more than on the service). Compiled code is left out: how much the run adds depends on which
  // paths the measured replica happened to take before the run.
  const data = (memory: MemoryAfterGc) => memory.live - memory.code;
  const dataLimit = data(run.before) + settings.limits.liveDataGrowthBytes;
  if (data(run.after) > dataLimit) {
    violations.push(
      `${run.measured.name}: ${mib(data(run.after))} of data live after a full garbage collection after the run (${mib(data(run.before))} before), limit ${mib(dataLimit)}`,
    );
  }

  // GitHub failing is answered 502 with a Problem body, never 500.
  for (const [answer, count] of counted(api.serverErrors))
    violations.push(`the API answered ${answer} ${count} times`);

  const crashes = replicas.reduce((sum, replica) => sum + replica.crashes, 0);
  if (crashes > 0) violations.push(`replicas exited by themselves ${crashes} times`);

  const webhookAnswers = Object.entries(courier.figures.statuses).map(([status, n]) => `${n}×${status}`);
  const apiAnswers = Object.entries(api.statuses).map(([status, n]) => `${n}×${status}`);
  const figures: [string, string][] = [
    ["database", `${run.dialect}, ${replicas.length} replica(s), seed ${run.seed}`],
    [
      "queues",
      `${settings.repositories.length} (${settings.queue.mode}, concurrency ${settings.queue.concurrency})`,
    ],
    [
      "PRs submitted",
      `${prs.length} (${prs.filter((pr) => pr.via === "comment").length} by /merge, ${prs.filter((pr) => pr.via === "api").length} by API; ${prs.filter((pr) => pr.broken).length} broken)`,
    ],
    ["PR outcomes", tally(states)],
    ["failure reasons", tally(failures)],
    ["never reached the service", String(neverReached.length)],
    ["/merge commented again (no reaction)", String(traffic.repeatedComments)],
    ["untrue PR records", String(untrue)],
    ["commands lost", String(lost)],
    ["target updates", String(monitor.targetUpdates.length)],
    ["untested target states", String(untested.length)],
    ["PRs merged twice", String(mergedTwice)],
    [
      "CI runs",
      `${ci.runs.length} (${ci.runs.filter((r) => !r.passed).length} failed, ${ci.runs.filter((r) => r.flaked).length} flaked)`,
    ],
    [
      "webhooks",
      `${courier.figures.emitted} emitted, ${courier.figures.duplicated} twice, ${courier.figures.dropped} never, ${courier.figures.reordered} reordered, ${courier.figures.lostToKilledReplica} lost to a killed replica`,
    ],
    ["webhook answers", webhookAnswers.join(", ")],
    ["API answers", apiAnswers.join(", ")],
    [
      "replica kills (SIGKILL)",
      `${replicas.reduce((sum, r) => sum + r.kills, 0)}; longest with no replica up ${seconds(longestDowntime)}; ${crashes} crashes`,
    ],
    [
      "GitHub outages",
      `${tally(github.outages.map((o) => o.kind))}; longest ${seconds(longestOutage)}; ${github.failedCalls} calls failed`,
    ],
    [
      "longest stall",
      `${seconds(longestStall.ms)} (${longestStall.repo}); its limit ${seconds(stallLimit(longestStall))}`,
    ],
    [
      "RSS before → after",
      `${mib(run.rssBefore)} → ${mib(run.rssAfter)}; after a full GC ${mib(run.before.rss)} → ${mib(run.after.rss)} (${run.measured.name})`,
    ],
    [
      "live after a full GC, before → after",
      `data ${mib(data(run.before))} → ${mib(data(run.after))}, limit ${mib(dataLimit)}; code ${mib(run.before.code)} → ${mib(run.after.code)} (${run.measured.name})`,
    ],
    ["duration", `${seconds(run.durationMs)}${run.drained ? "" : " (drain time ran out)"}`],
  ];
  return { figures, violations };
}

/** The figures as a two-column text table. */
export function formatFigures(verdict: Verdict): string {
  const width = Math.max(...verdict.figures.map(([figure]) => figure.length));
  const lines = verdict.figures.map(([figure, value]) => `| ${figure.padEnd(width)} | ${value}`);
  return lines.join("\n");
}
