import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  authenticate,
  createToken,
  listTokens,
  principalOfToken,
  revokeToken,
} from "../../src/store/tokens.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";

describe.each(testDialects)("API tokens on %s", (dialect) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createTestStore(dialect);
  });
  afterEach(async () => {
    await store.destroy();
  });

  it("a created token authenticates as its organization, which covers the owner of the same login", async () => {
    const { id, token } = await createToken(store.db, {
      organization: "Acme",
      owners: [],
      host: "github.com",
      now: 1,
    });
    expect(token).toMatch(/^sy_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const principal = await authenticate(store.db, token, 2);
    expect(principal).toEqual({
      tokenId: id,
      organizationId: expect.any(String),
      organizationSlug: "acme",
      owners: [{ host: "github.com", ownerKey: "acme" }],
    });
  });

  it("stores only a hash of the secret", async () => {
    const { token } = await createToken(store.db, {
      organization: "acme",
      owners: [],
      host: "github.com",
      now: 1,
    });
    const secret = token.split("_").slice(2).join("_");
    const rows = await store.db.selectFrom("api_tokens").selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(secret);
  });

  it("a second token of the same organization adds the owners it names", async () => {
    await createToken(store.db, { organization: "acme", owners: [], host: "github.com", now: 1 });
    const { token } = await createToken(store.db, {
      organization: "acme",
      owners: ["acme-labs"],
      host: "github.com",
      now: 2,
    });
    const principal = await authenticate(store.db, token, 3);
    expect(principal?.owners.map((o) => o.ownerKey).sort()).toEqual(["acme", "acme-labs"]);
  });

  it("a revoked token no longer authenticates, and revoking twice keeps the first time", async () => {
    const { id, token } = await createToken(store.db, {
      organization: "acme",
      owners: [],
      host: "github.com",
      now: 1,
    });
    // A browser session names the token by its id alone.
    expect(await principalOfToken(store.db, id)).toEqual(await authenticate(store.db, token, 5));
    expect(await revokeToken(store.db, id, 10)).toBe(true);
    expect(await revokeToken(store.db, id, 20)).toBe(true);
    expect(await authenticate(store.db, token, 30)).toBeNull();
    expect(await principalOfToken(store.db, id)).toBeNull();
    expect((await listTokens(store.db))[0]?.revokedAt).toBe(10);
    expect(await revokeToken(store.db, "0000000000000000", 40)).toBe(false);
  });

  it("a token with a wrong secret does not authenticate, even once the right one was verified", async () => {
    const { token } = await createToken(store.db, {
      organization: "acme",
      owners: [],
      host: "github.com",
      now: 1,
    });
    const wrong = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    expect(await authenticate(store.db, wrong, 2)).toBeNull();
    // The second check of the right secret is answered from memory; the wrong one must not be.
    expect(await authenticate(store.db, token, 3)).not.toBeNull();
    expect(await authenticate(store.db, token, 4)).not.toBeNull();
    expect(await authenticate(store.db, wrong, 5)).toBeNull();
    expect(await authenticate(store.db, token, 6)).not.toBeNull();
    expect(await authenticate(store.db, "", 2)).toBeNull();
  });

  it("lists tokens with their organization and use, filtered by organization", async () => {
    const a = await createToken(store.db, {
      organization: "acme",
      owners: [],
      host: "github.com",
      name: "ci",
      now: 1,
    });
    await createToken(store.db, { organization: "globex", owners: [], host: "github.com", now: 2 });
    await authenticate(store.db, a.token, 5);
    expect(await listTokens(store.db, "ACME")).toEqual([
      { id: a.id, organization: "acme", name: "ci", createdAt: 1, lastUsedAt: 5, revokedAt: null },
    ]);
    expect(await listTokens(store.db)).toHaveLength(2);
  });

  it("refuses an organization slug that is not a GitHub login", async () => {
    await expect(
      createToken(store.db, { organization: "no spaces", owners: [], host: "github.com", now: 1 }),
    ).rejects.toThrow(/not a valid organization slug/);
    expect(await store.db.selectFrom("organizations").selectAll().execute()).toEqual([]);
  });
});
