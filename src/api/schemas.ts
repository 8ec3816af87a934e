// Wire schemas of the merge queue endpoints: they validate requests and generate the OpenAPI document.
import { type Static, Type } from "@sinclair/typebox";
import { BranchName } from "../http/branch-name.ts";
import { LowercaseEnum, Nullable, Timestamp } from "./schema-types.ts";

export const RepoRef = Type.Object(
  {
    host: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "github.com, or the GHE_HOST of the service",
    }),
    owner: Type.String({ minLength: 1, maxLength: 100, pattern: "^[A-Za-z0-9](?:[A-Za-z0-9-]*)$" }),
    name: Type.String({ minLength: 1, maxLength: 100, pattern: "^[A-Za-z0-9._-]+$" }),
  },
  { description: "the repository; names compare case-insensitively, as on GitHub" },
);
export type RepoRef = Static<typeof RepoRef>;

export const QueueTarget = {
  repo: RepoRef,
  targetBranch: BranchName,
};

export const queueStates = ["running", "paused", "draining", "switching_modes"] as const;
export const queueModes = ["single", "parallel"] as const;
export const directMergeModes = ["off", "always"] as const;
export const optimizationModes = ["off", "bisection_skip_redundant_tests", "separate_proof", "auto"] as const;
export const mergeMethods = ["merge_commit", "squash", "rebase"] as const;
export const pullRequestStates = [
  "not_ready",
  "pending",
  "testing",
  "tests_passed",
  "merged",
  "failed",
  "cancelled",
  "pending_failure",
] as const;

const StatusName = Type.String({ minLength: 1, maxLength: 255 });

const confirmFailuresDescription =
  "extension, default false: a PR whose tests failed is tested once more, alone on the same base, and fails only " +
  "if that run fails too (a pass shows the first failure was a flake)";
const adaptiveBatchingDescription =
  "extension, default false: with batch on, the batch size follows the share of PRs that failed in the last " +
  "3 hours (fewer PRs per batch while failures are frequent), at most batchingMinSize";

/** Every setting of a queue (docs/queue.md#settings); all optional in createQueue and updateQueue. */
export const QueueSettingsInput = {
  mode: Type.Optional(LowercaseEnum(queueModes)),
  concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  testingTimeoutMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080 })),
  canOptimisticallyMerge: Type.Optional(Type.Boolean()),
  pendingFailureDepth: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  batch: Type.Optional(Type.Boolean()),
  batchingMaxWaitTimeMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_440 })),
  batchingMinSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  createPrsForTestingBranches: Type.Optional(Type.Boolean()),
  commentsEnabled: Type.Optional(Type.Boolean()),
  commandsEnabled: Type.Optional(Type.Boolean()),
  statusCheckEnabled: Type.Optional(Type.Boolean()),
  bisectionConcurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  requiredStatuses: Type.Optional(Type.Array(StatusName, { maxItems: 100 })),
  directMergeMode: Type.Optional(LowercaseEnum(directMergeModes)),
  optimizationMode: Type.Optional(LowercaseEnum(optimizationModes)),
  mergeMethod: Type.Optional(LowercaseEnum(mergeMethods)),
  confirmFailures: Type.Optional(Type.Boolean({ description: confirmFailuresDescription })),
  adaptiveBatching: Type.Optional(Type.Boolean({ description: adaptiveBatchingDescription })),
};

export const CreateQueueRequest = Type.Object({ ...QueueTarget, ...QueueSettingsInput });
export type CreateQueueRequest = Static<typeof CreateQueueRequest>;

export const UpdateQueueRequest = Type.Object({
  ...QueueTarget,
  ...QueueSettingsInput,
  state: Type.Optional(
    LowercaseEnum(["running", "paused", "draining"] as const, "switching_modes is set only by the service"),
  ),
  deleteRequiredStatuses: Type.Optional(
    Type.Boolean({ description: "true removes the queue's override of the required statuses" }),
  ),
});
export type UpdateQueueRequest = Static<typeof UpdateQueueRequest>;

export const QueueRequest = Type.Object(QueueTarget);
export type QueueRequest = Static<typeof QueueRequest>;

const enqueuedPullRequestFields = {
  id: Type.String({ description: "the submission id: a PR submitted again gets a new one" }),
  prNumber: Type.Integer(),
  prTitle: Type.String(),
  prSha: Type.String(),
  prBaseBranch: Type.String(),
  prAuthor: Type.String(),
  stateChangedAt: Timestamp,
  priorityValue: Type.Integer({ minimum: 0, maximum: 255 }),
  priorityName: Type.String(),
  skipTheLine: Type.Boolean(),
  noBatch: Type.Boolean(),
  usedDefaultPriorityName: Type.Optional(Type.String()),
};

export const EnqueuedPullRequest = Type.Object(enqueuedPullRequestFields, { $id: "EnqueuedPullRequest" });

