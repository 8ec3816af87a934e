// The baseline of npm run bench:queue's webhook figures: a bare Fastify 5 server, logging off, doing the least a
// webhook endpoint must do with each of the same deliveries: read the body, check its HMAC signature, parse the JSON,
// then, in mode `record` (deliveries that change a queue), record the delivery id durably (an insert, ignored when
// the id is known: GitHub redelivers), or in mode `look` (deliveries that change nothing, as most of CI's do), read
// one row by key (whom the commit concerns), and answer 200. No queue, no state, no GitHub. Records that arrive
// while a commit is in flight are committed together by the next one (group commit, one statement), as the service
// commits a queue's deliveries that arrive during a step together: the least a round trip and a commit can cost. Run as a child process, as the service is:
//   PORT=<port> node --import tsx test/bench/bare-webhooks.ts <database URL> <webhook secret> record|look
// on a SQLite file (better-sqlite3, the service's pragmas) or PostgreSQL (pg, a pool of 10 as the service's).
import { createHmac, timingSafeEqual } from "node:crypto";
import SQLite from "better-sqlite3";
import Fastify from "fastify";
import pg from "pg";

const [databaseUrl, secret, mode] = process.argv.slice(2) as [string, string, "record" | "look"];

const table = "bare_webhook_deliveries";
const createTable = `create table if not exists ${table} (id text primary key, event text not null, received_at bigint not null)`;

type Row = [id: string, event: string, receivedAt: number];

/** Commits `rows` in one statement, and reads the row of a key. */
async function database(): Promise<{
  commit: (rows: readonly Row[]) => Promise<void>;
  look: (id: string) => Promise<unknown>;
}> {
  const values = (rows: readonly Row[], placeholder: (n: number) => string) =>
    rows.map((_, r) => `(${[0, 1, 2].map((c) => placeholder(3 * r + c + 1)).join(", ")})`).join(", ");
  const insert = (list: string) => `insert into ${table} values ${list} on conflict (id) do nothing`;
  if (databaseUrl.startsWith("file:")) {
    const sqlite = new SQLite(databaseUrl.slice("file:".length));
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = NORMAL");
    sqlite.exec(createTable);
    const select = sqlite.prepare(`select event from ${table} where id = ?`);
    return {
      commit: async (rows) => void sqlite.prepare(insert(values(rows, () => "?"))).run(rows.flat()),
      look: async (id) => select.get(id),
    };
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(createTable);
  return {
    commit: async (rows) => void (await pool.query(insert(values(rows, (n) => `$${n}`)), rows.flat())),
    look: async (id) =>
      (await pool.query({ name: "look", text: `select event from ${table} where id = $1`, values: [id] }))
        .rows[0],
  };
}

const { commit, look } = await database();
let waiting: { row: Row; done: () => void; failed: (error: unknown) => void }[] = [];
let committing = false;

/** Commits what waits, then what arrived meanwhile, until nothing waits. */
async function commitWaiting(): Promise<void> {
  committing = true;
  while (waiting.length > 0) {
    const batch = waiting;
    waiting = [];
    try {
      await commit(batch.map((entry) => entry.row));
      for (const entry of batch) entry.done();
    } catch (error) {
      for (const entry of batch) entry.failed(error);
    }
  }
  committing = false;
}

function record(id: string, event: string): Promise<void> {
  return new Promise((done, failed) => {
    waiting.push({ row: [id, event, Date.now()], done, failed });
    if (!committing) void commitWaiting();
  });
}
const server = Fastify();
server.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
  done(null, body),
);
server.get("/ping", async () => "pong");
server.post("/api/github/webhooks", async (request, reply) => {
  const body = request.body as Buffer;
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(body).digest("hex")}`);
  const given = Buffer.from(String(request.headers["x-hub-signature-256"] ?? ""));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return reply.code(401).send();
  const payload = JSON.parse(body.toString("utf8")) as { action?: string };
  const event = String(request.headers["x-github-event"]);
  const id = String(request.headers["x-github-delivery"]);
  if (mode === "record") await record(id, payload.action ? `${event}.${payload.action}` : event);
  else await look(id);
  return reply.type("text/plain").send("ok");
});
await server.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
