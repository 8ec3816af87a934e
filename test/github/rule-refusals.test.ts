// A refusal for a branch rule is told apart from a conflict, a moved head or a permission by GitHub's words.
import { describe, expect, it } from "vitest";
import { ruleRefusalOf } from "../../src/github/rule-refusals.ts";

/** An Octokit RequestError as it reaches the executor. */
const refused = (status: number, message: string) =>
  Object.assign(new Error(message), { status, response: { data: { message } } });

describe("ruleRefusalOf", () => {
  it.each([
    [
      422,
      "Repository rule violations found\n\nCommits must have verified signatures.\n\n",
      "required_signatures",
    ],
    [
      409,
      "Repository rule violations found\n\nCommits must have verified signatures.",
      "required_signatures",
    ],
    [
      405,
      "Repository rule violations found\n\nThis branch must not contain merge commits.",
      "required_linear_history",
    ],
    [
      422,
      "Protected branch update failed for refs/heads/main.\n\nCannot change this locked branch",
      "lock_branch",
    ],
    [422, "Repository rule violations found\n\nCannot update this protected ref.", "update"],
    [405, "Repository rule violations found\n\nChanges must be made through the merge queue.", "merge_queue"],
    [422, "Repository rule violations found\n\nChanges must be made through a pull request.", "pull_request"],
    [405, 'Required status check "ci" is expected.', "required_status_checks"],
    [422, "Repository rule violations found\n\nSome rule GitHub adds next year.", null],
  ])("%i %j is the rule %s", (status, message, rule) => {
    expect(ruleRefusalOf(refused(status, message))).toEqual({
      rule,
      message: message.split(/\n+/).filter(Boolean).join(" — "),
    });
  });

  it.each([
    [409, "Merge conflict"],
    [422, "Update is not a fast forward"],
    [422, "Cannot force-push to this branch"],
    [422, "Reference already exists"],
    [405, "Pull Request is not mergeable"],
    [409, "Head branch was modified. Review and try the merge again."],
    [403, "Repository rule violations found\n\nCommits must have verified signatures."],
    [500, "Repository rule violations found"],
  ])("%i %j is no rule refusal", (status, message) => {
    expect(ruleRefusalOf(refused(status, message))).toBeNull();
  });
});
