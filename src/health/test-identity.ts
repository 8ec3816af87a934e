// contract 7.2: a test case's id is derived from what identifies it, so that it is the same across uploads and
// replicas, and a client can compute it without asking the service.
import { hash } from "node:crypto";

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

const NAMESPACE_BYTES = Buffer.from(TEST_ID_NAMESPACE.replaceAll("-", ""), "hex");
// RFC 9562 section 5.5: the variant bits 10 replace the top two bits of the 17th hex digit.
const VARIANT_DIGITS = "89ab89ab89ab89ab";

/** UUIDv5 of `<host>/<owner>/<name>#<file_path>#<classname>#<parent>#<name>#<variant>`, owner and name lowercased. */
export function testCaseId(repo: RepoRef, testCase: TestCaseKey): string {
  const fields = [testCase.filePath, testCase.classname, testCase.parent, testCase.name, testCase.variant];
  const repoPart = `${repo.host}/${repo.owner.toLowerCase()}/${repo.name.toLowerCase()}`;
  const name = [repoPart, ...fields.map((field) => field ?? "")].join("#");
  // Ingestion computes one id per test case, 150,000 for a large report: a one-shot SHA-1 of the namespace and the
  // name costs half of what the uuid package's v5 does.
  const hex = hash("sha1", Buffer.concat([NAMESPACE_BYTES, Buffer.from(name, "utf8")]), "hex");
  const variant = VARIANT_DIGITS[Number.parseInt(hex.charAt(16), 16)] ?? "8";
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
