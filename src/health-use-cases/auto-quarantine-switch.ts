// Turning a repository's auto-quarantine on or off (contract 7.4): its flaky tests with the `auto` setting are
// quarantined or released at once, not at their next upload.
import type { Store } from "../store/database.ts";
import {
  flakyTestsOnAutoQuarantine,
  inTestHealthTransaction,
  saveTestCaseHealth,
} from "../store/test-cases.ts";
import { saveTestHealthSettings } from "../store/test-health-settings.ts";
import { withQuarantine } from "../health/test-case-health.ts";

export interface AutoQuarantineChange {
  autoQuarantine: boolean;
  /** Tests quarantined, or released, by the change. */
  quarantined: number;
  released: number;
}

export async function setAutoQuarantine(
  store: Store,
  repositoryId: string,
  autoQuarantine: boolean,
  now: number,
): Promise<AutoQuarantineChange> {
  return inTestHealthTransaction(store, repositoryId, async (trx) => {
    await saveTestHealthSettings(trx, repositoryId, { autoQuarantine }, now);
    const changed = [];
    for (const testCase of await flakyTestsOnAutoQuarantine(trx, repositoryId)) {
      const health = withQuarantine(testCase, testCase.quarantineSetting, now, autoQuarantine);
      if (health.quarantined !== testCase.quarantined) changed.push({ ...testCase, ...health });
    }
    await saveTestCaseHealth(trx, store.dialect, changed);
    const quarantined = changed.filter((testCase) => testCase.quarantined).length;
    return { autoQuarantine, quarantined, released: changed.length - quarantined };
  });
}
