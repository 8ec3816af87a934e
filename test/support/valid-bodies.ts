// A valid value of every field the /v1 operations' bodies take: each operation's valid body holds the fields its
// schema names, taken from here (acme/widgets on github.com, branch main, PR 1).
import { repoRef as repo } from "./queue-scenario.ts";

export const validBody: Record<string, unknown> = {
  repo,
  targetBranch: "main",
  pr: { number: 1, sha: "a".repeat(40) },
  testRunId: "q-1",
  priority: "high",
  noBatch: false,
  state: "running",
  concurrency: 2,
  requiredStatuses: ["ci"],
  impactedTargets: ["app"],
  take: 10,
  org_url_slug: "acme",
  test_id: "6f1f1ad4-1c1e-4c52-9d2a-2a5d8a3c1e01",
  setting: "never",
  enabled: true,
  status: "flaky",
  ticket_url: "https://tickets.example/1",
  start_time: "2026-11-20T10:00:00.000Z",
  end_time: "2026-11-21T10:00:00.000Z",
  page_query: { page_size: 10 },
  commit_sha: "abcdef12",
  branch: "main",
  junit_xml: ['<testsuite name="s"><testcase name="t" classname="c"/></testsuite>'],
};
