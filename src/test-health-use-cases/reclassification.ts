// Reclassifies test cases from their stored runs (docs/test-health.md#classification): for the tests of an upload that need it, and for
// the hourly ageing pass.
import {
  CLASSIFICATION_WINDOW_MS,
  classifyTest,
  reclassifiedHealth,
  sameHealth,
  type TestCase,
} from "../test-health/index.ts";
import type { TestHealthStorage } from "../ports/test-health-persistence.ts";

export interface ClassificationContext {
  stableBranches: ReadonlySet<string>;
  now: number;
  /** The repository's setting (see TestHealthSettings). */
  autoQuarantine: boolean;
}

/**
 * Classifies the given tests from their runs in the window and saves the health of those whose health changed.
 * Returns every one of them as it now stands. Call it in the repository's test-health transaction.
 */
export async function reclassifyTestCases(
  storage: TestHealthStorage,
  testKeys: readonly number[],
  context: ClassificationContext,
): Promise<TestCase[]> {
  if (testKeys.length === 0) return [];
  const [testCases, history] = await Promise.all([
    storage.loadTestCases(testKeys),
    storage.runHistory(testKeys, context.now - CLASSIFICATION_WINDOW_MS),
  ]);
  const now = new Date(context.now);
  const changed: TestCase[] = [];
  const reclassified = testCases.map((testCase) => {
    const classification = classifyTest(history.get(testCase.key) ?? [], {
      stableBranches: context.stableBranches,
      now,
    });
    const health = reclassifiedHealth(testCase, classification, context.now, context.autoQuarantine);
    if (sameHealth(health, testCase)) return testCase;
    const updated = { ...testCase, ...health };
    changed.push(updated);
    return updated;
  });
  await storage.saveTestCaseHealth(changed);
  return reclassified;
}
