// GitHub reachable only through nock in a test file; the app's own socket on 127.0.0.1 stays reachable.
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";

export const githubApi = "https://api.github.com";

/** With `strict`, every interceptor a test set up must have been called by its end. */
export function useNockedGitHub(options: { strict: boolean }): void {
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());
  beforeEach(() => nock.enableNetConnect("127.0.0.1"));
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    if (options.strict) expect(pending).toEqual([]);
  });
}
