import { beforeEach, describe, expect, it } from "vitest";
import { setAutoQuarantine } from "../../src/test-health-use-cases/auto-quarantine-switch.ts";
import { ingestUpload } from "../../src/test-health-use-cases/ingestion.ts";
import { maintainTestHealth } from "../../src/test-health-use-cases/maintenance.ts";
import { parseCodeowners } from "../../src/test-health/index.ts";
import type { Repository } from "../../src/store/repositories.ts";
import { findTestCase, inTestHealthTransaction, saveTestCaseHealth } from "../../src/store/test-cases.ts";
import { testHealthSettings } from "../../src/store/test-health-settings.ts";
import { type TestStore, testDialects } from "../support/database.ts";
import {
  type CaseSpec,
  TEST_HEALTH_START,
  uploadInput,
  useTestHealthStore,
  widgetsTestId,
} from "../support/test-health.ts";

const HOUR = 3600 * 1000;
const silentLog = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;

describe.each(testDialects)("a repository's auto-quarantine on %s", (dialect) => {
  let store: TestStore;
  let repository: Repository;
  let now: number;

  const fixture = useTestHealthStore(dialect);
  beforeEach(() => {
    ({ store, repository } = fixture);
    now = TEST_HEALTH_START;
  });

  /** Uploads the cases on main at commit `commit`. */
  const ingest = (cases: CaseSpec[], commit: string) =>
    ingestUpload(store, uploadInput(repository, now, cases, { commitSha: commit.repeat(40) }));
  const test = async (name: string) => (await findTestCase(store.db, repository.id, widgetsTestId(name)))!;
  /** Makes `name` flaky on main: it fails on one commit and passes on the next. */
  const makeFlaky = async (names: string[]) => {
    await ingest(
      names.map((name) => ({ name, outcome: "failed" })),
      "a",
    );
    now += HOUR;
    return ingest(
      names.map((name) => ({ name })),
      "b",
    );
  };

  it("is on by default: a test that turns flaky is quarantined", async () => {
    expect(await testHealthSettings(store.db, repository.id)).toEqual({ autoQuarantine: true });
    await makeFlaky(["wobbly"]);
    expect(await test("wobbly")).toMatchObject({ status: "flaky", quarantined: true, quarantinedAt: now });
  });

  it("when off, flaky tests stay in the way: an upload's failures of them count as unquarantined", async () => {
    await setAutoQuarantine(store, repository.id, false, now);
    await makeFlaky(["wobbly"]);
    expect(await test("wobbly")).toMatchObject({ status: "flaky", quarantined: false, quarantinedAt: null });
    now += HOUR;
    const outcome = await ingest([{ name: "wobbly", outcome: "failed" }], "c");
    expect(outcome).toMatchObject({ failures: 1, quarantinedFailures: 0, allFailuresQuarantined: false });
  });

  it("turning it off releases the flaky tests it quarantined, and on again quarantines them at once", async () => {
    await makeFlaky(["wobbly", "shaky", "pinned"]);
    const pinned = await test("pinned");
    await inTestHealthTransaction(store, repository.id, (trx) =>
      saveTestCaseHealth(trx, store.dialect, [{ ...pinned, quarantineSetting: "always" }]),
    );
    now += HOUR;
    expect(await setAutoQuarantine(store, repository.id, false, now)).toEqual({
      autoQuarantine: false,
      quarantined: 0,
      released: 2,
    });
    expect(await test("wobbly")).toMatchObject({ quarantined: false });
    expect(await test("pinned")).toMatchObject({ quarantined: true });
    // The hourly pass keeps to the setting.
    await maintainTestHealth({
      store,
      facts: { defaultBranch: async () => "main", codeowners: async () => parseCodeowners("") },
      retentionDays: 90,
      clock: () => now,
      log: silentLog,
    });
    expect(await test("shaky")).toMatchObject({ status: "flaky", quarantined: false });

    now += HOUR;
    expect(await setAutoQuarantine(store, repository.id, true, now)).toEqual({
      autoQuarantine: true,
      quarantined: 2,
      released: 0,
    });
    expect(await test("wobbly")).toMatchObject({ quarantined: true, quarantinedAt: now });
    expect(await setAutoQuarantine(store, repository.id, true, now)).toMatchObject({
      quarantined: 0,
      released: 0,
    });
  });

  it("never quarantines broken tests, whatever the setting", async () => {
    for (const commit of ["a", "b", "c"]) {
      await ingest([{ name: "down", outcome: "failed" }], commit);
      now += HOUR;
    }
    expect(await test("down")).toMatchObject({ status: "broken", quarantined: false });
    await setAutoQuarantine(store, repository.id, false, now);
    expect(await setAutoQuarantine(store, repository.id, true, now)).toMatchObject({ quarantined: 0 });
    expect(await test("down")).toMatchObject({ quarantined: false });
  });
});
