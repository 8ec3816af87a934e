// The repository the upload commands run in: where it is checked out, and what the checkout tells test health
// about it (default branch and CODEOWNERS: docs/test-health.md#uploading-results-from-ci), so that the service never needs to ask GitHub.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CODEOWNERS_PATHS, MAX_CODEOWNERS_BYTES } from "../test-health/index.ts";

/** The top of the git checkout around `cwd`, else `cwd` itself (no git, or not in a checkout). */
export function checkoutRoot(cwd: string): string {
  const git = spawnSync("git", ["rev-parse", "--show-toplevel"], { cwd, encoding: "utf8" });
  const top = git.status === 0 ? git.stdout.trim() : "";
  return top === "" ? cwd : top;
}

/** The upload request's extensions a checkout fills in. */
export interface CheckoutFacts {
  default_branch?: string;
  codeowners?: string;
}

/**
 * What the checkout at `root` tells: the default branch (the GitHub Actions event's repository, else the clone's
 * origin/HEAD) and the text of the CODEOWNERS file GitHub would use ("" when a git checkout has none). A fact it
 * cannot tell is left out, and the service keeps what it knew.
 */
export async function checkoutFacts(root: string, eventPath: string | undefined): Promise<CheckoutFacts> {
  const facts: CheckoutFacts = {};
  const defaultBranch = (await eventDefaultBranch(eventPath)) ?? originHead(root);
  if (defaultBranch !== undefined) facts.default_branch = defaultBranch;
  const codeowners = await codeownersText(root);
  if (codeowners !== undefined) facts.codeowners = codeowners;
  return facts;
}

async function eventDefaultBranch(eventPath: string | undefined): Promise<string | undefined> {
  if (eventPath === undefined) return undefined;
  try {
    const event = JSON.parse(await readFile(eventPath, "utf8")) as {
      repository?: { default_branch?: unknown };
    };
    const branch = event.repository?.default_branch;
    return typeof branch === "string" && branch !== "" ? branch : undefined;
  } catch {
    // No readable event (a local run pointing at a stale path): the clone may still know.
    return undefined;
  }
}

function originHead(root: string): string | undefined {
  const git = spawnSync("git", ["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"], {
    cwd: root,
    encoding: "utf8",
  });
  const ref = git.status === 0 ? git.stdout.trim() : "";
  return ref.startsWith("origin/") && ref.length > "origin/".length ? ref.slice("origin/".length) : undefined;
}

async function codeownersText(root: string): Promise<string | undefined> {
  // GitHub uses the first of these files that exists (docs.github.com, "About code owners").
  for (const path of CODEOWNERS_PATHS) {
    let bytes: Buffer;
    try {
      bytes = await readFile(join(root, path));
    } catch {
      continue;
    }
    // GitHub does not load a larger file: the repository has no code owners then.
    return bytes.length > MAX_CODEOWNERS_BYTES ? "" : bytes.toString("utf8");
  }
  // Only a checkout can say that the repository has no CODEOWNERS; another directory says nothing.
  return existsSync(join(root, ".git")) ? "" : undefined;
}
