// The one place that reads the service's environment: every variable it reads is declared in `environmentSchema`,
// with what it allows, and everything else receives a Config (the client commands, run in CI, read theirs in
// src/cli/ci-environment.ts). `.env.example` documents both; a test holds it to the schema.
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";

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
  /** The secret before the last rotation, still accepted while GitHub's settings change over (docs/security.md). */
  webhookSecretPrevious: string | undefined;
  testBranchPrefix: string;
  publicUrl: string;
  testResultsRetentionDays: number;
  /** How often runs in flight and unsettled mergeability are read from GitHub (missed webhooks). */
  pollIntervalSeconds: number;
  /** How long any one call to GitHub may take before it counts as failed (GitHub unavailable). */
  githubTimeoutMs: number;
  logLevel: LogLevel;
  /** JSON lines for a log store, or pretty lines for a person at a terminal. */
  logFormat: LogFormat;
  /** Requests one API token may make per minute; null: no limit. */
  apiRateLimitPerMinute: number | null;
  /** Serve process metrics (prom-client's default collectors) at /metrics, without a token. */
  operatorMetrics: boolean;
}

const logLevels = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
export type LogLevel = (typeof logLevels)[number];
const logFormats = ["json", "pretty"] as const;
export type LogFormat = (typeof logFormats)[number];

/**
 * Variables whose values are secrets (or hold one, as a database URL's password does): a refusal names the variable
 * and what it must be, never the value.
 */
const secretVariables = new Set<string>([
  "DATABASE_URL",
  "PRIVATE_KEY",
  "WEBHOOK_SECRET",
  "WEBHOOK_SECRET_PREVIOUS",
]);

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

export const defaultDatabaseUrl = "file:./data/switchyard.db";

const integer = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/)
    .transform(Number)
    .pipe(z.number().min(min).max(max))
    .default(fallback)
    .describe(`be an integer from ${min} to ${max}`);
const absoluteUrl = z.string().refine((value) => URL.canParse(value));
const flag = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.enum(["true", "false", "1", "0"]))
  .transform((value) => value === "true" || value === "1");
/** What git refuses in a branch name (git check-ref-format), as far as a prefix can hold it. */
const unusableInBranchName = /[\s~^:?*[\\]|\.\.|^\/|\/\/|@\{/;

/**
 * Every variable the service reads (Probot reads the WEBHOOK_* ones itself). Each that can be refused is described by
 * what it must be: the description completes "NAME must …" in the message. Blank values count as unset.
 */
export const environmentSchema = z.object({
  PORT: integer(1, 65535, 3000),
  HOST: z.string().optional(),
  PUBLIC_URL: absoluteUrl.optional().describe("be an absolute URL"),
  LOG_LEVEL: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(logLevels))
    .default("info")
    .describe(`be one of ${logLevels.join(", ")}`),
  LOG_FORMAT: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(logFormats))
    .optional()
    .describe(`be one of ${logFormats.join(", ")}`),
  API_RATE_LIMIT_PER_MINUTE: z
    .string()
    .regex(/^\d+$/)
    .transform(Number)
    .pipe(z.number().min(1).max(1_000_000))
    .optional()
    .describe("be an integer from 1 to 1000000 (requests per token per minute), or unset for no limit"),
  OPERATOR_METRICS: flag.default(false).describe("be true or false"),
  DATABASE_URL: z
    .string()
    .regex(/^(file:|postgres(ql)?:\/\/)/)
    .default(defaultDatabaseUrl)
    .describe("start with file: (SQLite) or postgres:// (PostgreSQL)"),
  APP_ID: z.string().regex(/^\d+$/).optional().describe("be the GitHub App's numeric id"),
  PRIVATE_KEY: z.string().optional(),
  PRIVATE_KEY_PATH: z.string().optional(),
  WEBHOOK_SECRET: z.string().optional(),
  WEBHOOK_SECRET_PREVIOUS: z.string().optional(),
  WEBHOOK_PATH: z.string().startsWith("/").optional().describe("start with /"),
  WEBHOOK_PROXY_URL: absoluteUrl.optional().describe("be an absolute URL (a smee.io channel)"),
  GHE_HOST: z
    .string()
    .regex(/^[a-z0-9.-]+(:\d+)?$/i)
    .transform((value) => value.toLowerCase())
    .optional()
    .describe("be a host name, such as github.example.com"),
  GHE_PROTOCOL: z.enum(["http", "https"]).default("https").describe("be http or https"),
  TEST_BRANCH_PREFIX: z
    .string()
    .refine((value) => !unusableInBranchName.test(value))
    .default("mq/")
    .describe("be usable in a git branch name"),
  POLL_INTERVAL_SECONDS: integer(5, 3600, 60),
  GITHUB_TIMEOUT_MS: integer(100, 600_000, 10_000),
  TEST_RESULTS_RETENTION_DAYS: integer(1, 3650, 90),
});

