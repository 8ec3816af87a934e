// Classification is incremental (docs/test-health.md#classification): an upload reclassifies only the tests it touched, settled tests are
// left alone, new tests are inserted without a look-up while an upload keeps finding new ones, and keys come from a
// cache that a restart empties. Whatever the sequence, right after an hourly pass every test's stored status must
// be what classifying all its runs from scratch gives, and its quarantine must follow from that status; right after
// an upload, so must the status of every test in it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { setAutoQuarantine } from "../../src/test-health-use-cases/auto-quarantine-switch.ts";
import { classifyTest, isQuarantined, parseCodeowners, type TestRun } from "../../src/test-health/index.ts";
import { ingestUpload } from "../../src/test-health-use-cases/ingestion.ts";
import { maintainTestHealth } from "../../src/test-health-use-cases/maintenance.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import { findTestCase } from "../../src/store/test-cases.ts";
import { testCaseKeyCache } from "../../src/store/test-case-key-cache.ts";
import { createTestStore, testDialects } from "../support/database.ts";
import {
  type CaseSpec,
  TEST_HEALTH_START,
  uploadInput,
  widgets,
  widgetsTestId,
} from "../support/test-health.ts";

const HOUR = 3600 * 1000;
const TESTS = 6;
const silentLog = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;

type Action =
  | {
      kind: "upload";
      hoursLater: number;
      commit: number;
      branch: string;
      cases: { test: number; outcome: NonNullable<CaseSpec["outcome"]> }[];
    }
  | { kind: "hourly"; hoursLater: number }
  | { kind: "restart" }
  | { kind: "autoQuarantine"; enabled: boolean };

const actionArbitrary: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("upload" as const),
      hoursLater: fc.integer({ min: 0, max: 40 }),
      commit: fc.integer({ min: 0, max: 3 }),
      branch: fc.constantFrom("main", "feature/x"),
      // A test may appear more than once: a re-run within the upload.
      cases: fc.array(
        fc.record({
          test: fc.integer({ min: 0, max: TESTS - 1 }),
          outcome: fc.constantFrom("passed", "passed", "failed", "error", "skipped"),
        }),
        { minLength: 1, maxLength: 9 },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("hourly" as const),
      hoursLater: fc.integer({ min: 1, max: 60 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("restart" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("autoQuarantine" as const), enabled: fc.boolean() }),
  },
);

describe.each(testDialects)("incremental classification on %s", (dialect) => {
  it("stores what classifying every run from scratch gives: for an upload's tests at once, for all after each hourly pass", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(actionArbitrary, { minLength: 1, maxLength: 12 }), async (actions) => {
        const store = await createTestStore(dialect);
        try {
          let now = TEST_HEALTH_START;
          const repository = await rememberRepository(store.db, { ...widgets, installationId: 7 }, now);
          const runs = new Map<string, TestRun[]>();
          let autoQuarantine = true;
          const expectClassifiedFromScratch = async (names: Iterable<string>) => {
            for (const name of names) {
              const testRuns = runs.get(name) ?? [];
              const expected = classifyTest(testRuns, {
                stableBranches: new Set(["main"]),
                now: new Date(now),
              });
              const stored = await findTestCase(store.db, repository.id, widgetsTestId(name));
              expect({ name, status: stored?.status, reason: stored?.statusReason }).toEqual({
                name,
                status: expected.value,
                reason: expected.reason,
              });
              expect(stored?.quarantined).toBe(
                isQuarantined({ setting: "auto", autoQuarantine, status: expected.value }),
              );
            }
          };
          const hourlyPass = () =>
            maintainTestHealth({
              store,
              facts: { defaultBranch: async () => "main", codeowners: async () => parseCodeowners("") },
              retentionDays: 90,
              clock: () => now,
              log: silentLog,
            });

          for (const action of actions) {
            if (action.kind === "upload") {
              now += action.hoursLater * HOUR;
              const commitSha = String(action.commit).repeat(40);
              const cases = action.cases.map(({ test, outcome }) => ({ name: `t${test}`, outcome }));
              // Batches of two test cases: every upload crosses batches, as large ones do.
              await ingestUpload(
                store,
                uploadInput(repository, now, cases, { commitSha, branch: action.branch }),
                { batchSize: 2 },
              );
              for (const { name, outcome } of cases) {
                const run = {
                  outcome: outcome === "error" ? ("failed" as const) : outcome,
                  commitSha,
                  branch: action.branch,
                  timestamp: new Date(now),
                };
                runs.set(name, [...(runs.get(name) ?? []), run]);
              }
              await expectClassifiedFromScratch(new Set(cases.map((testCase) => testCase.name)));
            } else if (action.kind === "hourly") {
              now += action.hoursLater * HOUR;
            } else if (action.kind === "restart") {
              testCaseKeyCache(store.db).forget();
            } else {
              autoQuarantine = action.enabled;
              await setAutoQuarantine(store, repository.id, autoQuarantine, now);
            }

            await hourlyPass();
            await expectClassifiedFromScratch(runs.keys());
          }
          const stored = await store.db
            .selectFrom("test_results")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow();
          expect(Number(stored.n)).toBe(
            [...runs.values()].reduce((total, testRuns) => total + testRuns.length, 0),
          );
        } finally {
          await store.destroy();
        }
      }),
      { numRuns: dialect === "sqlite" ? 60 : 15 },
    );
  }, 120_000);
});