export const PullRequestRecord = Type.Object(
  {
    ...enqueuedPullRequestFields,
    state: LowercaseEnum(pullRequestStates),
    stateReason: Type.String({ description: "stable code of the latest transition, e.g. tests_failed" }),
    stateDetail: Type.String({ description: "one human sentence" }),
    forceEnqueued: Type.Boolean(),
    isCurrentlySubmittedToQueue: Type.Boolean(),
    readiness: Type.Object({
      doesBaseBranchMatch: Type.Boolean(),
      providerMergeability: LowercaseEnum([
        "unspecified",
        "in_progress",
        "mergeable",
        "not_mergeable",
      ] as const),
      requiresImpactedTargets: Type.Boolean(),
      hasImpactedTargets: Type.Boolean(),
    }),
    testRunId: Nullable(Type.String()),
    position: Nullable(Type.Integer({ description: "1-based place in the queue while queued" })),
  },
  { $id: "PullRequestRecord" },
);

const BranchRulesRecord = Type.Object(
  {
    readAt: Type.String({ format: "date-time" }),
    rules: Type.Array(
      Type.Object({
        type: Type.String({
          description:
            "GitHub's name for the rule: a ruleset rule type (required_signatures, update, merge_queue…) or a legacy branch protection setting (required_signatures, required_linear_history, lock_branch)",
        }),
        source: Type.String({ description: "`ruleset <id>` or `branch protection`" }),
        honoured: Type.String({ description: "what the queue does about it with its settings" }),
        blocksLanding: Type.Boolean({
          description: "no PR could land under this rule with the queue's settings",
        }),
      }),
    ),
    refusals: Type.Integer({ description: "merges GitHub refused for a rule so far" }),
    lastRefusal: Nullable(
      Type.Object({
        at: Type.String({ format: "date-time" }),
        rule: Nullable(Type.String()),
        message: Type.String({ description: "GitHub's own words" }),
      }),
    ),
  },
  {
    description:
      "Extension: the rules GitHub enforces on the target branch (rulesets and branch protection), read on its rule webhooks, after a refusal and every 10 minutes of work; null until first read",
  },
);

export const QueueRecord = Type.Object(
  {
    state: LowercaseEnum(queueStates),
    branch: Type.String(),
    concurrency: Type.Integer(),
    testingTimeoutMinutes: Type.Integer(),
    mode: LowercaseEnum(queueModes),
    canOptimisticallyMerge: Type.Boolean(),
    pendingFailureDepth: Type.Integer(),
    batch: Type.Boolean(),
    batchingMaxWaitTimeMinutes: Type.Integer(),
    batchingMinSize: Type.Integer(),
    createPrsForTestingBranches: Type.Boolean(),
    commentsEnabled: Type.Boolean(),
    commandsEnabled: Type.Boolean(),
    statusCheckEnabled: Type.Boolean(),
    bisectionConcurrency: Type.Integer(),
    requiredStatuses: Nullable(Type.Array(Type.String())),
    directMergeMode: LowercaseEnum(directMergeModes),
    optimizationMode: LowercaseEnum(optimizationModes),
    mergeMethod: LowercaseEnum(mergeMethods),
    confirmFailures: Type.Boolean({ description: confirmFailuresDescription }),
    adaptiveBatching: Type.Boolean({ description: adaptiveBatchingDescription }),
    waitingForBranch: Type.Boolean({
      description:
        "the branch does not exist yet (a queue may be created before its branch): PRs can be submitted and wait; " +
        "testing starts once the branch is pushed",
    }),
    enqueuedPullRequests: Type.Array(Type.Ref("EnqueuedPullRequest")),
    branchRules: Nullable(BranchRulesRecord),
  },
  { $id: "QueueRecord" },
);

export const ListQueuesRequest = Type.Object({ repo: RepoRef });
export type ListQueuesRequest = Static<typeof ListQueuesRequest>;

export const ListQueuesResponse = Type.Object({
  queues: Type.Array(
    Type.Object({
      ...Type.Omit(QueueRecord, ["enqueuedPullRequests"]).properties,
      depth: Type.Integer({ description: "how many PRs the queue holds (getQueue lists them)" }),
    }),
    { description: "the repository's queues, by branch name" },
  ),
});

