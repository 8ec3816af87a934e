// The one place that reads the environment (DESIGN.md section 2). Everything else receives a Config.
import { existsSync, readFileSync } from "node:fs";

export interface GitHubAppCredentials {
  appId: string;
  privateKey: string;
}

export interface Config {
  port: number;
  host: string | undefined;
  /** `file:<path>` (SQLite) or `postgres://…` (PostgreSQL). */
  databaseUrl: string;
  /** The GitHub host repos live on: github.com, or the GHE_HOST of a GitHub Enterprise Server. */
  githubHost: string;
  /** Where people open that host in a browser (https://github.com, or GHE_PROTOCOL://GHE_HOST). */
  githubWebUrl: string;
  /** Null until the app is registered: the server then shows Probot's setup page. */
  githubApp: GitHubAppCredentials | null;
  webhookSecret: string | undefined;
  testBranchPrefix: string;
  publicUrl: string;
  testResultsRetentionDays: number;
  /** How often runs in flight and unsettled mergeability are read from GitHub (missed webhooks). */
  pollIntervalSeconds: number;
  /** How long any one call to GitHub may take before it counts as failed (GitHub unavailable). */
  githubTimeoutMs: number;
  logLevel: LogLevel;
  /** Serve process metrics (prom-client's default collectors) at /metrics, without a token. */
  operatorMetrics: boolean;
}

const logLevels = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
export type LogLevel = (typeof logLevels)[number];

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

export const defaultDatabaseUrl = "file:./data/switchyard.db";

/** Loads `.env` (if present) into the environment without overriding variables already set. */
export function loadDotEnv(path = ".env"): void {
  if (existsSync(path)) process.loadEnvFile(path);
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === "" ? undefined : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  };

  const databaseUrl = read("DATABASE_URL") ?? defaultDatabaseUrl;
  if (!/^(file:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    problems.push(
      `DATABASE_URL must start with file: (SQLite) or postgres:// (PostgreSQL), got "${databaseUrl}"`,
    );
  }

  const logLevel = (read("LOG_LEVEL") ?? "info").toLowerCase() as LogLevel;
  if (!logLevels.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${logLevels.join(", ")}`);

  const publicUrl = read("PUBLIC_URL");
  if (publicUrl !== undefined && !URL.canParse(publicUrl)) {
    problems.push(`PUBLIC_URL must be an absolute URL, got "${publicUrl}"`);
  }

  const testBranchPrefix = read("TEST_BRANCH_PREFIX") ?? "mq/";
  if (/[\s~^:?*[\\]|\.\.|^\/|\/\/|@\{/.test(testBranchPrefix)) {
    problems.push(`TEST_BRANCH_PREFIX must be usable in a git branch name, got "${testBranchPrefix}"`);
  }

  const flag = (name: string): boolean => {
    const raw = read(name)?.toLowerCase();
    if (raw === undefined || raw === "false" || raw === "0") return false;
    if (raw === "true" || raw === "1") return true;
    problems.push(`${name} must be true or false, got "${raw}"`);
    return false;
  };

  const port = integer("PORT", 3000, 1, 65535);
  const testResultsRetentionDays = integer("TEST_RESULTS_RETENTION_DAYS", 90, 1, 3650);
  const pollIntervalSeconds = integer("POLL_INTERVAL_SECONDS", 60, 5, 3600);
  const githubTimeoutMs = integer("GITHUB_TIMEOUT_MS", 10_000, 100, 600_000);
  const operatorMetrics = flag("OPERATOR_METRICS");
  const githubApp = readGitHubApp(read, problems);
  if (problems.length > 0) throw new ConfigError(problems);

  const gheHost = read("GHE_HOST")?.toLowerCase();
  return {
    port,
    host: read("HOST"),
    databaseUrl,
    githubHost: gheHost ?? "github.com",
    githubWebUrl:
      gheHost === undefined ? "https://github.com" : `${read("GHE_PROTOCOL") ?? "https"}://${gheHost}`,
    githubApp,
    webhookSecret: read("WEBHOOK_SECRET"),
    testBranchPrefix,
    publicUrl: (publicUrl ?? `http://localhost:${port}`).replace(/\/+$/, ""),
    testResultsRetentionDays,
    pollIntervalSeconds,
    githubTimeoutMs,
    logLevel,
    operatorMetrics,
  };
}

function readGitHubApp(
  read: (name: string) => string | undefined,
  problems: string[],
): GitHubAppCredentials | null {
  const appId = read("APP_ID");
  const keyPath = read("PRIVATE_KEY_PATH");
  let privateKey = read("PRIVATE_KEY");
  if (privateKey === undefined && keyPath !== undefined) {
    if (!existsSync(keyPath)) {
      problems.push(`PRIVATE_KEY_PATH points to a missing file: ${keyPath}`);
      return null;
    }
    privateKey = readFileSync(keyPath, "utf8");
  }
  if (appId === undefined && privateKey === undefined) return null;
  if (appId === undefined || privateKey === undefined) {
    problems.push("APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) must be set together");
    return null;
  }
  // Keys pasted into one-line variables keep their newlines as "\n".
  return { appId, privateKey: privateKey.replace(/\\n/g, "\n") };
}

/** Every variable of a CiEnvironment, so that tests can clear them all. */
export const ciVariables = [
  "SWITCHYARD_URL",
  "SWITCHYARD_TOKEN",
  "SWITCHYARD_ORG",
  "GITHUB_SHA",
  "GITHUB_REF",
  "GITHUB_REF_NAME",
  "GITHUB_HEAD_REF",
  "GITHUB_JOB",
  "GITHUB_SERVER_URL",
  "GITHUB_REPOSITORY",
  "GITHUB_RUN_ID",
  "GITHUB_RUN_ATTEMPT",
  "GITHUB_WORKSPACE",
  "GITHUB_EVENT_PATH",
] as const;

/** The variables `switchyard upload` and `switchyard test` read: the service to upload to, and the CI run. */
export type CiEnvironment = Partial<Record<(typeof ciVariables)[number], string>>;

/** Reads the upload commands' variables (blank ones count as unset); flags given on the command line win. */
export function readCiEnvironment(env: Env = process.env): CiEnvironment {
  const values: CiEnvironment = {};
  for (const name of ciVariables) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== "") values[name] = value;
  }
  return values;
}
