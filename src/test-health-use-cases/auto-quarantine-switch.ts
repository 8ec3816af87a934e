// Turning a repository's auto-quarantine on or off (docs/test-health.md#quarantine): its flaky tests with the `auto` setting are
// quarantined or released at once, not at their next upload.
import type { TestHealthStorage } from "../ports/test-health-persistence.ts";
import { withQuarantine } from "../test-health/index.ts";

export interface AutoQuarantineChange {
  autoQuarantine: boolean;
  /** Tests quarantined, or released, by the change. */
  quarantined: number;
  released: number;
}

export async function setAutoQuarantine(
  store: TestHealthStorage,
  repositoryId: string,
  autoQuarantine: boolean,
  now: number,
): Promise<AutoQuarantineChange> {
  return store.inTestHealthTransaction(repositoryId, async (trx) => {
    await trx.saveTestHealthSettings(repositoryId, { autoQuarantine }, now);
    const changed = [];
    for (const testCase of await trx.flakyTestsOnAutoQuarantine(repositoryId)) {
      const health = withQuarantine(testCase, testCase.quarantineSetting, now, autoQuarantine);
      if (health.quarantined !== testCase.quarantined) changed.push({ ...testCase, ...health });
    }
    await trx.saveTestCaseHealth(changed);
    const quarantined = changed.filter((testCase) => testCase.quarantined).length;
    return { autoQuarantine, quarantined, released: changed.length - quarantined };
  });
}
