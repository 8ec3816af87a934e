// What test health keeps of its test cases (docs/test-health.md#test-identity) and their health (#classification, #quarantine).
// src/store/test-health-storage.ts implements it.
import type { TestCase, TestCaseHealth } from "../test-health/index.ts";

/** A repository as test health knows it (from an installation or from an upload). */
export interface Repository {
  id: string;
  host: string;
  owner: string;
  name: string;
  installationId: number | null;
}

/** Test cases seen for the first time together, with the same health: the new tests of a batch that share a classification. */
export interface NewTestCases {
  repositoryId: string;
  variant: string;
  firstSeenAt: number;
  health: TestCaseHealth;
  /** Each with its key, given by the allocator of `testCaseKeyAllocator`. */
  tests: Pick<TestCase, "key" | "id" | "name" | "classname" | "parent" | "filePath">[];
}

/** The keys of test cases seen lately, by id, kept by this process (see src/store/test-case-key-cache.ts). */
export interface TestCaseKeyCache {
  /** Called as an upload starts: the cache starts over once an hour. */
  renew(now: number): void;
  get(id: string): number | undefined;
  remember(id: string, key: number): void;
  /** Empties the cache: an upload that failed takes back the keys it handed out. */
  forget(): void;
}

export interface TestCaseStorage {
  /** The keys of the test cases among `ids` that exist. */
  testCaseKeys(ids: readonly string[]): Promise<Map<string, number>>;
  /** Hands out keys for new test cases, `count` at a time. */
  testCaseKeyAllocator(): Promise<(count: number) => Promise<number[]>>;
  /** Inserts new test cases, each unless a test with its id exists; returns how many were inserted. */
  insertNewTestCases(group: NewTestCases): Promise<number>;
  saveTestCaseHealth(testCases: readonly TestCase[]): Promise<void>;
  loadTestCases(keys: readonly number[]): Promise<TestCase[]>;
  findTestCase(repositoryId: string, id: string): Promise<TestCase | undefined>;
  /** The repository's flaky tests whose quarantine follows its auto-quarantine setting. */
  flakyTestsOnAutoQuarantine(repositoryId: string): Promise<TestCase[]>;
  /** Tests whose health rests on failures in the window, to reclassify as those age. */
  unsettledTestKeys(repositoryId: string): Promise<number[]>;
  repositoriesWithUnsettledTests(): Promise<Repository[]>;
  repositoriesWithTestCases(): Promise<string[]>;
  /** Deletes the repository's tests with no result since `cutoff`; returns how many. */
  deleteForgottenTestCases(repositoryId: string, cutoff: number): Promise<number>;
  /** This process's key cache of the database. */
  testCaseKeyCache(): TestCaseKeyCache;
}
