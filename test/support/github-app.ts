// A Probot instance wired for tests: a real RSA key (so JWTs are signed for real), no retries or
// throttling, and GitHub reachable only through nock.
import { generateKeyPairSync } from "node:crypto";
import { Probot, ProbotOctokit } from "probot";
import { pino } from "pino";

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

export function testProbot(): Probot {
  return new Probot({
    appId: testAppId,
    privateKey: testPrivateKey(),
    secret: testWebhookSecret,
    log: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
    Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
  });
}
