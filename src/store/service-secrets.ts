// Secrets kept in the database, so that every replica sharing it agrees on them. Migration 0002 created the first;
// a secret added since is created on first use, and the row that lands first is the one every replica reads.
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** page_tokens signs the listings' page tokens; browser_sessions the session cookies of the test pages. */
export type SecretName = "page_tokens" | "browser_sessions";

const cache = new WeakMap<Kysely<Database>, Map<SecretName, Promise<Buffer>>>();

/** The named secret as bytes; read once per database connection, since it never changes. */
export function serviceSecret(db: Kysely<Database>, name: SecretName): Promise<Buffer> {
  let secrets = cache.get(db);
  if (secrets === undefined) cache.set(db, (secrets = new Map()));
  let secret = secrets.get(name);
  if (secret === undefined) {
    secret = readOrCreateSecret(db, name).then((text) => Buffer.from(text, "base64url"));
    // A failed read is not remembered: the next request tries again.
    secret.catch(() => secrets.delete(name));
    secrets.set(name, secret);
  }
  return secret;
}

async function readOrCreateSecret(db: Kysely<Database>, name: SecretName): Promise<string> {
  const read = () =>
    db.selectFrom("service_secrets").select("secret").where("name", "=", name).executeTakeFirst();
  const existing = await read();
  if (existing !== undefined) return existing.secret;
  await db
    .insertInto("service_secrets")
    .values({ name, secret: randomBytes(32).toString("base64url"), created_at: Date.now() })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const created = await read();
  if (created === undefined) throw new Error(`the service secret ${name} could not be created`);
  return created.secret;
}
