// What the test-health use cases keep in storage: test cases and results (test-case-storage.ts,
// test-result-storage.ts), and per repository its settings, the tickets linked to its tests, the receipts of its
// idempotent uploads and what its checkouts told. src/store/test-health-storage.ts implements it.
import type { TestCaseStorage } from "./test-case-storage.ts";
import type { TestResultStorage } from "./test-result-storage.ts";

export interface TestHealthSettings {
  /** Whether tests with the `auto` quarantine setting are quarantined while flaky. */
  autoQuarantine: boolean;
}

export interface UploadReceipt {
  /** What the upload asked for (see uploadRequestHash). */
  requestHash: string;
  /** The answer it was given, as JSON. */
  answer: string;
}

export interface CheckoutFacts {
  /** The default branch, once an upload named it. */
  defaultBranch: string | null;
  /** The text of the CODEOWNERS file ("" when the checkout has none), once an upload sent it. */
  codeowners: string | null;
}

export interface TestHealthStorage extends TestCaseStorage, TestResultStorage {
  /**
   * Runs `work` in a transaction that no other test-health writer of the repository runs beside, on a view of this
   * storage inside that transaction (which must not start another): uploads, the hourly pass and quarantine
   * settings of one repository read and write the same aggregates.
   */
  inTestHealthTransaction<T>(
    repositoryId: string,
    work: (storage: TestHealthStorage) => Promise<T>,
  ): Promise<T>;
  testHealthSettings(repositoryId: string): Promise<TestHealthSettings>;
  saveTestHealthSettings(repositoryId: string, settings: TestHealthSettings, now: number): Promise<void>;
  linkTicket(testKey: number, url: string, now: number): Promise<void>;
  unlinkTicket(testKey: number): Promise<void>;
  ticketUrls(testKeys: readonly number[]): Promise<Map<number, string>>;
  findUploadReceipt(repositoryId: string, idempotencyKey: string): Promise<UploadReceipt | undefined>;
  saveUploadReceipt(
    receipt: UploadReceipt & { repositoryId: string; idempotencyKey: string; receivedAt: number },
  ): Promise<void>;
  purgeUploadReceipts(cutoff: number): Promise<number>;
  checkoutFacts(repositoryId: string): Promise<CheckoutFacts>;
  /** Records what an upload told; a fact it did not tell (undefined) keeps its stored value. */
  saveCheckoutFacts(
    repositoryId: string,
    facts: { defaultBranch?: string | undefined; codeowners?: string | undefined },
    now: number,
  ): Promise<void>;
  /** The target branches of the repository's queues: stable branches of its tests (docs/test-health.md#classification). */
  queueBranches(repositoryId: string): Promise<string[]>;
}
