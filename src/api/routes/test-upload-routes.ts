// Test health's uploads: the JUnit reports of a test run, stored once however often a client retries, and told
// to the queues whose test branch the run tested (flake evidence).
import { ingestUpload } from "../../test-health-use-cases/ingestion.ts";
import type { UploadOutcome } from "../../test-health-use-cases/upload-outcome.ts";
import { reportRunEvidence } from "../../test-health-use-cases/run-evidence.ts";
import {
  IdempotencyKeyReused,
  type StreamedPart,
  uploadRequestHash,
} from "../../test-health-use-cases/upload-receipts.ts";
import { JunitParseError } from "../../test-reports/parsed-report.ts";
import { stableBranches } from "../../test-health-use-cases/checkout-facts.ts";
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { EdgeDependencies } from "../../http/dependencies.ts";
import { UploadRequest, UploadResponse } from "../test-health-schemas.ts";
import { errorResponses } from "../openapi.ts";
import { invalidRequest, Problem } from "../../http/problem.ts";
import { streamedStrings } from "../../http/streamed-json-body.ts";
import { testHealthRepository } from "../repo-access.ts";

const DAY_MS = 24 * 3600 * 1000;
/** A client clock may run ahead of ours, but not by days: such a time would count as recent for weeks. */
const MAX_CLOCK_AHEAD_MS = DAY_MS;

export function registerTestUploadRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  api.post<{ Body: UploadRequest }>(
    "/flaky-tests/upload",
    {
      schema: {
        operationId: "uploadTestResults",
        summary: "Upload JUnit XML reports of a test run",
        description:
          "An `Idempotency-Key` header (1 to 255 visible ASCII characters) makes the upload safe to retry: a repeat " +
          "with the same key and body is answered the first answer and stores nothing; the same key with another " +
          "body is 422 `idempotency_key_reused`. Without the header, an upload identical to an earlier one (same " +
          "repository, commit, branch, job, run and reports, byte for byte) is recognised the same way.",
        body: UploadRequest,
        response: { 200: UploadResponse, ...errorResponses(400, 401, 403, 404, 413, 422) },
      },
      // The reports are read as they arrive into a temporary file, then from it: never whole in memory.
      config: { streamedStrings: "junit_xml" },
    },
    async (request) => {
      const body = request.body;
      const documents = streamedStrings(request);
      const now = deps.clock();
      const prNumber =
        body.pr_number === undefined || body.pr_number === null || body.pr_number === ""
          ? null
          : Number(body.pr_number);
      if (prNumber !== null && prNumber > 2_147_483_647) {
        throw invalidRequest("the request is invalid: pr_number is too large", [
          { path: "pr_number", message: "must be <= 2147483647" },
        ]);
      }
      const startedAt = body.started_at === undefined ? null : Date.parse(body.started_at);
      if (startedAt !== null && startedAt > now + MAX_CLOCK_AHEAD_MS) {
        throw invalidRequest("the request is invalid: started_at is more than a day in the future", [
          { path: "started_at", message: "must not be more than a day in the future" },
        ]);
      }
      const idempotencyKey = idempotencyKeyOf(request);
      const repository = await testHealthRepository(deps, request, body, { record: true });
      const defaultBranch = body.default_branch ?? undefined;
      const branches = await stableBranches(deps.testHealth, deps.repositoryFacts, repository, defaultBranch);
      const checkout = { defaultBranch, codeowners: body.codeowners ?? undefined };
      try {
        const outcome = await ingestUpload(deps.testHealth, {
          repository,
          id: randomUUID(),
          commitSha: body.commit_sha.toLowerCase(),
          branch: body.branch,
          prNumber,
          jobName: body.job_name || null,
          variant: body.variant ?? "",
          runUrl: body.run_url || null,
          repoRoot: body.repo_root || null,
          startedAt,
          documents,
          stableBranches: branches,
          checkout,
          receipt: uploadReceipt(
            idempotencyKey,
            await uploadRequestHash(uploadRequestParts(body, documents, prNumber, startedAt)),
          ),
          now,
        });
        // A test branch's upload is the queue's flake evidence: a repeat brings it again, harmlessly.
        await reportRunEvidence(
          {
            queuesWithRunAt: (repositoryId, sha) => deps.queueDirectory.queuesWithRunAt(repositoryId, sha),
            dispatch: (queueId, events) => deps.queues.dispatch(queueId, events),
          },
          repository.id,
          body.commit_sha.toLowerCase(),
          outcome.failingTestHealth ?? [],
        );
        return uploadAnswer(outcome);
      } catch (error) {
        throw uploadProblem(error);
      }
    },
  );
}

/** The upload's answer: what was stored, and whether every failure was of a quarantined test. */
function uploadAnswer(outcome: UploadOutcome) {
  return {
    upload_id: outcome.uploadId,
    test_results: outcome.testResults,
    failures: outcome.failures,
    quarantined_failures: outcome.quarantinedFailures,
    unquarantined_failures: outcome.unquarantinedFailures.map((failure) => ({
      test_id: failure.testId,
      name: failure.name,
      classname: failure.classname,
      file_path: failure.filePath,
    })),
    all_failures_quarantined: outcome.allFailuresQuarantined,
  };
}

/** Why an upload stored nothing, as a problem: a key reused for another upload, or a report that is not JUnit. */
function uploadProblem(error: unknown): unknown {
  if (error instanceof IdempotencyKeyReused) {
    return new Problem(
      422,
      "idempotency_key_reused",
      `the Idempotency-Key ${error.idempotencyKey} was sent before with another upload; each upload needs a key of its own`,
    );
  }
  if (!(error instanceof JunitParseError)) return error;
  const where = `line ${error.line}, column ${error.column}: ${error.reason}`;
  return new Problem(
    400,
    "invalid_junit",
    `junit_xml[${error.documentIndex}] is not a valid JUnit report (${where}); nothing of this upload was stored`,
    [{ path: `junit_xml.${error.documentIndex}`, message: where }],
  );
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The upload's `Idempotency-Key` header, if it sent one; 400 when it is not a key. */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers["idempotency-key"];
  if (key === undefined) return undefined;
  if (typeof key !== "string" || !IDEMPOTENCY_KEY.test(key)) {
    throw invalidRequest("the request is invalid: the Idempotency-Key header is not a key", [
      { path: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters" },
    ]);
  }
  return key;
}

/**
 * The receipt an upload leaves. Without an Idempotency-Key, the request itself is the key: the same reports sent
 * again for the same commit, branch, job and run (a client retrying after a lost answer, without a key) are
 * recognised and stored once. Reports differ from one run to the next (times, timestamps), so a real new run is
 * never taken for a repeat.
 */
function uploadReceipt(idempotencyKey: string | undefined, requestHash: string) {
  return { idempotencyKey: idempotencyKey ?? `sha256:${requestHash}`, requestHash };
}

/** What an upload asks for, each field as it is stored: a retry that asks for the same is the same upload. */
function uploadRequestParts(
  body: UploadRequest,
  documents: readonly StreamedPart[],
  prNumber: number | null,
  startedAt: number | null,
): (string | number | null | undefined | StreamedPart)[] {
  const { repo } = body;
  return [
    `${repo.host}/${repo.owner}/${repo.name}`.toLowerCase(),
    body.commit_sha.toLowerCase(),
    body.branch,
    prNumber,
    body.job_name || null,
    body.variant ?? "",
    body.run_url || null,
    body.repo_root || null,
    startedAt,
    body.default_branch,
    body.codeowners,
    documents.length,
    ...documents,
  ];
}