export const TestRunRecord = Type.Object(
  {
    id: Type.String(),
    requiredStatuses: Type.Array(Type.String()),
    requiredStatusesSource: Type.Optional(
      LowercaseEnum(["service_config", "repo_provider_branch_protection", "merge_instance"] as const),
    ),
    testBranch: Type.String(),
    testBranchSha: Nullable(Type.String({ description: "null until the test branch exists" })),
    checkSuites: Type.Array(
      Type.Object({
        checkRuns: Type.Array(
          Type.Object({
            name: Type.String(),
            url: Type.String(),
            status: Type.String(),
            conclusion: Nullable(Type.String()),
          }),
        ),
      }),
    ),
    statusChecks: Type.Array(
      Type.Object({ context: Type.String(), url: Type.String(), state: Type.String() }),
    ),
    testedPullRequests: Type.Array(
      Type.Object({ prNumber: Type.Integer(), prUrl: Type.String(), title: Type.String() }),
    ),
    createdAt: Timestamp,
    status: LowercaseEnum(["in_progress", "failed", "cancelled", "succeeded"] as const),
    dependentPrs: Type.Array(Type.Integer(), {
      description:
        "PRs ahead that the run's predicted base holds but that it does not test: in parallel mode, the PRs of " +
        "its lane ahead of it",
    }),
    impactedTargets: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'union of the impacted targets of the tested PRs and of dependentPrs; ["ALL"] when one of them ' +
          "impacts every target; absent unless targets were set for every PR of the run",
      }),
    ),
    impactedTargetsForTestedPrs: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'the same over the tested PRs only; ["ALL"] when one of them impacts every target; absent unless ' +
          "targets were set for every PR of the run",
      }),
    ),
    purpose: LowercaseEnum(
      ["main", "bisection", "confirmation"] as const,
      "extension: main, a run of the main line; bisection, a run testing part of a failed batch to find the PRs " +
        "that broke it; confirmation, a failed PR tested once more alone (confirmFailures)",
    ),
    followsUpRunId: Nullable(
      Type.String({
        description:
          "extension: for a bisection or confirmation run, the failed run whose PRs it tests again",
      }),
    ),
    knownFlakyFailures: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "extension: tests that failed in the JUnit uploads on the run's commit and that test health knows as " +
          "flaky or quarantined; absent in records saved before the service knew them",
      }),
    ),
    flakyFailure: Type.Optional(
      Type.Boolean({
        description:
          "extension: true when the run failed only on known-flaky tests, so its PRs were tested again instead " +
          "of being bisected or failed",
      }),
    ),
  },
  { $id: "TestRunRecord" },
);

/** `pr.number` (docs/api.md#conventions) as an integer or a string of digits (a widely used upload script sends a string). */
export const PrNumber = Type.Union([
  Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
  Type.String({ pattern: "^[1-9][0-9]{0,9}$" }),
]);

export const PrRef = Type.Object({ number: PrNumber });

export const PullRequestRequest = Type.Object({ ...QueueTarget, pr: PrRef });
export type PullRequestRequest = Static<typeof PullRequestRequest>;

export const SubmitPullRequestRequest = Type.Object({
  ...QueueTarget,
  pr: PrRef,
  priority: Type.Optional(
    Type.Union([
      Type.Integer({ minimum: 0, maximum: 255 }),
      LowercaseEnum(["urgent", "high", "medium", "low"] as const),
      Type.Null(),
    ]),
  ),
  noBatch: Type.Optional(Type.Boolean()),
});
export type SubmitPullRequestRequest = Static<typeof SubmitPullRequestRequest>;

export const SetImpactedTargetsRequest = Type.Object({
  ...QueueTarget,
  pr: Type.Object({ number: PrNumber, sha: Type.String({ pattern: "^[0-9a-fA-F]{40}$" }) }),
  impactedTargets: Type.Union(
    [Type.Array(Type.String({ minLength: 1, maxLength: 1024 })), Type.Literal("ALL")],
    {
      description:
        'the targets the PR\'s head commit impacts (duplicates are dropped; an empty list impacts nothing), or "ALL": ' +
        'it impacts every target. A list that would take the body over 20 MiB is refused with 413: send "ALL"',
    },
  ),
});
export type SetImpactedTargetsRequest = Static<typeof SetImpactedTargetsRequest>;

export const ImpactedTargetsResponse = Type.Object({
  prNumber: Type.Integer(),
  prSha: Type.String(),
  impactedTargets: Type.Union([Type.Integer(), Type.Literal("ALL")]),
});

export const ListPullRequestsRequest = Type.Object({
  ...QueueTarget,
  state: Type.Optional(LowercaseEnum(pullRequestStates)),
  since: Type.Optional(Type.String({ format: "date-time", description: "only PRs submitted at or after" })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
export type ListPullRequestsRequest = Static<typeof ListPullRequestsRequest>;

export const PullRequestList = Type.Object(
  {
    pullRequests: Type.Array(Type.Ref("PullRequestRecord")),
    nextCursor: Nullable(
      Type.String({ description: "pass as `cursor` for the next page; null on the last" }),
    ),
  },
  { $id: "PullRequestList" },
);

export const TestingDetailsRequest = Type.Object({
  ...QueueTarget,
  testRunId: Type.String({ minLength: 1, maxLength: 200 }),
});
export type TestingDetailsRequest = Static<typeof TestingDetailsRequest>;

export const Empty = Type.Object({}, { $id: "Empty" });

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.String({ description: "stable machine identifier" }),
    detail: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { $id: "Problem" },
);

/** Schemas referenced by $id, registered once with the API so routes and OpenAPI share them. */
export const sharedSchemas = [
  EnqueuedPullRequest,
  PullRequestRecord,
  PullRequestList,
  QueueRecord,
  TestRunRecord,
  Empty,
  ProblemSchema,
];
