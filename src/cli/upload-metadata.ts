// What an upload says about the test run (docs/test-health.md#uploading-results-from-ci), from command line flags or else the CI environment
// (GitHub Actions' variables), and where it goes (the service URL and token).
import { resolve } from "node:path";
import type { Command } from "commander";
import { type CiEnvironment, readCiEnvironment } from "./ci-environment.ts";
import { checkoutFacts, checkoutRoot } from "./checkout.ts";
import { CliError } from "./io.ts";
import { RequiredValues } from "./required-values.ts";

/** Flags shared by `switchyard upload` and `switchyard test`. */
export interface UploadOptions {
  junitPaths?: string[];
  url?: string;
  token?: string;
  org?: string;
  repo?: string;
  repoHost?: string;
  commitSha?: string;
  branch?: string;
  prNumber?: string;
  jobName?: string;
  variant?: string;
  runUrl?: string;
  startedAt?: string;
  repoRoot?: string;
  defaultBranch?: string;
}

export interface UploadTarget {
  serviceUrl: string;
  token: string;
  metadata: UploadMetadata;
  /** GITHUB_RUN_ATTEMPT: a re-run of a job is another upload, whatever its reports. */
  runAttempt?: string;
}

/** The fields of an upload request other than the reports. */
export interface UploadMetadata {
  repo: { host: string; owner: string; name: string };
  org_url_slug: string;
  commit_sha: string;
  branch: string;
  pr_number?: number;
  job_name?: string;
  variant?: string;
  run_url?: string;
  started_at?: string;
  repo_root: string;
  /** The repository's default branch, as the checkout (or the flag) tells it. */
  default_branch?: string;
  /** The text of the checkout's CODEOWNERS file, "" when it has none. */
  codeowners?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addUploadOptions(command: Command, junitPaths: "required" | "optional"): Command {
  const globs = "glob(s) of JUnit XML reports, e.g. 'reports/**/*.xml' (repeatable)";
  if (junitPaths === "required") command.requiredOption("--junit-paths <glob...>", globs, collect);
  else command.option("--junit-paths <glob...>", `${globs}; default: common report locations`, collect);
  return command
    .option("--url <url>", "the Switchyard service (env SWITCHYARD_URL)")
    .option("--token <token>", "an API token (env SWITCHYARD_TOKEN)")
    .option("--org <slug>", "the token's organization (env SWITCHYARD_ORG; default: the repository owner)")
    .option("--repo <owner/name>", "the repository (env GITHUB_REPOSITORY)")
    .option(
      "--repo-host <host>",
      "the repository's GitHub host (default: that of GITHUB_SERVER_URL, or github.com)",
    )
    .option("--commit-sha <sha>", "the tested commit (env GITHUB_SHA)")
    .option("--branch <name>", "the tested branch (env GITHUB_HEAD_REF, else GITHUB_REF_NAME)")
    .option("--pr-number <number>", "the pull request (env GITHUB_REF when it is refs/pull/<number>/merge)")
    .option("--job-name <name>", "the CI job (env GITHUB_JOB)")
    .option("--variant <name>", "a variant of the run (OS, runtime…); part of each test's identity")
    .option(
      "--run-url <url>",
      "the CI run's page (default: from GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID)",
    )
    .option(
      "--started-at <time>",
      "when the tests started, ISO 8601 (default: when the service receives them)",
    )
    .option(
      "--default-branch <name>",
      "the repository's default branch (default: from the GitHub Actions event, else the clone's origin/HEAD)",
    )
    .option(
      "--repo-root <dir>",
      "the repository's checkout: reports' absolute file paths below it are sent relative to it " +
        "(default: GITHUB_WORKSPACE, else the git checkout around the current directory)",
    );
}

/**
 * Resolves the service and the metadata from the flags, falling back on the environment (and `checkout`, the
 * repository around the current directory); throws a CliError naming every missing piece and how to give it.
 */
export function resolveUploadTarget(
  options: UploadOptions,
  env: CiEnvironment,
  checkout: string,
): UploadTarget {
  const required = new RequiredValues();
  const { serviceUrl, token, repository } = required.serviceAndRepository(options, env);
  const commitSha = required.need(
    options.commitSha ?? env.GITHUB_SHA,
    "the commit (--commit-sha or GITHUB_SHA)",
  );
  const branch = required.need(
    options.branch ?? env.GITHUB_HEAD_REF ?? env.GITHUB_REF_NAME,
    "the branch (--branch, GITHUB_HEAD_REF or GITHUB_REF_NAME)",
  );
  required.check("upload");

  const { owner, name } = ownerAndName(repository);
  checkServiceUrl(serviceUrl);
  const metadata: UploadMetadata = {
    repo: { host: repoHost(options, env), owner, name },
    org_url_slug: options.org ?? env.SWITCHYARD_ORG ?? owner.toLowerCase(),
    commit_sha: commitSha,
    branch,
    repo_root: resolve(options.repoRoot ?? env.GITHUB_WORKSPACE ?? checkout),
  };
  const prNumber = options.prNumber ?? /^refs\/pull\/(\d+)\/merge$/.exec(env.GITHUB_REF ?? "")?.[1];
  if (prNumber !== undefined) {
    if (!/^[1-9]\d{0,9}$/.test(prNumber))
      throw new CliError(`--pr-number must be a number, got "${prNumber}"`);
    metadata.pr_number = Number(prNumber);
  }
  const jobName = options.jobName ?? env.GITHUB_JOB;
  if (jobName !== undefined) metadata.job_name = jobName;
  if (options.variant !== undefined) metadata.variant = options.variant;
  const runUrl = options.runUrl ?? githubRunUrl(env);
  if (runUrl !== undefined) metadata.run_url = runUrl;
  if (options.startedAt !== undefined) {
    const startedAt = Date.parse(options.startedAt);
    if (Number.isNaN(startedAt))
      throw new CliError(`--started-at must be an ISO 8601 time, got "${options.startedAt}"`);
    metadata.started_at = new Date(startedAt).toISOString();
  }
  const target: UploadTarget = { serviceUrl: serviceUrl.replace(/\/+$/, ""), token, metadata };
  if (env.GITHUB_RUN_ATTEMPT !== undefined) target.runAttempt = env.GITHUB_RUN_ATTEMPT;
  return target;
}

/** The owner and name of `owner/name`; a CliError for anything else. */
export function ownerAndName(repository: string): { owner: string; name: string } {
  const [owner, name, ...rest] = repository.split("/");
  if (owner === undefined || owner === "" || name === undefined || name === "" || rest.length > 0) {
    throw new CliError(`--repo must be owner/name, got "${repository}"`);
  }
  return { owner, name };
}

export function checkServiceUrl(serviceUrl: string): void {
  if (!URL.canParse(serviceUrl))
    throw new CliError(`the service URL must be an absolute URL, got "${serviceUrl}"`);
}

/** The repository's GitHub host: the flag, else that of the CI's GitHub (GITHUB_SERVER_URL), else github.com. */
export function repoHost(options: { repoHost?: string }, env: CiEnvironment): string {
  const serverHost =
    env.GITHUB_SERVER_URL !== undefined && URL.canParse(env.GITHUB_SERVER_URL)
      ? new URL(env.GITHUB_SERVER_URL).hostname
      : undefined;
  return options.repoHost ?? serverHost ?? "github.com";
}

/**
 * resolveUploadTarget for the commands: the CI environment, the checkout around `cwd`, and what that checkout
 * tells of the repository (its default branch and CODEOWNERS, unless the flag names the branch).
 */
export async function uploadTarget(options: UploadOptions, cwd: string): Promise<UploadTarget> {
  const env = readCiEnvironment();
  const target = resolveUploadTarget(options, env, checkoutRoot(cwd));
  const facts = await checkoutFacts(target.metadata.repo_root, env.GITHUB_EVENT_PATH);
  Object.assign(target.metadata, facts);
  if (options.defaultBranch !== undefined) target.metadata.default_branch = options.defaultBranch;
  return target;
}

function githubRunUrl(env: CiEnvironment): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: runId } = env;
  if (server === undefined || repository === undefined || runId === undefined) return undefined;
  return `${server.replace(/\/+$/, "")}/${repository}/actions/runs/${runId}`;
}
