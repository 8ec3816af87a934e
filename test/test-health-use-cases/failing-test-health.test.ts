// What an upload tells the merge queue of its failing tests (docs/flake-evidence.md): each with its health once the
// upload is classified, a quarantined one as quarantined whatever its status.
import { beforeEach, describe, expect, it } from "vitest";
import { setAutoQuarantine } from "../../src/test-health-use-cases/auto-quarantine-switch.ts";
import { ingestUpload } from "../../src/test-health-use-cases/ingestion.ts";
import type { Repository } from "../../src/store/repositories.ts";
import { type TestStore, testDialects } from "../support/database.ts";
import { type CaseSpec, TEST_HEALTH_START, uploadInput, useTestHealthStore } from "../support/test-health.ts";

const HOUR = 3600 * 1000;

describe.each(testDialects)("the failing tests of an upload, with their health, on %s", (dialect) => {
  let store: TestStore;
  let repository: Repository;
  let now: number;

  const fixture = useTestHealthStore(dialect);
  beforeEach(() => {
    ({ store, repository } = fixture);
    now = TEST_HEALTH_START;
  });

  const ingest = (cases: CaseSpec[], commit: string, branch = "main") =>
    ingestUpload(store, uploadInput(repository, now, cases, { commitSha: commit.repeat(40), branch }));

  it("names each failing test by class and name, with its health, in report order", async () => {
    await setAutoQuarantine(store, repository.id, false, now);
    // `wobbly` fails then passes on main: flaky. `sturdy` only passes.
    await ingest([{ name: "wobbly", outcome: "failed" }, { name: "sturdy" }], "a");
    now += HOUR;
    await ingest([{ name: "wobbly" }, { name: "sturdy" }], "b");
    now += HOUR;

    const outcome = await ingest(
      [{ name: "sturdy", outcome: "failed" }, { name: "wobbly", outcome: "error" }, { name: "fine" }],
      "c",
      "mq/main/q-1",
    );

    expect(outcome.failingTestHealth).toEqual([
      { name: "pkg.Widget › sturdy", health: "healthy" },
      { name: "pkg.Widget › wobbly", health: "flaky" },
    ]);
  });

  it("calls a quarantined failing test quarantined", async () => {
    // Auto-quarantine is on by default: the flaky test is quarantined.
    await ingest([{ name: "wobbly", outcome: "failed" }], "a");
    now += HOUR;
    await ingest([{ name: "wobbly" }], "b");
    now += HOUR;

    const outcome = await ingest([{ name: "wobbly", outcome: "failed" }], "c", "mq/main/q-1");

    expect(outcome.failingTestHealth).toEqual([{ name: "pkg.Widget › wobbly", health: "quarantined" }]);
  });
});
