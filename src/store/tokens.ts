// API tokens (docs/api.md#tokens-and-organizations): random, shown once, stored as a hash, compared in constant time, revocable.
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import { ContentMemo } from "./content-mark.ts";
import { newId } from "./ids.ts";
import { preparedQuery } from "./prepared-query.ts";
import type { Database } from "./schema.ts";
import type { Owner, Principal } from "../ports/api-tokens.ts";
export type { Owner, Principal } from "../ports/api-tokens.ts";

const tokenPattern = /^sy_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const orgSlugPattern = /^[a-z0-9](?:[a-z0-9-]{0,38})$/;
/** Writing last_used_at on every request would serialise reads behind SQLite's single writer. */
const lastUsedResolutionMs = 60_000;

export interface TokenSummary {
  id: string;
  organization: string;
  name: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export class InvalidOrganizationError extends Error {}

function hashSecret(secret: string): string {
  return hash("sha256", secret, "hex");
}

export function normaliseOrgSlug(slug: string): string {
  const key = slug.trim().toLowerCase();
  if (!orgSlugPattern.test(key)) {
    throw new InvalidOrganizationError(
      `"${slug}" is not a valid organization slug: use letters, digits and hyphens (a GitHub login)`,
    );
  }
  return key;
}

/**
 * Creates a token for an organization, creating the organization on first use. A new organization covers
 * the GitHub owner of the same login on `host` unless `owners` name others; given owners are added to an
 * existing organization.
 */
export async function createToken(
  db: Kysely<Database>,
  options: { organization: string; owners: string[]; host: string; name?: string | undefined; now: number },
): Promise<{ id: string; token: string }> {
  const slug = normaliseOrgSlug(options.organization);
  const owners = options.owners.map(normaliseOrgSlug);
  const id = randomBytes(8).toString("hex");
  const secret = randomBytes(32).toString("base64url");

  await db.transaction().execute(async (trx) => {
    let organization = await trx
      .selectFrom("organizations")
      .select("id")
      .where("slug", "=", slug)
      .executeTakeFirst();
    if (organization === undefined) {
      organization = { id: newId() };
      await trx
        .insertInto("organizations")
        .values({ id: organization.id, slug, created_at: options.now })
        .execute();
      if (owners.length === 0) owners.push(slug);
    }
    for (const ownerKey of owners) {
      await trx
        .insertInto("organization_owners")
        .values({ organization_id: organization.id, host: options.host, owner_key: ownerKey })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    await trx
      .insertInto("api_tokens")
      .values({
        id,
        organization_id: organization.id,
        name: options.name ?? null,
        secret_hash: hashSecret(secret),
        created_at: options.now,
      })
      .execute();
  });
  return { id, token: `sy_${id}_${secret}` };
}

export async function authenticate(
  db: Kysely<Database>,
  presented: string,
  now: number,
): Promise<Principal | null> {
  const match = tokenPattern.exec(presented);
  if (match === null) return null;
  const [, id, secret] = match as unknown as [string, string, string];
  const token = await activeToken(db, id);
  if (token === undefined) return null;
  const presentedSecret = Buffer.from(secret);
  const verified = verifiedSecrets.get(token);
  if (verified === undefined || !timingSafeEqual(verified, presentedSecret)) {
    if (!timingSafeEqual(token.secretHash, hash("sha256", secret, "buffer"))) return null;
    verifiedSecrets.set(token, presentedSecret);
  }

  if (token.lastUsedAt === null || now - token.lastUsedAt >= lastUsedResolutionMs) {
    await db.updateTable("api_tokens").set({ last_used_at: now }).where("id", "=", id).execute();
  }
  return token.principal;
}

/**
 * The principal of a token named by its id alone, as a browser session names it (the session vouches for the
 * secret); null once the token is revoked or gone.
 */
export async function principalOfToken(db: Kysely<Database>, id: string): Promise<Principal | null> {
  return (await activeToken(db, id))?.principal ?? null;
}

/** The token with its organization's owners, in one query: every API request reads it. */
const tokenRows = preparedQuery((db, tokenId: string) =>
  db
    .selectFrom("api_tokens")
    .innerJoin("organizations", "organizations.id", "api_tokens.organization_id")
    .leftJoin("organization_owners", "organization_owners.organization_id", "organizations.id")
    .select([
      "api_tokens.secret_hash",
      "api_tokens.revoked_at",
      "api_tokens.last_used_at",
      "organizations.id as organizationId",
      "organizations.slug as organizationSlug",
      "organization_owners.host",
      "organization_owners.owner_key as ownerKey",
    ])
    .where("api_tokens.id", "=", tokenId),
);

/**
 * The secret each token read was last verified with, so that the next request presenting it is compared with it
 * instead of hashed again (the hash was the costliest part of a read answered from memory). It lives as long as
 * activeTokens keeps the token's value: a revocation or any other write drops both. The secrets match the token
 * pattern, so the two always have the same length, as timingSafeEqual requires.
 */
const verifiedSecrets = new WeakMap<object, Buffer>();

/** Tokens read, kept while the database is unchanged: a revocation or any other write drops them all. */
const activeTokens = new ContentMemo<Awaited<ReturnType<typeof readActiveToken>>>(1024);

function activeToken(db: Kysely<Database>, tokenId: string) {
  return activeTokens.get(db, tokenId, () => readActiveToken(db, tokenId));
}

async function readActiveToken(db: Kysely<Database>, tokenId: string) {
  const rows = await tokenRows(db, tokenId);
  const row = rows[0];
  if (row === undefined || row.revoked_at !== null) return undefined;
  const owners: Owner[] = [];
  for (const { host, ownerKey } of rows) {
    if (host !== null && ownerKey !== null) owners.push({ host, ownerKey });
  }
  const { organizationId, organizationSlug } = row;
  const principal: Principal = { tokenId, organizationId, organizationSlug, owners };
  // As bytes, ready to compare with each request's hash (the value is kept by activeTokens).
  return { secretHash: Buffer.from(row.secret_hash, "hex"), lastUsedAt: row.last_used_at, principal };
}

export async function listTokens(db: Kysely<Database>, organization?: string): Promise<TokenSummary[]> {
  let query = db
    .selectFrom("api_tokens")
    .innerJoin("organizations", "organizations.id", "api_tokens.organization_id")
    .select([
      "api_tokens.id",
      "organizations.slug as organization",
      "api_tokens.name",
      "api_tokens.created_at as createdAt",
      "api_tokens.last_used_at as lastUsedAt",
      "api_tokens.revoked_at as revokedAt",
    ])
    .orderBy("api_tokens.created_at")
    .orderBy("api_tokens.id");
  if (organization !== undefined)
    query = query.where("organizations.slug", "=", normaliseOrgSlug(organization));
  return query.execute();
}

/** Returns false when no token has that id; revoking a revoked token keeps its first revocation time. */
export async function revokeToken(db: Kysely<Database>, id: string, now: number): Promise<boolean> {
  const token = await db
    .selectFrom("api_tokens")
    .select("revoked_at")
    .where("id", "=", id)
    .executeTakeFirst();
  if (token === undefined) return false;
  if (token.revoked_at === null) {
    await db.updateTable("api_tokens").set({ revoked_at: now }).where("id", "=", id).execute();
  }
  return true;
}
