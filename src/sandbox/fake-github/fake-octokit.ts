// The Octokit class the app gets in scenario tests: Probot's, talking to the fake, without retries or
// throttling (they would only slow a failing test down).
import { ProbotOctokit } from "probot";
import type { FakeGitHub } from "./fake-github.ts";

export function fakeOctokitClass(fake: FakeGitHub): typeof ProbotOctokit {
  return ProbotOctokit.defaults({
    request: { fetch: fake.fetch },
    retry: { enabled: false },
    throttle: { enabled: false },
  });
}

/** An Octokit authenticated with a plain token, for tests that call the fake directly. */
export function fakeOctokit(fake: FakeGitHub): ProbotOctokit {
  return new (fakeOctokitClass(fake))({ auth: { token: "test-token" } });
}
