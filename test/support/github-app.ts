// A Probot instance wired for tests: a real RSA key (so JWTs are signed for real), the service's own Octokit
// (its timeout, no retries or throttling), and GitHub reachable only through a fake's fetch or nock.
import { generateKeyPairSync } from "node:crypto";
import { Probot } from "probot";
import { type Logger, pino } from "pino";
import { githubOctokit } from "../../src/github/octokit.ts";

export const testAppId = 123456;
export const testWebhookSecret = "test-webhook-secret";

let cachedKey: string | undefined;

export function testPrivateKey(): string {
  cachedKey ??= generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  }).privateKey;
  return cachedKey;
}

/**
 * `fetch` answers Octokit's requests (a fake GitHub); without it they go to nock. `log` captures the logs.
 * `timeoutMs` is the service's GITHUB_TIMEOUT_MS.
 */
export function testProbot(fetch?: typeof globalThis.fetch, log?: Logger, timeoutMs = 10_000): Probot {
  return new Probot({
    appId: testAppId,
    privateKey: testPrivateKey(),
    secret: testWebhookSecret,
    log: log ?? pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
    Octokit: fetch
      ? githubOctokit({ timeoutMs }).defaults((options: Record<string, any>) => ({
          ...options,
          request: { ...options.request, fetch },
        }))
      : githubOctokit({ timeoutMs }),
  });
}
