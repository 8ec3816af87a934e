// Finds JUnit reports and uploads them to POST /v1/flaky-tests/upload (docs/test-health.md#uploading-results-from-ci), in as many requests as the
// service's 20 MiB body limit needs; a single report over the limit goes in parts (report-parts.ts). Each request is
// stored all or nothing, and once whatever the retries (it carries an idempotency key); reports are read one request
// at a time, so memory stays bounded by the limit (and the largest report) whatever the number of reports.
import { createHash } from "node:crypto";
import { open, readFile, stat } from "node:fs/promises";
import fastGlob from "fast-glob";
import { splitReport } from "./report-parts.ts";
import { postToService } from "./service-client.ts";
import type { UploadTarget } from "./upload-metadata.ts";

/** The service refuses bodies over 20 MiB (docs/api.md#conventions); the margin is for JSON's punctuation. */
const MAX_BODY_BYTES = 20 * 1024 * 1024 - 64 * 1024;

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

/** How far an upload has come, for a progress line. */
export interface UploadProgress {
  filesSent: number;
  files: number;
  /** Bytes of request bodies handed to the connection so far. */
  bytesSent: number;
}

/**
 * Uploads `paths` in requests under the body limit, cutting a report too large for one request into parts; throws a
 * CliError if a report or a request fails. `onProgress` hears of every piece of a body sent.
 */
export async function uploadReports(
  target: UploadTarget,
  paths: readonly string[],
  onProgress?: (progress: UploadProgress) => void,
): Promise<UploadSummary> {
  const summary: UploadSummary = {
    uploads: 0,
    testResults: 0,
    failures: 0,
    quarantinedFailures: 0,
    unquarantinedFailures: [],
  };
  const progress: UploadProgress = { filesSent: 0, files: paths.length, bytesSent: 0 };
  // The metadata (CODEOWNERS included) goes with every request.
  const maxReportsBytes = MAX_BODY_BYTES - Buffer.byteLength(JSON.stringify(target.metadata));
  let batch: string[] = [];
  let batchBytes = 0;
  /** Files whose last piece is in the batch: they count as sent once it is. */
  let batchFiles = 0;
  const send = async () => {
    if (batch.length === 0) return;
    const before = progress.bytesSent;
    const answer = await postUpload(
      target,
      batch,
      onProgress &&
        ((bytes) => {
          progress.bytesSent = before + bytes;
          onProgress(progress);
        }),
    );
    progress.filesSent += batchFiles;
    onProgress?.(progress);
    summary.uploads++;
    summary.testResults += answer.test_results;
    summary.failures += answer.failures;
    summary.quarantinedFailures += answer.quarantined_failures;
    summary.unquarantinedFailures.push(...answer.unquarantined_failures);
    batch = [];
    batchBytes = 0;
    batchFiles = 0;
  };
  for (const path of paths) {
    // Decoding replaces invalid UTF-8 with U+FFFD, as the service would.
    const report = (await readFile(path)).toString("utf8");
    const bytes = Buffer.byteLength(JSON.stringify(report));
    const pieces = bytes > maxReportsBytes ? splitReport(report, maxReportsBytes, path) : [report];
    for (const piece of pieces) {
      const pieceBytes = pieces.length === 1 ? bytes : Buffer.byteLength(JSON.stringify(piece));
      if (batchBytes + pieceBytes > maxReportsBytes) await send();
      batch.push(piece);
      batchBytes += pieceBytes;
    }
    batchFiles++;
  }
  await send();
  return summary;
}

/**
 * The idempotency key of a request: a digest of the run (its metadata and attempt) and of the reports, so that a
 * retry, by this process or by CI running the command again, is stored once. A report cut in parts is cut the same
 * way each time, so each part keeps its key.
 */
export function idempotencyKey(target: UploadTarget, reports: readonly string[]): string {
  const hash = createHash("sha256");
  for (const part of [JSON.stringify(target.metadata), target.runAttempt ?? "", ...reports]) {
    hash.update(`${Buffer.byteLength(part)}:`).update(part);
  }
  return `switchyard-upload-${hash.digest("hex")}`;
}

function postUpload(
  target: UploadTarget,
  reports: string[],
  onBytesSent: ((bytes: number) => void) | undefined,
): Promise<UploadResponse> {
  return postToService<UploadResponse>(target, {
    path: "flaky-tests/upload",
    body: JSON.stringify({ ...target.metadata, junit_xml: reports }),
    headers: { "idempotency-key": idempotencyKey(target, reports) },
    what: "the upload",
    ...(onBytesSent === undefined ? {} : { onBytesSent }),
  });
}
