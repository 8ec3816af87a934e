// Counts the statements (round trips) a service process sends to PostgreSQL, by their SQL with the values left out,
// and writes the counts to /tmp/pg-statements-<pid>.txt when the process exits. Only the service (dist/src/main.js)
// counts; the benchmark, the sender and the bare baseline do not. For example, for the webhook load:
//   NODE_OPTIONS="--import tsx --import ./test/bench/count-pg-statements.ts" TEST_DATABASE_URL=… \
//     npm run bench:queue -- --webhooks
// Divided by the deliveries a run sent (the warm-up's and the bursts'), it gives the round trips per delivery; the
// sizes say what the service sends (values inlined in a simple query count in its text, parameters do not). A
// counting run is not a timing run: tsx's loader then runs in the service process too.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type * as pgModule from "pg";

if (process.argv.some((argument) => argument.endsWith("dist/src/main.js"))) {
  const pg = createRequire(join(process.cwd(), "package.json"))("pg") as typeof pgModule;
  const counts = new Map<string, { count: number; bytes: number }>();
  let total = 0;
  let totalBytes = 0;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: unknown, config: unknown, ...rest: unknown[]) {
    const text = String(typeof config === "string" ? config : (config as { text?: string } | null)?.text);
    const shape = text
      .replace(/\s+/g, " ")
      .replace(/'(?:[^']|'')*'/g, "'…'")
      .replace(/\(\$\d+(, \$\d+)*\)(, \(\$\d+(, \$\d+)*\))*/g, "(…)")
      .slice(0, 160);
    const counted = counts.get(shape) ?? { count: 0, bytes: 0 };
    counts.set(shape, counted);
    counted.count++;
    counted.bytes += Buffer.byteLength(text);
    total++;
    totalBytes += Buffer.byteLength(text);
    return query.call(this, config, ...rest);
  } as typeof pg.Client.prototype.query;
  process.on("exit", () => {
    const lines = [...counts]
      .sort((a, b) => b[1].count - a[1].count)
      .map(([shape, { count, bytes }]) => `${count}\t${Math.round(bytes / count)} B\t${shape}`);
    const header = `${total} statements, ${Math.round(totalBytes / 1024)} KiB of SQL text (count, mean size, shape)`;
    writeFileSync(`/tmp/pg-statements-${process.pid}.txt`, `${header}\n${lines.join("\n")}\n`);
  });
}
