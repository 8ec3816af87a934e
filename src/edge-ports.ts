// The ports the edges act through (the /v1 routes, the pages, the webhook handlers, the GitHub executor), on the
// service's database: each a narrow view of the store, so that no edge reaches into storage itself.
import { queueMetricsExposition } from "./metrics/queue-exposition.ts";
import type { ApiTokens } from "./ports/api-tokens.ts";
import type { DeliveryClaims } from "./ports/delivery-claims.ts";
import type { ImpactedTargetStorage } from "./ports/impacted-target-storage.ts";
import type { QueueDirectory } from "./ports/queue-location.ts";
import type { QueueRecords } from "./ports/queue-records.ts";
import type { RepositoryRecords } from "./ports/repository-records.ts";
import type { StatusComments } from "./ports/status-comments.ts";
import type { TestPageReads } from "./ports/test-page-reads.ts";
import type { Store } from "./store/database.ts";
import { claimDelivery, completeDelivery, forgetDelivery } from "./store/deliveries.ts";
import { gatheredReads } from "./store/gathered-reads.ts";
import { findImpactedTargets, saveImpactedTargets } from "./store/impacted-targets.ts";
import { findCommentId, rememberComment } from "./store/pull-request-comments.ts";
import {
  departedPullRequests,
  mergeDurations,
  queueActivity,
  queueStateVersion,
  repositoryQueues,
} from "./store/queue-history.ts";
import {
  commitsConcerns,
  findQueueLocation,
  queueLocation,
  queuesWithRunAt,
} from "./store/queue-locations.ts";
import { transitionsByState } from "./store/queue-metrics.ts";
import { findInstalledRepositoryQueue, findQueueVersion } from "./store/queue-versions.ts";
import { findQueue, queueBranches } from "./store/queues.ts";
import {
  findRepository,
  findRepositoryInstallation,
  forgetInstallation,
  forgetRepositoryInstallation,
  recordRepository,
  rememberRepository,
} from "./store/repositories.ts";
import { serviceSecret } from "./store/service-secrets.ts";
import { findTestRunRecord, latestSubmissionRecord, listSubmissions } from "./store/submission-records.ts";
import { findTestCaseById, recentResults } from "./store/test-history.ts";
import { testListingReads } from "./store/test-listings.ts";
import { authenticate, principalOfToken } from "./store/tokens.ts";

export function queueRecordsOn(store: Store): QueueRecords {
  const { db } = store;
  return {
    findQueue: (repositoryId, branch) => findQueue(db, repositoryId, branch),
    findQueueVersion: (repositoryId, branch) => findQueueVersion(db, repositoryId, branch),
    findInstalledRepositoryQueue: (ref, branch) => findInstalledRepositoryQueue(db, ref, branch),
    queueSnapshot: (queueId, version) => store.queueSnapshot(queueId, version),
    queueStateVersion: (queueId) => queueStateVersion(db, queueId),
    repositoryQueues: (repositoryId) => repositoryQueues(db, repositoryId),
    latestSubmissionRecord: (queueId, prNumber) => latestSubmissionRecord(db, queueId, prNumber),
    listSubmissions: (queueId, filter) => listSubmissions(db, queueId, filter),
    findTestRunRecord: (queueId, runId) => findTestRunRecord(db, queueId, runId),
    departedPullRequests: (queueId, since, limit) => departedPullRequests(db, queueId, since, limit),
    queueActivity: (queueId, since) => queueActivity(db, queueId, since),
    mergeDurations: (queueId, since) => mergeDurations(db, queueId, since),
    transitionsByState: (queueIds, states, since) => transitionsByState(db, queueIds, states, since),
  };
}

export function repositoryRecordsOn({ db }: Store): RepositoryRecords {
  return {
    findRepository: (ref) => findRepository(db, ref),
    findRepositoryInstallation: (ref) => findRepositoryInstallation(db, ref),
    forgetRepositoryInstallation: (repository, now) => forgetRepositoryInstallation(db, repository, now),
    recordRepository: (ref, now) => recordRepository(db, ref, now),
    rememberRepository: (ref, now) => rememberRepository(db, ref, now),
    forgetInstallation: (installationId, refs, now) => forgetInstallation(db, installationId, refs, now),
  };
}

export function queueDirectoryOn(store: Store): QueueDirectory {
  const { db } = store;
  // A burst's deliveries about different commits, arriving while one read is on its way, share the next.
  const concernsOf = gatheredReads((shas) => commitsConcerns(store, shas));
  return {
    queueLocation: (queueId) => queueLocation(db, queueId),
    findQueueLocation: (repo, branch) => findQueueLocation(db, repo, branch),
    queueBranches: (repositoryId) => queueBranches(db, repositoryId),
    commitConcerns: async (sha) => {
      // Most CI webhooks are about the commit of a run this process stepped: no read. A test branch's commit is a
      // merge the queue made, no queued PR's head, so it concerns that queue alone.
      const testing = store.queueTestingAt(sha);
      if (testing !== undefined) return { testing: [testing], notReady: [], queued: [] };
      return (await concernsOf(sha)) ?? { testing: [], notReady: [], queued: [] };
    },
    queuesWithRunAt: (repositoryId, sha) => queuesWithRunAt(db, repositoryId, sha),
  };
}

export function deliveryClaimsOn({ db }: Store): DeliveryClaims {
  return {
    claimDelivery: (key, event, now, staleMs) => claimDelivery(db, key, event, now, staleMs),
    completeDelivery: (key, now) => completeDelivery(db, key, now),
    forgetDelivery: (key) => forgetDelivery(db, key),
  };
}

export function statusCommentsOn({ db }: Store): StatusComments {
  return {
    findCommentId: (submissionId) => findCommentId(db, submissionId),
    rememberComment: (comment) => rememberComment(db, comment),
  };
}

export function impactedTargetsOn({ db }: Store): ImpactedTargetStorage {
  return {
    saveImpactedTargets: (entry, now) => saveImpactedTargets(db, entry, now),
    findImpactedTargets: (queueId, prNumber, headSha) => findImpactedTargets(db, queueId, prNumber, headSha),
  };
}

export function apiTokensOn({ db }: Store): ApiTokens {
  return {
    authenticate: (token, now) => authenticate(db, token, now),
    principalOfToken: (tokenId) => principalOfToken(db, tokenId),
  };
}

export function testPageReadsOn({ db }: Store): TestPageReads {
  return {
    findTestCaseById: (id) => findTestCaseById(db, id),
    recentResults: (testKey, limit) => recentResults(db, testKey, limit),
  };
}

/** Every port the HTTP edges act through, on `store`. */
export function httpEdgePorts(store: Store) {
  return {
    queueRecords: queueRecordsOn(store),
    repositories: repositoryRecordsOn(store),
    queueDirectory: queueDirectoryOn(store),
    impactedTargets: impactedTargetsOn(store),
    tokens: apiTokensOn(store),
    testHealth: store,
    testListings: testListingReads(store),
    testPages: testPageReadsOn(store),
    browserSessionSecret: () => serviceSecret(store.db, "browser_sessions"),
    queueMetrics: (scope: { organizationId: string; repositoryId: string | undefined }, now: number) =>
      queueMetricsExposition(store.db, scope, now),
  };
}
