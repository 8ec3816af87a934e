// A real browser for tests of the pages: Debian's chromium driven by playwright-core (which never downloads a
// browser of its own). Without chromium the tests that need it are skipped with a message, except in CI
// (CI=true), where .ci/run installs it and a missing browser must fail the run.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Why browser tests cannot run here, or null when they can (and must, in CI). */
export function browserUnavailable(env: NodeJS.ProcessEnv = process.env): string | null {
  if (existsSync(CHROMIUM_PATH) || Boolean(env.CI)) return null;
  return `${CHROMIUM_PATH} is missing: install it (apt-get install -y chromium) to run the browser tests`;
}

// Headless, and quiet: no GPU, no QUIC, no first-run, update, sync or background traffic that a test would wait on.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A browser with a fresh profile, launched once for the file's tests and removed after them. */
export function useBrowser(): { context: BrowserContext } {
  const fixture = {} as { context: BrowserContext };
  let profile: string | undefined;
  beforeAll(async () => {
    profile = await mkdtemp(join(tmpdir(), "switchyard-chromium-"));
    fixture.context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
    });
  }, 60_000);
  afterAll(async () => {
    await fixture.context?.close();
    if (profile !== undefined) await rm(profile, { recursive: true, force: true });
  });
  return fixture;
}
