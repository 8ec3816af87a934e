// Wire schemas of the merge queue endpoints: they validate requests and generate the OpenAPI document.
import { type Static, Type } from "@sinclair/typebox";
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

// A git branch name: no whitespace, control characters or the characters git forbids in refs.
export const BranchName = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: "^[^\\s~^:?*\\[\\\\\\x00-\\x1f\\x7f]+$",
});

export const QueueTarget = {
  repo: RepoRef,
  targetBranch: BranchName,
};

export const queueStates = ["running", "paused", "draining", "switching_modes"] as const;
export const queueModes = ["single", "parallel"] as const;
export const directMergeModes = ["off", "always"] as const;
export const optimizationModes = ["off", "bisection_skip_redundant_tests"] as const;
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

/** Every setting of contract 4; all optional in createQueue and updateQueue. */
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

export const EnqueuedPullRequest = Type.Object(
  {
    id: Type.String(),
    state: LowercaseEnum(pullRequestStates),
    stateChangedAt: Timestamp,
    priorityValue: Type.Integer(),
    priorityName: Type.String(),
    skipTheLine: Type.Boolean(),
    noBatch: Type.Boolean(),
    prNumber: Type.Integer(),
    prTitle: Type.String(),
    prSha: Type.String(),
    prBaseBranch: Type.String(),
    prAuthor: Type.String(),
    usedDefaultPriorityName: Type.Optional(Type.String()),
  },
  { $id: "EnqueuedPullRequest" },
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
    enqueuedPullRequests: Type.Array(Type.Ref("EnqueuedPullRequest")),
  },
  { $id: "QueueRecord" },
);

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
export const sharedSchemas = [EnqueuedPullRequest, QueueRecord, Empty, ProblemSchema];
