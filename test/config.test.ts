import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";

describe("configuration from the environment", () => {
  it("defaults to SQLite in ./data, port 3000, github.com and the mq/ prefix", () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: undefined,
      databaseUrl: "file:./data/switchyard.db",
      githubHost: "github.com",
      githubWebUrl: "https://github.com",
      githubApp: null,
      webhookSecret: undefined,
      testBranchPrefix: "mq/",
      publicUrl: "http://localhost:3000",
      testResultsRetentionDays: 90,
      pollIntervalSeconds: 60,
      githubTimeoutMs: 10_000,
      logLevel: "info",
      operatorMetrics: false,
    });
  });

  it("turns the operator's process metrics on with OPERATOR_METRICS=true, and refuses other words", () => {
    expect(loadConfig({ OPERATOR_METRICS: "true" }).operatorMetrics).toBe(true);
    expect(loadConfig({ OPERATOR_METRICS: "1" }).operatorMetrics).toBe(true);
    expect(loadConfig({ OPERATOR_METRICS: "FALSE" }).operatorMetrics).toBe(false);
    expect(() => loadConfig({ OPERATOR_METRICS: "yes please" })).toThrow(
      /OPERATOR_METRICS must be true or false/,
    );
  });

  it("takes GitHub Enterprise Server's host from GHE_HOST, and its protocol from GHE_PROTOCOL", () => {
    const config = loadConfig({ GHE_HOST: "GHE.Example.com", GHE_PROTOCOL: "http" });
    expect(config.githubHost).toBe("ghe.example.com");
    expect(config.githubWebUrl).toBe("http://ghe.example.com");
  });

  it("restores newlines of a private key pasted on one line", () => {
    const config = loadConfig({ APP_ID: "1", PRIVATE_KEY: "-----BEGIN KEY-----\\nabc\\n-----END KEY-----" });
    expect(config.githubApp).toEqual({
      appId: "1",
      privateKey: "-----BEGIN KEY-----\nabc\n-----END KEY-----",
    });
  });

  it("lists every invalid variable at once", () => {
    const attempt = () =>
      loadConfig({
        PORT: "eighty",
        DATABASE_URL: "mysql://x",
        APP_ID: "1",
        LOG_LEVEL: "loud",
        PUBLIC_URL: "nope",
      });
    expect(attempt).toThrow(ConfigError);
    const message = (() => {
      try {
        attempt();
      } catch (error) {
        return (error as Error).message;
      }
    })();
    for (const variable of ["PORT", "DATABASE_URL", "LOG_LEVEL", "PUBLIC_URL", "APP_ID and PRIVATE_KEY"]) {
      expect(message).toContain(variable);
    }
  });

  it("refuses out-of-range retention and polling intervals instead of ignoring them", () => {
    expect(() => loadConfig({ TEST_RESULTS_RETENTION_DAYS: "0" })).toThrow(/TEST_RESULTS_RETENTION_DAYS/);
    expect(() => loadConfig({ POLL_INTERVAL_SECONDS: "1" })).toThrow(/POLL_INTERVAL_SECONDS/);
    expect(() => loadConfig({ GITHUB_TIMEOUT_MS: "10s" })).toThrow(/GITHUB_TIMEOUT_MS/);
  });

  it("refuses a test branch prefix git would refuse", () => {
    expect(() => loadConfig({ TEST_BRANCH_PREFIX: "mq queue/" })).toThrow(/TEST_BRANCH_PREFIX/);
  });
});
