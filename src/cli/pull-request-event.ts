// The pull request a GitHub Actions run is about, from the event payload at GITHUB_EVENT_PATH (pull_request and
// pull_request_target workflows): its number, head commit and target branch. GITHUB_SHA is no help there: it names
// the merge commit GitHub made for the run, not the PR's head.
import { readFile } from "node:fs/promises";

export interface PullRequestFacts {
  number?: number;
  headSha?: string;
  baseRef?: string;
}

export async function pullRequestOfEvent(eventPath: string | undefined): Promise<PullRequestFacts> {
  if (eventPath === undefined) return {};
  let event: { pull_request?: { number?: unknown; head?: { sha?: unknown }; base?: { ref?: unknown } } };
  try {
    event = JSON.parse(await readFile(eventPath, "utf8")) as typeof event;
  } catch {
    // No readable event (a local run pointing at a stale path): the flags and other variables may still tell.
    return {};
  }
  const pr = event.pull_request;
  const facts: PullRequestFacts = {};
  if (typeof pr?.number === "number") facts.number = pr.number;
  if (typeof pr?.head?.sha === "string") facts.headSha = pr.head.sha;
  if (typeof pr?.base?.ref === "string") facts.baseRef = pr.base.ref;
  return facts;
}
