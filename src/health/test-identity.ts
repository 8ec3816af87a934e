// contract 7.2: a test case's id is derived from what identifies it, so that it is the same across uploads and
// replicas, and a client can compute it without asking the service.
import { v5 as uuidv5 } from "uuid";

/** The URL namespace of RFC 9562 (RFC 4122), which contract 7.2 names. */
export const TEST_ID_NAMESPACE = "6ba7b811-9dad-11d1-80b4-00c04fd430c8";

export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

/** What identifies a test case within a repository; a missing field counts as "". */
export interface TestCaseKey {
  filePath?: string | null;
  classname?: string | null;
  parent?: string | null;
  name?: string | null;
  variant?: string | null;
}

/** UUIDv5 of `<host>/<owner>/<name>#<file_path>#<classname>#<parent>#<name>#<variant>`, owner and name lowercased. */
export function testCaseId(repo: RepoRef, testCase: TestCaseKey): string {
  const fields = [testCase.filePath, testCase.classname, testCase.parent, testCase.name, testCase.variant];
  const repoPart = `${repo.host}/${repo.owner.toLowerCase()}/${repo.name.toLowerCase()}`;
  return uuidv5([repoPart, ...fields.map((field) => field ?? "")].join("#"), TEST_ID_NAMESPACE);
}
