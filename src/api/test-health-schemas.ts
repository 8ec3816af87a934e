// Wire schemas of the test-health endpoints (docs/test-health.md#endpoints): they validate requests and
// generate the OpenAPI document.
import { type Static, Type } from "@sinclair/typebox";
import { MAX_CODEOWNERS_BYTES, quarantineSettings } from "../test-health/index.ts";
import { LowercaseEnum, Nullable, Timestamp } from "./schema-types.ts";
import { BranchName } from "../http/branch-name.ts";
import { RepoRef } from "./schemas.ts";
import { TICKET_URL_MAX_LENGTH } from "../test-health-use-cases/test-triage.ts";

export const TestHealthTarget = {
  repo: RepoRef,
  org_url_slug: Type.String({
    minLength: 1,
    maxLength: 100,
    description: "the organization of the API token",
  }),
};

export const PageQuery = Type.Object(
  {
    page_size: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100, description: "1 to 100; 0 or absent means 25" }),
    ),
    page_token: Type.Optional(
      Type.String({
        maxLength: TICKET_URL_MAX_LENGTH,
        description: '"" or absent for the first page, else a token of `page`',
      }),
    ),
  },
  { description: "which page of the listing to answer" },
);

export const PageObject = Type.Object(
  {
    total_rows: Type.Integer(),
    total_pages: Type.Integer(),
    next_page_token: Type.String(),
    prev_page_token: Type.String(),
    last_page_token: Type.String(),
    page_index: Type.Integer(),
  },
  { $id: "PageObject" },
);

const TestId = Type.String({ format: "uuid", description: "the test's id" });

export const healthStatuses = ["healthy", "flaky", "broken"] as const;

const Status = Type.Object({
  value: LowercaseEnum(healthStatuses),
  reason: Type.String({ description: "one sentence naming the evidence" }),
  timestamp: Timestamp,
});

const RecordBase = {
  id: Type.String({ format: "uuid" }),
  repository: Type.Object({ html_url: Type.String() }),
  html_url: Type.String(),
  name: Type.String(),
  variant: Type.String(),
  status: Status,
  codeowners: Type.Array(Type.String()),
  pull_requests_impacted_last_7d: Type.Integer(),
  quarantined: Type.Boolean(),
  quarantine_setting: LowercaseEnum(quarantineSettings),
  file_path: Type.String(),
  parent: Type.String(),
  classname: Type.String(),
  ticket: Nullable(Type.Object({ html_url: Type.String() })),
};

export const UnhealthyTestRecord = Type.Object(RecordBase, { $id: "UnhealthyTestRecord" });

export const TestRecord = Type.Object(
  {
    ...RecordBase,
    most_common_failures: Type.Array(
      Type.Object({
        summary: Type.String(),
        occurrence_count: Type.Integer(),
        last_occurrence: Timestamp,
      }),
    ),
    failure_rate_last_7d: Type.Number({ minimum: 0, maximum: 1 }),
    failure_rate_last_24h: Type.Number({ minimum: 0, maximum: 1 }),
  },
  { $id: "TestRecord" },
);

export const QuarantinedTestRecord = Type.Object(
  {
    name: Type.String(),
    parent: Type.String(),
    file: Type.String(),
    classname: Type.String(),
    codeowners: Type.Array(Type.String()),
    quarantined_at: Timestamp,
    status_last_updated_at: Timestamp,
    test_case_id: Type.String({ format: "uuid" }),
    variant: Type.String(),
    status: Status,
    quarantine_setting: LowercaseEnum(quarantineSettings),
  },
  { $id: "QuarantinedTestRecord" },
);

/** One page of a listing: its records under `field`, and where the next page starts. */
const listingPage = (field: string, record: string) =>
  Type.Object({ [field]: Type.Array(Type.Ref(record)), page: Type.Ref("PageObject") });

export const ListFailingTestsRequest = Type.Object({
  ...TestHealthTarget,
  start_time: { ...Timestamp, description: "inclusive" },
  end_time: { ...Timestamp, description: "exclusive; at most 7 days after start_time" },
  page_query: PageQuery,
});
export type ListFailingTestsRequest = Static<typeof ListFailingTestsRequest>;

export const ListFailingTestsResponse = listingPage("tests", "TestRecord");

export const ListUnhealthyTestsRequest = Type.Object({
  ...TestHealthTarget,
  status: LowercaseEnum(["flaky", "broken"] as const, "FLAKY or BROKEN, in any case"),
  page_query: PageQuery,
});
export type ListUnhealthyTestsRequest = Static<typeof ListUnhealthyTestsRequest>;

export const ListUnhealthyTestsResponse = listingPage("tests", "UnhealthyTestRecord");

export const ListQuarantinedTestsRequest = Type.Object({
  ...TestHealthTarget,
  page_query: PageQuery,
});
export type ListQuarantinedTestsRequest = Static<typeof ListQuarantinedTestsRequest>;

