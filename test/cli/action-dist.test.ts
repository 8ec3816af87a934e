// The committed bundle of the GitHub Action (action/dist/) is what its sources build: the runner runs the committed
// file, so a change to the client commands that is not rebuilt and committed would ship the old behaviour.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

const run = promisify(execFile);
const committed = new URL("../../action/dist/", import.meta.url).pathname;
const fresh = mkdtempSync(join(tmpdir(), "switchyard-action-dist-"));
afterAll(() => rmSync(fresh, { recursive: true, force: true }));

it("action/dist/ is the bundle its sources build (else: npm run build:action, and commit it)", async () => {
  await run(process.execPath, [new URL("../../scripts/build-action.mjs", import.meta.url).pathname, fresh]);
  expect(readdirSync(committed)).toEqual(readdirSync(fresh));
  for (const file of readdirSync(fresh)) {
    const same = readFileSync(join(committed, file)).equals(readFileSync(join(fresh, file)));
    expect(same, `action/dist/${file} is stale: run npm run build:action and commit it`).toBe(true);
  }
}, 60_000);