export type EnvironmentVariable = keyof typeof environmentSchema.shape;

/** Loads `.env` (if present) into the environment without overriding variables already set. */
export function loadDotEnv(path = ".env"): void {
  if (existsSync(path)) process.loadEnvFile(path);
}

/** The service's variables in `env`, trimmed; blank ones count as unset. */
function knownVariables(env: Env): Env {
  const input: Env = {};
  for (const name of Object.keys(environmentSchema.shape)) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== "") input[name] = value;
  }
  return input;
}

/**
 * Reads the service's variables through the schema; throws a ConfigError naming every refused variable with what it
 * allows and the value it got.
 */
export function loadConfig(env: Env = process.env, stdoutIsTerminal = process.stdout.isTTY === true): Config {
  const input = knownVariables(env);
  const parsed = environmentSchema.safeParse(input);
  const problems: string[] = [];
  if (!parsed.success) {
    const refused = new Set(parsed.error.issues.map((issue) => String(issue.path[0])));
    for (const name of refused) {
      const allowed = environmentSchema.shape[name as EnvironmentVariable].description;
      problems.push(
        secretVariables.has(name)
          ? `${name} must ${allowed} (its value is not shown: it may hold a secret)`
          : `${name} must ${allowed}, got "${input[name]}"`,
      );
    }
  }
  const githubApp = readGitHubApp(input, problems);
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const vars = parsed.data;
  return {
    port: vars.PORT,
    host: vars.HOST,
    databaseUrl: vars.DATABASE_URL,
    githubHost: vars.GHE_HOST ?? "github.com",
    githubWebUrl:
      vars.GHE_HOST === undefined ? "https://github.com" : `${vars.GHE_PROTOCOL}://${vars.GHE_HOST}`,
    githubApp,
    webhookSecret: vars.WEBHOOK_SECRET,
    webhookSecretPrevious: vars.WEBHOOK_SECRET_PREVIOUS,
    testBranchPrefix: vars.TEST_BRANCH_PREFIX,
    publicUrl: (vars.PUBLIC_URL ?? `http://localhost:${vars.PORT}`).replace(/\/+$/, ""),
    testResultsRetentionDays: vars.TEST_RESULTS_RETENTION_DAYS,
    pollIntervalSeconds: vars.POLL_INTERVAL_SECONDS,
    githubTimeoutMs: vars.GITHUB_TIMEOUT_MS,
    logLevel: vars.LOG_LEVEL,
    // Pretty only for a person at a terminal; a pipe, a file or production gets JSON lines.
    logFormat: vars.LOG_FORMAT ?? (stdoutIsTerminal && env.NODE_ENV !== "production" ? "pretty" : "json"),
    apiRateLimitPerMinute: vars.API_RATE_LIMIT_PER_MINUTE ?? null,
    operatorMetrics: vars.OPERATOR_METRICS,
  };
}

/** The rules between the GitHub App's variables, which no one variable's schema can hold. */
function readGitHubApp(input: Env, problems: string[]): GitHubAppCredentials | null {
  const { APP_ID: appId, PRIVATE_KEY_PATH: keyPath } = input;
  let privateKey = input.PRIVATE_KEY;
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
