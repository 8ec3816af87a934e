// How a test's stored health follows from a new classification or quarantine setting (docs/test-health.md#classification, #quarantine).
import type { TestCaseHealth } from "./test-case.ts";
import {
  type Classification,
  healthyWithoutFailures,
  isQuarantined,
  type QuarantineSetting,
} from "./classification.ts";

/** The health of a test seen for the first time, classified from its first results. */
export function firstHealth(
  classification: Classification,
  now: number,
  autoQuarantine: boolean,
): TestCaseHealth {
  const quarantined = isQuarantined({ setting: "auto", autoQuarantine, status: classification.value });
  return {
    status: classification.value,
    statusReason: classification.reason,
    statusChangedAt: now,
    quarantineSetting: "auto",
    quarantined,
    quarantinedAt: quarantined ? now : null,
    settled: isSettled(classification),
  };
}

/**
 * The health after a new classification: `statusChangedAt` moves only when the status does (docs/test-health.md#classification), and
 * `quarantinedAt` only when the test becomes quarantined (docs/test-health.md#quarantine).
 */
export function reclassifiedHealth(
  health: TestCaseHealth,
  classification: Classification,
  now: number,
  autoQuarantine: boolean,
): TestCaseHealth {
  const statusChanged = classification.value !== health.status;
  return withQuarantine(
    {
      ...health,
      status: classification.value,
      statusReason: classification.reason,
      statusChangedAt: statusChanged ? now : health.statusChangedAt,
      settled: isSettled(classification),
    },
    health.quarantineSetting,
    now,
    autoQuarantine,
  );
}

/**
 * The health after the test's quarantine setting is set (set-quarantine-setting, docs/test-health.md#quarantine), or after the
 * repository's auto-quarantine is turned on or off.
 */
export function withQuarantine(
  health: TestCaseHealth,
  setting: QuarantineSetting,
  now: number,
  autoQuarantine: boolean,
): TestCaseHealth {
  const quarantined = isQuarantined({ setting, autoQuarantine, status: health.status });
  return {
    ...health,
    quarantineSetting: setting,
    quarantined,
    quarantinedAt: quarantined && !health.quarantined ? now : health.quarantinedAt,
  };
}

export function sameHealth(a: TestCaseHealth, b: TestCaseHealth): boolean {
  return (
    a.status === b.status &&
    a.statusReason === b.statusReason &&
    a.statusChangedAt === b.statusChangedAt &&
    a.quarantineSetting === b.quarantineSetting &&
    a.quarantined === b.quarantined &&
    a.quarantinedAt === b.quarantinedAt &&
    a.settled === b.settled
  );
}

// Only the classification of a test without failures in the window stays true whatever time passes.
function isSettled(classification: Classification): boolean {
  return (
    classification.value === healthyWithoutFailures.value &&
    classification.reason === healthyWithoutFailures.reason
  );
}
