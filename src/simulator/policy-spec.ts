// Queue settings written as `key=value` pairs: the policies of `--compare "k=4;k=8,d=2,optimistic"`.
import type { QueueSettings } from "../queue/index.ts";

export interface PolicySpec {
  /** As the user wrote it, for the table. */
  readonly label: string;
  readonly settings: Partial<QueueSettings>;
  /**
   * `lanes=n`: the day's PRs fall into n independent target groups, CI uploads each PR's targets, and the queue
   * runs in parallel mode. Absent: no targets, the mode the settings say.
   */
  readonly lanes?: number;
  /**
   * `futures` (or `futures=rerank`): not the queue but the probable-futures design, played by the simulator
   * (probable-futures.ts) with the policy's concurrency, to measure it beside the queue's own policies.
   */
  readonly futures?: { readonly rerank: boolean };
}

/** What one `key=value` of a policy sets. */
export type PolicyPart = Omit<PolicySpec, "label">;

/** A policy the user wrote that cannot be simulated. */
export class PolicySpecError extends Error {}

function integer(value: string | undefined, min: number): number {
  const parsed = value === undefined || !/^\d+$/.test(value) ? Number.NaN : Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < min) {
    throw new PolicySpecError(`needs a whole number of at least ${min}, got ${value ?? "nothing"}`);
  }
  return parsed;
}

function flag(value: string | undefined): boolean {
  if (value === undefined || value === "true") return true;
  if (value === "false") return false;
  throw new PolicySpecError(`is true or false, got ${value}`);
}

type Setter = (value: string | undefined) => Partial<QueueSettings>;

const METHODS = ["merge_commit", "squash", "rebase"] as const;

const concurrency: Setter = (value) => ({ concurrency: integer(value, 1) });
const depth: Setter = (value) => ({ pendingFailureDepth: integer(value, 0) });
const batchWait: Setter = (value) => ({ batchingMaxWaitTimeMinutes: integer(value, 0) });
const bisection: Setter = (value) => ({ bisectionConcurrency: integer(value, 1) });
const skipRedundant: Setter = (value) => ({
  optimizationMode: flag(value) ? "bisection_skip_redundant_tests" : "off",
});
const timeout: Setter = (value) => ({ testingTimeoutMinutes: integer(value, 1) });
const method: Setter = (value) => {
  const known = METHODS.find((one) => one === value);
  if (known === undefined) throw new PolicySpecError(`is one of ${METHODS.join(", ")}, got ${value}`);
  return { mergeMethod: known };
};

/** Every key a policy may set: short names, and the names of the command's flags. */
const SETTERS: Readonly<Record<string, Setter>> = {
  k: concurrency,
  concurrency,
  d: depth,
  "pending-failure-depth": depth,
  optimistic: (value) => ({ canOptimisticallyMerge: flag(value) }),
  batch: (value) =>
    value === undefined || value === "true" || value === "false"
      ? { batch: flag(value) }
      : { batch: true, batchingMinSize: integer(value, 1) },
  wait: batchWait,
  "batch-wait": batchWait,
  bisection,
  "bisection-concurrency": bisection,
  "skip-redundant-tests": skipRedundant,
  proof: (value) => ({ optimizationMode: flag(value) ? "separate_proof" : "off" }),
  auto: (value) => ({ optimizationMode: flag(value) ? "auto" : "off" }),
  confirm: (value) => ({ confirmFailures: flag(value) }),
  "confirm-failures": (value) => ({ confirmFailures: flag(value) }),
  adaptive: (value) => ({ adaptiveBatching: flag(value) }),
  "adaptive-batching": (value) => ({ adaptiveBatching: flag(value) }),
  timeout,
  "testing-timeout": timeout,
  method,
  "merge-method": method,
};

/** Not a queue setting: it shapes the simulated PRs too (see `PolicySpec.lanes`). */
const LANES_KEY = "lanes";
/** Not a queue setting: another design, played instead of the queue (see `PolicySpec.futures`). */
const FUTURES_KEY = "futures";

export const POLICY_KEYS = [...Object.keys(SETTERS), LANES_KEY, FUTURES_KEY];

function futures(value: string | undefined): PolicyPart {
  if (value !== undefined && value !== "rerank") throw new PolicySpecError(`is bare or rerank, got ${value}`);
  return { settings: {}, futures: { rerank: value === "rerank" } };
}

/** What one `key` (=`value`) stands for; `value` undefined for a bare key. */
export function policyPartOf(key: string, value: string | undefined): PolicyPart {
  if (key === LANES_KEY) return { settings: { mode: "parallel" }, lanes: integer(value, 1) };
  if (key === FUTURES_KEY) return futures(value);
  const setter = SETTERS[key];
  if (setter === undefined) throw new PolicySpecError(`is not a setting (known: ${POLICY_KEYS.join(", ")})`);
  return { settings: setter(value) };
}

/** `part` on top of `base`: its settings over the base's, its lanes if it sets them. */
export function withPart(base: PolicyPart, part: PolicyPart): PolicyPart {
  return { ...base, ...part, settings: { ...base.settings, ...part.settings } };
}

/** One policy: comma-separated `key=value` (or bare `key` for true) on top of `base`. */
export function parsePolicy(text: string, base: PolicyPart = { settings: {} }): PolicySpec {
  const label = text.trim();
  if (label === "") throw new PolicySpecError("an empty policy");
  let policy = base;
  const written: string[] = [];
  for (const part of label.split(",")) {
    const [rawKey = "", ...rest] = part.split("=");
    const key = rawKey.trim();
    written.push(key);
    try {
      policy = withPart(policy, policyPartOf(key, rest.length === 0 ? undefined : rest.join("=").trim()));
    } catch (error) {
      if (!(error instanceof PolicySpecError)) throw error;
      throw new PolicySpecError(`in "${label}": ${key} ${error.message}`);
    }
  }
  if (
    written.includes(FUTURES_KEY) &&
    written.some((key) => !["k", "concurrency", FUTURES_KEY].includes(key))
  ) {
    // The other design has no queue settings: they would be shown in its label and do nothing.
    throw new PolicySpecError(`in "${label}": futures takes the concurrency (k) alone`);
  }
  return { ...policy, label };
}

/** Policies separated by semicolons. */
export function parsePolicies(text: string, base: PolicyPart = { settings: {} }): PolicySpec[] {
  return text.split(";").map((policy) => parsePolicy(policy, base));
}
