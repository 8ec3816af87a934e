// switchyard token create|list|revoke (docs/api.md#tokens-and-organizations, docs/cli.md#commands).
import type { Command } from "commander";
import { openMigratedDatabase, type Store } from "../store/database.ts";
import {
  createToken,
  InvalidOrganizationError,
  listTokens,
  revokeToken,
  type TokenSummary,
} from "../store/tokens.ts";
import { CliError, type CliContext } from "./io.ts";

async function withStore<T>(context: CliContext, action: (store: Store) => Promise<T>): Promise<T> {
  const store = await openMigratedDatabase(context.config().databaseUrl);
  try {
    return await action(store);
  } catch (error) {
    if (error instanceof InvalidOrganizationError) throw new CliError(error.message);
    throw error;
  } finally {
    await store.close();
  }
}

const collect = (value: string, previous: string[]) => [...previous, value];
const time = (epochMs: number | null) => (epochMs === null ? "-" : new Date(epochMs).toISOString());

function formatTable(tokens: TokenSummary[]): string {
  const rows = [
    ["ID", "ORGANIZATION", "NAME", "CREATED", "LAST USED", "STATUS"],
    ...tokens.map((t) => [
      t.id,
      t.organization,
      t.name ?? "-",
      time(t.createdAt),
      time(t.lastUsedAt),
      t.revokedAt === null ? "active" : `revoked ${time(t.revokedAt)}`,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

export function registerTokenCommands(program: Command, context: CliContext): void {
  const token = program.command("token").description("create, list and revoke API tokens");

  token
    .command("create")
    .description("create an API token for an organization and print it (it is shown only this once)")
    .requiredOption(
      "--org <slug>",
      "the organization the token belongs to (by default also its GitHub owner login)",
    )
    .option("--owner <login>", "a GitHub owner the organization covers (repeatable)", collect, [])
    .option("--name <label>", "a label to recognise the token by in `token list`")
    .action(async (options: { org: string; owner: string[]; name?: string }) => {
      const config = context.config();
      const created = await withStore(context, (store) =>
        createToken(store.db, {
          organization: options.org,
          owners: options.owner,
          host: config.githubHost,
          name: options.name,
          now: context.now(),
        }),
      );
      context.out(`${created.token}\n`);
      context.err(
        `created token ${created.id} for organization ${options.org.toLowerCase()} (owners on ${config.githubHost}); ` +
          "store it now, it is not shown again\n",
      );
    });

  token
    .command("list")
    .description("list API tokens (never their secrets)")
    .option("--org <slug>", "only the tokens of this organization")
    .option("--json", "print JSON instead of a table")
    .action(async (options: { org?: string; json?: boolean }) => {
      const tokens = await withStore(context, (store) => listTokens(store.db, options.org));
      context.out(options.json ? `${JSON.stringify(tokens, null, 2)}\n` : `${formatTable(tokens)}\n`);
    });

  token
    .command("revoke")
    .description("revoke an API token: requests with it are refused from now on")
    .argument("<id>", "the token id shown by `token list`")
    .action(async (id: string) => {
      const found = await withStore(context, (store) => revokeToken(store.db, id, context.now()));
      if (!found) throw new CliError(`no token with id ${id}; see \`switchyard token list\``);
      context.out(`revoked token ${id}\n`);
    });
}
