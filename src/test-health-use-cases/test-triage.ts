// What a person decides about a test: its quarantine setting and its linked ticket. The /v1 endpoints
// (set-quarantine-setting, link-ticket) and the test's page both decide here, with the same checks and errors.
import { type QuarantineSetting, type TestCase, withQuarantine } from "../test-health/index.ts";
import type { Clock } from "../ports/clock.ts";
import type { Repository } from "../ports/test-case-storage.ts";
import type { TestHealthStorage } from "../ports/test-health-persistence.ts";
import { InvalidRequest, NotFound } from "../ports/refusals.ts";

/** The longest ticket URL kept; the link-ticket schema says so too. */
export const TICKET_URL_MAX_LENGTH = 2048;

interface TriageDependencies {
  store: TestHealthStorage;
  clock: Clock;
}

/** The test `testId` of `repository`, or a 404 test_not_found. */
export async function testOf(
  storage: TestHealthStorage,
  repository: Repository,
  testId: string,
): Promise<TestCase> {
  const testCase = await storage.findTestCase(repository.id, testId.toLowerCase());
  if (testCase === undefined) {
    throw new NotFound("test_not_found", `no test ${testId} in ${repository.owner}/${repository.name}`);
  }
  return testCase;
}

/** Sets a test's quarantine setting, quarantining or releasing it at once; the test as it is now. */
export async function setQuarantineSetting(
  deps: TriageDependencies,
  repository: Repository,
  testId: string,
  setting: QuarantineSetting,
): Promise<TestCase> {
  const { store } = deps;
  return store.inTestHealthTransaction(repository.id, async (trx) => {
    const testCase = await testOf(trx, repository, testId);
    const { autoQuarantine } = await trx.testHealthSettings(repository.id);
    const next = { ...testCase, ...withQuarantine(testCase, setting, deps.clock(), autoQuarantine) };
    await trx.saveTestCaseHealth([next]);
    return next;
  });
}

/** Links `ticketUrl` to a test (replacing the one it had), or unlinks its ticket when null. */
export async function linkTestTicket(
  deps: TriageDependencies,
  repository: Repository,
  testId: string,
  ticketUrl: string | null,
): Promise<TestCase> {
  const url = ticketUrl === null ? null : absoluteHttpUrl(ticketUrl, "ticket_url");
  // In the test-health transaction: the hourly pass cannot forget the test between the look-up and the link.
  return deps.store.inTestHealthTransaction(repository.id, async (trx) => {
    const found = await testOf(trx, repository, testId);
    if (url === null) await trx.unlinkTicket(found.key);
    else await trx.linkTicket(found.key, url, deps.clock());
    return found;
  });
}

/** `text` as an absolute http(s) URL (as the URL standard writes it), or a 400 naming the field. */
function absoluteHttpUrl(text: string, field: string): string {
  // The API's schema refuses these first, in these words; a form has no schema.
  if (text.length === 0 || text.length > TICKET_URL_MAX_LENGTH) {
    const message =
      text.length === 0
        ? "must NOT have fewer than 1 characters"
        : `must NOT have more than ${TICKET_URL_MAX_LENGTH} characters`;
    throw new InvalidRequest("invalid_request", `the request is invalid: ${field} ${message}`, [
      { path: field, message },
    ]);
  }
  const url = URL.canParse(text) ? new URL(text) : null;
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new InvalidRequest(
      "invalid_request",
      `the request is invalid: ${field} is not an absolute http or https URL`,
      [{ path: field, message: "must be an absolute http or https URL" }],
    );
  }
  // Every record and the test's page show the URL: credentials in it would be shown to everyone.
  if (url.username !== "" || url.password !== "") {
    throw new InvalidRequest(
      "invalid_request",
      `the request is invalid: ${field} holds a user name or password`,
      [{ path: field, message: "must not hold a user name or password" }],
    );
  }
  return url.href;
}
