// Finds JUnit reports and uploads them to POST /v1/flaky-tests/upload (contract 7.1), in as many requests as the
// service's 20 MiB body limit needs. Each request is stored all or nothing, and once whatever the retries (it carries
// an idempotency key); reports are read one request at a time, so memory stays bounded by the limit whatever the
// number of reports.
import { createHash } from "node:crypto";
import { open, readFile, stat } from "node:fs/promises";
import { setTimeout } from "node:timers/promises";
import fastGlob from "fast-glob";
import { CliError } from "./io.ts";
import type { UploadTarget } from "./upload-metadata.ts";

/** The service refuses bodies over 20 MiB (contract 1); the margin is for JSON's punctuation. */
const MAX_BODY_BYTES = 20 * 1024 * 1024 - 64 * 1024;
/** A 20 MiB upload over a slow link takes a while, but a service that never answers must not hang CI forever. */
const REQUEST_TIMEOUT_MS = 5 * 60 * 1000;
/** Attempts of one request when the service cannot be reached or fails; each sends the same idempotency key. */
const ATTEMPTS = 3;
const RETRY_DELAY_MS = 500;

/** Where test runners write JUnit reports by default (Surefire/Gradle, jest-junit, common CI conventions). */
export const DEFAULT_REPORT_GLOBS = [
  "**/TEST-*.xml",
  "**/*junit*.xml",
  "**/junit/**/*.xml",
  "**/test-results/**/*.xml",
  "**/test-reports/**/*.xml",
];

export interface ReportSearch {
  globs: string[];
  cwd: string;
  /** Only files modified at or after this time (epoch ms): the reports a wrapped command just wrote. */
  modifiedSince?: number;
  /** Only files whose root element is a JUnit one (for default globs, which also match other XML files). */
  junitOnly?: boolean;
}

export async function findReports(search: ReportSearch): Promise<string[]> {
  const paths = await fastGlob(search.globs, {
    cwd: search.cwd,
    absolute: true,
    onlyFiles: true,
    unique: true,
    ignore: ["**/node_modules/**", "**/.git/**"],
  });
  const reports: string[] = [];
  for (const path of paths.sort()) {
    // File systems store modification times coarsely; a second of slack keeps a report written right away.
    if (search.modifiedSince !== undefined && (await stat(path)).mtimeMs < search.modifiedSince - 1000)
      continue;
    if (search.junitOnly === true && !(await looksLikeJunit(path))) continue;
    reports.push(path);
  }
  return reports;
}

async function looksLikeJunit(path: string): Promise<boolean> {
  const file = await open(path, "r");
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(4096), 0, 4096, 0);
    const head = buffer.subarray(0, bytesRead).toString("utf8");
    // After an optional declaration, comments and processing instructions, the root is <testsuites> or <testsuite>.
    return /^\uFEFF?\s*(?:<\?[^?]*\?>\s*|<!--[\s\S]*?-->\s*)*<testsuites?[\s>/]/.test(head);
  } finally {
    await file.close();
  }
}

export interface UploadSummary {
  uploads: number;
  testResults: number;
  failures: number;
  quarantinedFailures: number;
  unquarantinedFailures: { test_id: string; name: string; classname: string; file_path: string }[];
}

interface UploadResponse {
  test_results: number;
  failures: number;
  quarantined_failures: number;
  unquarantined_failures: UploadSummary["unquarantinedFailures"];
}

/** Uploads `paths` in requests under the body limit; throws a CliError if a report or a request fails. */
export async function uploadReports(target: UploadTarget, paths: readonly string[]): Promise<UploadSummary> {
  const summary: UploadSummary = {
    uploads: 0,
    testResults: 0,
    failures: 0,
    quarantinedFailures: 0,
    unquarantinedFailures: [],
  };
  // The metadata (CODEOWNERS included) goes with every request.
  const maxReportsBytes = MAX_BODY_BYTES - Buffer.byteLength(JSON.stringify(target.metadata));
  let batch: string[] = [];
  let batchBytes = 0;
  const send = async () => {
    if (batch.length === 0) return;
    const answer = await postUpload(target, batch);
    summary.uploads++;
    summary.testResults += answer.test_results;
    summary.failures += answer.failures;
    summary.quarantinedFailures += answer.quarantined_failures;
    summary.unquarantinedFailures.push(...answer.unquarantined_failures);
    batch = [];
    batchBytes = 0;
  };
  for (const path of paths) {
    // Decoding replaces invalid UTF-8 with U+FFFD, as the service would.
    const report = (await readFile(path)).toString("utf8");
    const bytes = Buffer.byteLength(JSON.stringify(report));
    if (bytes > maxReportsBytes) {
      throw new CliError(
        `${path} is too large to upload (${bytes} bytes as JSON; the service accepts 20 MiB)`,
      );
    }
    if (batchBytes + bytes > maxReportsBytes) await send();
    batch.push(report);
    batchBytes += bytes;
  }
  await send();
  return summary;
}

/**
 * The idempotency key of a request: a digest of the run (its metadata and attempt) and of the reports, so that a
 * retry, by this process or by CI running the command again, is stored once.
 */
export function idempotencyKey(target: UploadTarget, reports: readonly string[]): string {
  const hash = createHash("sha256");
  for (const part of [JSON.stringify(target.metadata), target.runAttempt ?? "", ...reports]) {
    hash.update(`${Buffer.byteLength(part)}:`).update(part);
  }
  return `switchyard-upload-${hash.digest("hex")}`;
}

/** Why an attempt failed, and whether another attempt may succeed. */
class AttemptFailed extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

async function postUpload(target: UploadTarget, reports: string[]): Promise<UploadResponse> {
  const body = JSON.stringify({ ...target.metadata, junit_xml: reports });
  const key = idempotencyKey(target, reports);
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptUpload(target, body, key);
    } catch (error) {
      if (!(error instanceof AttemptFailed)) throw error;
      if (!error.retry || attempt === ATTEMPTS) throw new CliError(error.message);
      await setTimeout(RETRY_DELAY_MS * attempt);
    }
  }
}

async function attemptUpload(target: UploadTarget, body: string, key: string): Promise<UploadResponse> {
  const url = `${target.serviceUrl}/v1/flaky-tests/upload`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": target.token, "idempotency-key": key },
      body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new AttemptFailed(
      `could not reach the Switchyard service at ${target.serviceUrl} (${reason})`,
      true,
    );
  }
  if (response.ok) return JSON.parse(text) as UploadResponse;
  let problem: { code?: string; detail?: string } = {};
  try {
    problem = JSON.parse(text) as typeof problem;
  } catch {
    // not problem JSON: a proxy's error page, say
  }
  const detail = problem.detail ?? `HTTP ${response.status}`;
  if (response.status >= 500 || problem.code === undefined) {
    throw new AttemptFailed(
      `the Switchyard service failed to take the upload: ${detail}`,
      response.status >= 500,
    );
  }
  throw new AttemptFailed(`the upload was refused: ${detail} (${problem.code})`, response.status === 429);
}
