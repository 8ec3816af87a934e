// Secrets created with the database (migration 0002), so that every replica sharing it agrees on them.
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

export type SecretName = "page_tokens";

const cache = new WeakMap<Kysely<Database>, Map<SecretName, Promise<Buffer>>>();

/** The named secret as bytes; read once per database connection, since it never changes. */
export function serviceSecret(db: Kysely<Database>, name: SecretName): Promise<Buffer> {
  let secrets = cache.get(db);
  if (secrets === undefined) cache.set(db, (secrets = new Map()));
  let secret = secrets.get(name);
  if (secret === undefined) {
    secret = db
      .selectFrom("service_secrets")
      .select("secret")
      .where("name", "=", name)
      .executeTakeFirstOrThrow()
      .then((row) => Buffer.from(row.secret, "base64url"));
    // A failed read is not remembered: the next request tries again.
    secret.catch(() => secrets.delete(name));
    secrets.set(name, secret);
  }
  return secret;
}
