// What the uploads' checkouts told of a repository (default branch, CODEOWNERS: docs/test-health.md#uploading-results-from-ci): test health
// learns both from the CLI in CI, so that neither an upload nor a read waits on GitHub.
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";
import type { CheckoutFacts } from "../ports/test-health-persistence.ts";

export async function checkoutFacts(db: Kysely<Database>, repositoryId: string): Promise<CheckoutFacts> {
  const row = await db
    .selectFrom("test_health_checkouts")
    .select(["default_branch", "codeowners"])
    .where("repository_id", "=", repositoryId)
    .executeTakeFirst();
  return { defaultBranch: row?.default_branch ?? null, codeowners: row?.codeowners ?? null };
}

/** Records what an upload told; a fact it did not tell (undefined) keeps its stored value. */
export async function saveCheckoutFacts(
  db: Kysely<Database>,
  repositoryId: string,
  facts: { defaultBranch?: string | undefined; codeowners?: string | undefined },
  now: number,
): Promise<void> {
  const told = {
    ...(facts.defaultBranch === undefined ? {} : { default_branch: facts.defaultBranch }),
    ...(facts.codeowners === undefined ? {} : { codeowners: facts.codeowners }),
  };
  if (Object.keys(told).length === 0) return;
  await db
    .insertInto("test_health_checkouts")
    .values({ repository_id: repositoryId, ...told, updated_at: now })
    .onConflict((oc) => oc.column("repository_id").doUpdateSet({ ...told, updated_at: now }))
    .execute();
}
