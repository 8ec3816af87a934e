// Repositories the GitHub App is installed on, remembered from API look-ups and installation webhooks, and those
// test health was told of (no installation needed).
import type { Kysely } from "kysely";
import type { RepositoryRef } from "../ports/github-reads.ts";
import type { Repository } from "../ports/test-case-storage.ts";
import { newId } from "./ids.ts";
import type { Database } from "./schema.ts";

export type { Repository } from "../ports/test-case-storage.ts";

const columns = ["id", "host", "owner", "name", "installation_id as installationId"] as const;

export async function findRepository(
  db: Kysely<Database>,
  ref: RepositoryRef,
): Promise<Repository | undefined> {
  return db
    .selectFrom("repositories")
    .select(columns)
    .where("host", "=", ref.host.toLowerCase())
    .where("owner_key", "=", ref.owner.toLowerCase())
    .where("name_key", "=", ref.name.toLowerCase())
    .executeTakeFirst();
}

/**
 * The repository with the time its installation was last learned (from a webhook or a look-up): a row's
 * `updated_at` changes only when its installation does, or is confirmed.
 */
export async function findRepositoryInstallation(
  db: Kysely<Database>,
  ref: RepositoryRef,
): Promise<(Repository & { installationLearnedAt: number }) | undefined> {
  return db
    .selectFrom("repositories")
    .select([...columns, "updated_at as installationLearnedAt"])
    .where("host", "=", ref.host.toLowerCase())
    .where("owner_key", "=", ref.owner.toLowerCase())
    .where("name_key", "=", ref.name.toLowerCase())
    .executeTakeFirst();
}

/** GitHub says the app is no longer installed on the repository: its row and queues stay, without installation. */
export async function forgetRepositoryInstallation(
  db: Kysely<Database>,
  repository: Repository,
  now: number,
): Promise<void> {
  await db
    .updateTable("repositories")
    .set({ installation_id: null, updated_at: now })
    .where("id", "=", repository.id)
    .execute();
}

/**
 * The repository a request names, recorded the first time as the request spells it and without an installation:
 * test health needs no GitHub App (an installation found later is recorded on the same row).
 */
export async function recordRepository(
  db: Kysely<Database>,
  ref: RepositoryRef,
  now: number,
): Promise<Repository> {
  const known = await findRepository(db, ref);
  if (known !== undefined) return known;
  await db
    .insertInto("repositories")
    .values({
      id: newId(),
      host: ref.host.toLowerCase(),
      owner: ref.owner,
      name: ref.name,
      owner_key: ref.owner.toLowerCase(),
      name_key: ref.name.toLowerCase(),
      installation_id: null,
      created_at: now,
      updated_at: now,
    })
    // Another request (or replica) may record it at the same time: either row is the one.
    .onConflict((oc) => oc.columns(["host", "owner_key", "name_key"]).doNothing())
    .execute();
  return (await findRepository(db, ref)) as Repository;
}

/** Records (or moves) a repository to an installation; GitHub's spelling of owner and name is kept. */
export async function rememberRepository(
  db: Kysely<Database>,
  ref: RepositoryRef & { installationId: number },
  now: number,
): Promise<Repository> {
  const host = ref.host.toLowerCase();
  await db
    .insertInto("repositories")
    .values({
      id: newId(),
      host,
      owner: ref.owner,
      name: ref.name,
      owner_key: ref.owner.toLowerCase(),
      name_key: ref.name.toLowerCase(),
      installation_id: ref.installationId,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(["host", "owner_key", "name_key"]).doUpdateSet({
        owner: ref.owner,
        name: ref.name,
        installation_id: ref.installationId,
        updated_at: now,
      }),
    )
    .execute();
  return (await findRepository(db, { ...ref, host })) as Repository;
}

/**
 * The app was uninstalled, or repositories were removed from its installation. The rows (and their queues)
 * stay, marked as not installed, so a reinstall finds its queues again.
 */
export async function forgetInstallation(
  db: Kysely<Database>,
  installationId: number,
  refs: RepositoryRef[] | undefined,
  now: number,
): Promise<void> {
  let query = db
    .updateTable("repositories")
    .set({ installation_id: null, updated_at: now })
    .where("installation_id", "=", installationId);
  if (refs !== undefined) {
    if (refs.length === 0) return;
    query = query.where((eb) =>
      eb.or(
        refs.map((ref) =>
          eb.and([
            eb("host", "=", ref.host.toLowerCase()),
            eb("owner_key", "=", ref.owner.toLowerCase()),
            eb("name_key", "=", ref.name.toLowerCase()),
          ]),
        ),
      ),
    );
  }
  await query.execute();
}
