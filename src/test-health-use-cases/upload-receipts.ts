// Idempotent uploads: an upload that names an idempotency key leaves a receipt with its answer, in the
// transaction that stores it. A retry with the same key and request (the CLI retrying after a timeout) is given
// that answer and stores nothing; the same key with another request is refused, as Stripe refuses it.
import { createHash } from "node:crypto";
import type { TestHealthStorage } from "../ports/test-health-persistence.ts";
import type { UploadOutcome } from "./upload-outcome.ts";

export interface UploadReceiptRequest {
  idempotencyKey: string;
  /** uploadRequestHash of the request. */
  requestHash: string;
}

export class IdempotencyKeyReused extends Error {
  constructor(readonly idempotencyKey: string) {
    super(`the idempotency key ${idempotencyKey} was used for another upload`);
    this.name = "IdempotencyKeyReused";
  }
}

/** A part given as its UTF-8 bytes, in chunks: a report read back from where the request body was kept. */
export interface StreamedPart extends AsyncIterable<Uint8Array> {
  readonly byteLength: number;
}

/**
 * SHA-256 of the parts of a request, in order; each part is length-prefixed, so no two lists hash alike. A streamed
 * part hashes as the string of its bytes does.
 */
export async function uploadRequestHash(
  parts: readonly (string | number | null | undefined | StreamedPart)[],
): Promise<string> {
  const hash = createHash("sha256");
  for (const part of parts) {
    if (typeof part === "object" && part !== null) {
      hash.update(`+${part.byteLength}:`);
      for await (const chunk of part) hash.update(chunk);
      continue;
    }
    const text = part === null || part === undefined ? "" : String(part);
    hash.update(`${part === null || part === undefined ? "-" : "+"}${Buffer.byteLength(text)}:`);
    hash.update(text);
  }
  return hash.digest("hex");
}

/** The answer of the upload `request` repeats, if it repeats one; throws IdempotencyKeyReused for another request. */
export async function repeatedUpload(
  storage: TestHealthStorage,
  repositoryId: string,
  request: UploadReceiptRequest,
): Promise<UploadOutcome | undefined> {
  const receipt = await storage.findUploadReceipt(repositoryId, request.idempotencyKey);
  if (receipt === undefined) return undefined;
  if (receipt.requestHash !== request.requestHash) throw new IdempotencyKeyReused(request.idempotencyKey);
  return JSON.parse(receipt.answer) as UploadOutcome;
}

export async function keepUploadReceipt(
  storage: TestHealthStorage,
  repositoryId: string,
  request: UploadReceiptRequest,
  outcome: UploadOutcome,
  now: number,
): Promise<void> {
  await storage.saveUploadReceipt({
    repositoryId,
    idempotencyKey: request.idempotencyKey,
    requestHash: request.requestHash,
    answer: JSON.stringify(outcome),
    receivedAt: now,
  });
}
