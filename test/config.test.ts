import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ciVariables } from "../src/cli/ci-environment.ts";
import { ConfigError, environmentSchema, loadConfig } from "../src/config.ts";

describe("configuration from the environment", () => {
  it("defaults to SQLite in ./data, port 3000, github.com and the mq/ prefix", () => {
    expect(loadConfig({}, false)).toEqual({
      port: 3000,
      host: undefined,
      databaseUrl: "file:./data/switchyard.db",
      githubHost: "github.com",
      githubWebUrl: "https://github.com",
      githubApp: null,
      webhookSecret: undefined,
      webhookSecretPrevious: undefined,
      testBranchPrefix: "mq/",
      publicUrl: "http://localhost:3000",
      testResultsRetentionDays: 90,
      pollIntervalSeconds: 60,
      githubTimeoutMs: 10_000,
      logLevel: "info",
      logFormat: "json",
      apiRateLimitPerMinute: null,
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

  it("names the variable, what it must be and what it got", () => {
    expect(() => loadConfig({ GHE_PROTOCOL: "ftp" })).toThrow(
      'GHE_PROTOCOL must be http or https, got "ftp"',
    );
    expect(() => loadConfig({ PORT: "80000" })).toThrow(
      'PORT must be an integer from 1 to 65535, got "80000"',
    );
    expect(() => loadConfig({ WEBHOOK_PROXY_URL: "smee" })).toThrow(
      /WEBHOOK_PROXY_URL must be an absolute URL/,
    );
  });
});

describe("configuration errors and secrets", () => {
  const messageOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error("accepted");
  };

  it("names a refused secret variable and what it must be, never its value", () => {
    const message = messageOf({ DATABASE_URL: "mysql://app:hunter2-db-password@db.internal/switchyard" });
    expect(message).toContain("DATABASE_URL must start with file: (SQLite) or postgres://");
    expect(message).not.toContain("hunter2");
    expect(message).not.toContain("mysql://");
  });

  it("never prints a private key when the app's variables do not go together", () => {
    const message = messageOf({ PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\\nsecret-key-body" });
    expect(message).toContain("APP_ID and PRIVATE_KEY");
    expect(message).not.toContain("secret-key-body");
  });
});

describe("log format", () => {
  it("is pretty only for a person at a terminal outside production, else JSON lines", () => {
    expect(loadConfig({}, true).logFormat).toBe("pretty");
    expect(loadConfig({}, false).logFormat).toBe("json");
    expect(loadConfig({ NODE_ENV: "production" }, true).logFormat).toBe("json");
    expect(loadConfig({ LOG_FORMAT: "JSON" }, true).logFormat).toBe("json");
    expect(loadConfig({ LOG_FORMAT: "pretty" }, false).logFormat).toBe("pretty");
    expect(() => loadConfig({ LOG_FORMAT: "xml" })).toThrow(
      'LOG_FORMAT must be one of json, pretty, got "xml"',
    );
  });
});

describe(".env.example", () => {
  const text = readFileSync(new URL("../.env.example", import.meta.url), "utf8");
  // `NAME=value` sets a variable, `# NAME=value` shows an example of one left unset.
  const assignments = [...text.matchAll(/^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(
    ([, comment, name, value]) => ({
      commented: comment !== undefined,
      name: name!,
      value: value!.replace(/^"(.*)"$/, "$1"),
    }),
  );
  const serviceVariables = Object.keys(environmentSchema.shape);
  const uploadVariables = ciVariables.filter((name) => name.startsWith("SWITCHYARD_"));

  it("shows every variable the service and the upload commands read, and no other", () => {
    expect(new Set(assignments.map((a) => a.name))).toEqual(
      new Set([...serviceVariables, ...uploadVariables]),
    );
  });

  it("names the CI variables the upload commands read from GitHub Actions", () => {
    for (const name of ciVariables.filter((variable) => variable.startsWith("GITHUB_")))
      expect(text, name).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it("starts the service as copied, and every example it shows is a value the service accepts", () => {
    const set = assignments.filter((a) => !a.commented);
    expect(() => loadConfig(Object.fromEntries(set.map((a) => [a.name, a.value])))).not.toThrow();
    for (const example of assignments.filter((a) => a.commented && serviceVariables.includes(a.name))) {
      const schema = environmentSchema.shape[example.name as keyof typeof environmentSchema.shape];
      expect(schema.safeParse(example.value).success, `${example.name}=${example.value}`).toBe(true);
    }
  });
});
