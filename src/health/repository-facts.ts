// What test health needs to know about a repository beyond its results: its stable branches (contract 7.3) and
// its code owners (7.5). GitHub answers the first half (src/github/repository-facts.ts), the queues the rest.
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.ts";
import type { Repository } from "../store/repositories.ts";
import { stableBranchesOf } from "./classification.ts";
import type { Codeowners } from "./codeowners.ts";

export interface RepositoryFacts {
  /** The default branch as GitHub reports it; null while it is unknown (GitHub unreachable, app uninstalled). */
  defaultBranch(repository: Repository): Promise<string | null>;
  /** The rules of the repository's CODEOWNERS file; none when it has none or it cannot be read. */
  codeowners(repository: Repository): Promise<Codeowners>;
}

/** contract 7.3: the default branch (`main` while unknown) and the target branch of each of the repo's queues. */
export async function stableBranches(
  db: Kysely<Database>,
  facts: RepositoryFacts,
  repository: Repository,
): Promise<Set<string>> {
  const [defaultBranch, queues] = await Promise.all([
    facts.defaultBranch(repository),
    db.selectFrom("queues").select("branch").where("repository_id", "=", repository.id).execute(),
  ]);
  return stableBranchesOf(
    defaultBranch,
    queues.map((queue) => queue.branch),
  );
}
