// The repository facts test health reads from GitHub through the installation (contract 7.3 default branch, 7.5
// CODEOWNERS), cached: an upload or a listing must not wait on GitHub each time, nor fail when GitHub does.
import type { Probot } from "probot";
import { CODEOWNERS_PATHS, type Codeowners, parseCodeowners } from "../health/codeowners.ts";
import type { RepositoryFacts } from "../health/repository-facts.ts";
import type { Repository } from "../store/repositories.ts";

/** How long an answer from GitHub is used before asking again. */
const FRESH_MS = 10 * 60 * 1000;
/** How long the fallback stands in after GitHub failed, so that an outage does not slow every request down. */
const FALLBACK_MS = 60 * 1000;

interface Cached<T> {
  value: Promise<T>;
  until: number;
}

/** Remembers each answer per repository; a look-up in flight is shared by the requests that need it. */
class FactCache<T> {
  private readonly entries = new Map<string, Cached<T>>();

  constructor(private readonly clock: () => number) {}

  get(
    repositoryId: string,
    lookUp: () => Promise<T>,
    fallback: T,
    onFailure: (error: unknown) => void,
  ): Promise<T> {
    const now = this.clock();
    const cached = this.entries.get(repositoryId);
    if (cached !== undefined && cached.until > now) return cached.value;
    const entry: Cached<T> = {
      until: now + FRESH_MS,
      value: lookUp().catch((error: unknown) => {
        onFailure(error);
        entry.until = this.clock() + FALLBACK_MS;
        return fallback;
      }),
    };
    this.entries.set(repositoryId, entry);
    return entry.value;
  }
}

const isNotFound = (error: unknown) => (error as { status?: number }).status === 404;

export function githubRepositoryFacts(app: Probot, clock: () => number): RepositoryFacts {
  const defaultBranches = new FactCache<string | null>(clock);
  const codeowners = new FactCache<Codeowners>(clock);
  const installationOf = (repository: Repository) => {
    if (repository.installationId === null) {
      throw new Error(`the app is not installed on ${repository.owner}/${repository.name}`);
    }
    return app.auth(repository.installationId);
  };
  const warn = (repository: Repository, what: string) => (error: unknown) =>
    app.log.warn(
      { err: error, repo: `${repository.owner}/${repository.name}` },
      `could not read ${what} from GitHub`,
    );

  return {
    defaultBranch(repository) {
      return defaultBranches.get(
        repository.id,
        async () => {
          const octokit = await installationOf(repository);
          const { data } = await octokit.rest.repos.get({ owner: repository.owner, repo: repository.name });
          return data.default_branch;
        },
        null,
        warn(repository, "the default branch"),
      );
    },

    codeowners(repository) {
      return codeowners.get(
        repository.id,
        async () => {
          const octokit = await installationOf(repository);
          // GitHub uses the first of these files that exists (docs.github.com, "About code owners").
          for (const path of CODEOWNERS_PATHS) {
            try {
              const response = await octokit.rest.repos.getContent({
                owner: repository.owner,
                repo: repository.name,
                path,
                mediaType: { format: "raw" },
              });
              // The raw media type answers with the file's text rather than the JSON description Octokit types.
              const text: unknown = response.data;
              return parseCodeowners(typeof text === "string" ? text : "");
            } catch (error) {
              if (!isNotFound(error)) throw error;
            }
          }
          return parseCodeowners("");
        },
        parseCodeowners(""),
        warn(repository, "CODEOWNERS"),
      );
    },
  };
}