export const ListQuarantinedTestsResponse = listingPage("quarantined_tests", "QuarantinedTestRecord");

export const GetTestDetailsRequest = Type.Object({ ...TestHealthTarget, test_id: TestId });
export type GetTestDetailsRequest = Static<typeof GetTestDetailsRequest>;

export const SetQuarantineSettingRequest = Type.Object({
  ...TestHealthTarget,
  test_id: TestId,
  setting: LowercaseEnum(quarantineSettings, "always, never, or auto (quarantined while flaky)"),
});
export type SetQuarantineSettingRequest = Static<typeof SetQuarantineSettingRequest>;

export const LinkTicketRequest = Type.Object({
  ...TestHealthTarget,
  test_id: TestId,
  ticket_url: Nullable(
    Type.String({
      minLength: 1,
      maxLength: TICKET_URL_MAX_LENGTH,
      description:
        "the ticket's absolute http(s) URL, at most 2048 characters; null unlinks the test's ticket",
    }),
  ),
});
export type LinkTicketRequest = Static<typeof LinkTicketRequest>;

export const TestResponse = Type.Object({ test: Type.Ref("TestRecord") });

export const GetAutoQuarantineRequest = Type.Object(TestHealthTarget);
export type GetAutoQuarantineRequest = Static<typeof GetAutoQuarantineRequest>;

export const AutoQuarantineResponse = Type.Object({
  auto_quarantine: Type.Boolean({ description: "whether flaky tests with the auto setting are quarantined" }),
});

export const SetAutoQuarantineRequest = Type.Object({
  ...TestHealthTarget,
  enabled: Type.Boolean({
    description: "quarantine flaky tests with the auto setting (the default), or not",
  }),
});
export type SetAutoQuarantineRequest = Static<typeof SetAutoQuarantineRequest>;

export const SetAutoQuarantineResponse = Type.Object({
  auto_quarantine: Type.Boolean(),
  tests_quarantined: Type.Integer({ minimum: 0, description: "flaky tests the change quarantined" }),
  tests_released: Type.Integer({
    minimum: 0,
    description: "flaky tests the change released from quarantine",
  }),
});

export const UploadRequest = Type.Object({
  ...TestHealthTarget,
  commit_sha: Type.String({ pattern: "^[0-9a-fA-F]{4,64}$", description: "the tested commit" }),
  branch: BranchName,
  // docs/api.md#conventions: a widely used upload script sends the number as a string, and "" when there is no PR.
  pr_number: Type.Optional(
    Nullable(
      Type.Union([
        Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
        Type.String({ pattern: "^(?:[1-9][0-9]{0,9})?$" }),
      ]),
    ),
  ),
  job_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  variant: Type.Optional(
    Nullable(Type.String({ maxLength: 255, description: "part of each test's identity" })),
  ),
  run_url: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
  repo_root: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 4096,
        description:
          "an extension: where CI checked the repository out; absolute file paths below it (PHPUnit writes them) are stored relative to it, so that a test keeps its id whatever the checkout directory",
      }),
    ),
  ),
  started_at: Type.Optional({
    ...Timestamp,
    description: "the time of every result; default: when received",
  }),
  default_branch: Type.Optional(
    Nullable({
      ...BranchName,
      description:
        "an extension: the repository's default branch as the checkout knows it (a stable branch); it replaces the one known",
    }),
  ),
  codeowners: Type.Optional(
    Nullable(
      Type.String({
        maxLength: MAX_CODEOWNERS_BYTES,
        description:
          "an extension: the text of the checkout's CODEOWNERS file (.github/, the root or docs/), \"\" when it has none; it gives the tests' codeowners",
      }),
    ),
  ),
  junit_xml: Type.Array(Type.String({ description: "one JUnit XML document" }), {
    minItems: 1,
    maxItems: 1000,
  }),
});
export type UploadRequest = Static<typeof UploadRequest>;

export const UploadResponse = Type.Object({
  upload_id: Type.String({ format: "uuid" }),
  test_results: Type.Integer({ description: "every test case, skipped ones included" }),
  failures: Type.Integer({ description: "distinct tests whose final outcome failed" }),
  quarantined_failures: Type.Integer(),
  unquarantined_failures: Type.Array(
    Type.Object({
      test_id: Type.String({ format: "uuid" }),
      name: Type.String(),
      classname: Type.String(),
      file_path: Type.String(),
    }),
  ),
  all_failures_quarantined: Type.Boolean({
    description: "true when the upload has failures and every one of them is a quarantined test",
  }),
});

/** Schemas referenced by $id, registered once with the API. */
export const testHealthSchemas = [PageObject, TestRecord, UnhealthyTestRecord, QuarantinedTestRecord];
