import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

export type Targets = readonly string[] | "ALL";

export async function saveImpactedTargets(
  db: Kysely<Database>,
  entry: { queueId: string; prNumber: number; headSha: string; targets: Targets },
  now: number,
): Promise<void> {
  const values = { head_sha: entry.headSha, targets: JSON.stringify(entry.targets), updated_at: now };
  await db
    .insertInto("impacted_targets")
    .values({ ...values, queue_id: entry.queueId, pr_number: entry.prNumber })
    .onConflict((oc) => oc.columns(["queue_id", "pr_number"]).doUpdateSet(values))
    .execute();
}

/** The targets uploaded for this head of the PR, if any. */
export async function findImpactedTargets(
  db: Kysely<Database>,
  queueId: string,
  prNumber: number,
  headSha: string,
): Promise<Targets | undefined> {
  const row = await db
    .selectFrom("impacted_targets")
    .select("targets")
    .where("queue_id", "=", queueId)
    .where("pr_number", "=", prNumber)
    .where("head_sha", "=", headSha)
    .executeTakeFirst();
  return row === undefined ? undefined : (JSON.parse(row.targets) as Targets);
}
