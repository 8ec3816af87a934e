import { createHash } from "node:crypto";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { runCli } from "../../src/cli/program.ts";
import { authenticate } from "../../src/store/tokens.ts";
import { openMigratedDatabase } from "../../src/store/database.ts";

const execFileAsync = promisify(execFile);

describe("switchyard token", () => {
  let dir: string;
  let databaseUrl: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "switchyard-cli-"));
    databaseUrl = `file:${join(dir, "cli.db")}`;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function cli(...argv: string[]) {
    let out = "";
    let err = "";
    const code = await runCli(argv, {
      out: (text) => (out += text),
      err: (text) => (err += text),
      config: () => loadConfig({ DATABASE_URL: databaseUrl }),
      now: () => Date.parse("2026-11-21T10:00:00.000Z"),
    });
    return { code, out, err };
  }

  it("create prints the token alone on stdout, and the token authenticates", async () => {
    const { code, out, err } = await cli(
      "token",
      "create",
      "--org",
      "acme",
      "--owner",
      "acme",
      "--owner",
      "acme-labs",
    );
    expect(code).toBe(0);
    expect(out).toMatch(/^sy_[0-9a-f]{16}_[A-Za-z0-9_-]{43}\n$/);
    expect(err).toContain("for organization acme (owners on github.com)");
    expect(err).toContain("not shown again");
    const store = await openMigratedDatabase(databaseUrl);
    const principal = await authenticate(store.db, out.trim(), Date.now());
    await store.close();
    expect(principal?.organizationSlug).toBe("acme");
    expect(principal?.owners.map((o) => o.ownerKey).sort()).toEqual(["acme", "acme-labs"]);
  });

  it("list shows tokens without secrets, and revoke marks them revoked", async () => {
    const created = (await cli("token", "create", "--org", "acme", "--name", "ci")).out.trim();
    const id = created.split("_")[1] as string;
    const listed = await cli("token", "list");
    expect(listed.out).toContain(id);
    expect(listed.out).toContain("active");
    expect(listed.out).not.toContain(created.split("_").slice(2).join("_"));

    expect(await cli("token", "revoke", id)).toMatchObject({ code: 0, out: `revoked token ${id}\n` });
    const json = JSON.parse((await cli("token", "list", "--json", "--org", "acme")).out);
    expect(json).toEqual([
      expect.objectContaining({
        id,
        organization: "acme",
        name: "ci",
        revokedAt: Date.parse("2026-11-21T10:00:00.000Z"),
      }),
    ]);
    // The public id and the token's facts, never the secret nor its stored hash.
    expect(Object.keys(json[0]).sort()).toEqual([
      "createdAt",
      "id",
      "lastUsedAt",
      "name",
      "organization",
      "revokedAt",
    ]);
    const secret = created.split("_").slice(2).join("_");
    const hash = createHash("sha256").update(secret).digest("hex");
    expect(listed.out).not.toContain(hash);
  });

  it("revoking an unknown token fails with exit code 1 and says how to find ids", async () => {
    const { code, err } = await cli("token", "revoke", "0123456789abcdef");
    expect(code).toBe(1);
    expect(err).toBe("error: no token with id 0123456789abcdef; see `switchyard token list`\n");
  });

  it("an invalid organization slug fails with a clear message", async () => {
    const { code, err } = await cli("token", "create", "--org", "not a slug");
    expect(code).toBe(1);
    expect(err).toContain("is not a valid organization slug");
  });

  it("create without --org is a usage error", async () => {
    const { code, err } = await cli("token", "create");
    expect(code).toBe(1);
    expect(err).toContain("required option '--org <slug>' not specified");
  });

  it("migrate reports that the database is up to date on a second run", async () => {
    expect((await cli("migrate")).out).toMatch(/^applied 0001_foundation, .*\n$/);
    expect((await cli("migrate")).out).toBe("database is up to date\n");
  });

  // Each call starts a process that compiles the tool with tsx (1.5 s alone, far more on a busy CI machine).
  it("the installed executable answers --help on every command", { timeout: 90_000 }, async () => {
    const bin = join(import.meta.dirname, "../../src/cli/switchyard.js");
    for (const args of [
      ["--help"],
      ["token", "--help"],
      ["token", "create", "--help"],
      ["migrate", "--help"],
    ]) {
      const { stdout } = await execFileAsync(process.execPath, [bin, ...args], {
        env: { ...process.env, DATABASE_URL: databaseUrl },
      });
      expect(stdout).toMatch(/^Usage: switchyard/);
    }
  });
});
