// The environment of the client commands (upload, test, set-impacted-targets), which run in CI and not on the
// server: the service to talk to, and GitHub Actions' description of the run. The server's own variables are in
// src/config.ts; both are documented in .env.example.
type Env = Record<string, string | undefined>;

/** Every variable of a CiEnvironment, so that tests can clear them all. */
export const ciVariables = [
  "SWITCHYARD_URL",
  "SWITCHYARD_TOKEN",
  "SWITCHYARD_ORG",
  "GITHUB_SHA",
  "GITHUB_REF",
  "GITHUB_REF_NAME",
  "GITHUB_HEAD_REF",
  "GITHUB_BASE_REF",
  "GITHUB_JOB",
  "GITHUB_SERVER_URL",
  "GITHUB_REPOSITORY",
  "GITHUB_RUN_ID",
  "GITHUB_RUN_ATTEMPT",
  "GITHUB_WORKSPACE",
  "GITHUB_EVENT_PATH",
] as const;

/** The variables the client commands read: the service to talk to, and the CI run. */
export type CiEnvironment = Partial<Record<(typeof ciVariables)[number], string>>;

/** Reads the client commands' variables (blank ones count as unset); flags given on the command line win. */
export function readCiEnvironment(env: Env = process.env): CiEnvironment {
  const values: CiEnvironment = {};
  for (const name of ciVariables) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== "") values[name] = value;
  }
  return values;
}
