// The baselines of npm run bench:upload, each run as its own process so that it is measured the way the service is:
//   parse <report>              a bare saxes parse of the report, read from the file in 64 KiB chunks, building one
//                               record per test case (suite, class, name, time, outcome, failure message)
//   insert <report> <database>  the same records' rows (test_results, and test_failures for the failed ones) written
//                               into the service's own schema (migrated) with one prepared better-sqlite3 statement
//                               per table in one transaction; the parse before it is not timed
// It prints one JSON line: { results, ms, cpuMs } of the timed part.
import { createReadStream } from "node:fs";
import SQLite from "better-sqlite3";
import { SaxesParser } from "saxes";
import { openMigratedDatabase, sqlitePath } from "../../src/store/database.ts";

interface TestRecord {
  suite: string;
  classname: string;
  name: string;
  time: number;
  outcome: "passed" | "failed" | "skipped";
  message: string | null;
}

async function parse(path: string): Promise<TestRecord[]> {
  const records: TestRecord[] = [];
  const parser = new SaxesParser();
  let suite = "";
  let current: TestRecord | null = null;
  let failureText: string[] | null = null;
  parser.on("opentag", (tag) => {
    const attributes = tag.attributes as Record<string, string>;
    if (tag.name === "testsuite") suite = attributes.name ?? "";
    else if (tag.name === "testcase") {
      current = {
        suite,
        classname: attributes.classname ?? "",
        name: attributes.name ?? "",
        time: Number(attributes.time ?? 0),
        outcome: "passed",
        message: null,
      };
    } else if (current !== null && (tag.name === "failure" || tag.name === "error")) {
      current.outcome = "failed";
      current.message = attributes.message ?? null;
      failureText = [];
    } else if (current !== null && tag.name === "skipped") current.outcome = "skipped";
  });
  parser.on("text", (text) => failureText?.push(text));
  parser.on("closetag", (tag) => {
    if (tag.name === "testcase" && current !== null) {
      records.push(current);
      current = null;
    } else if (tag.name === "failure" || tag.name === "error") {
      if (current !== null && current.message === null) current.message = failureText!.join("").slice(0, 200);
      failureText = null;
    }
  });
  for await (const chunk of createReadStream(path, { encoding: "utf8", highWaterMark: 64 * 1024 })) {
    parser.write(chunk as string);
  }
  parser.close();
  return records;
}

async function insert(records: readonly TestRecord[], databaseUrl: string): Promise<void> {
  // The service's schema, its tables and indexes, as its migrations create them; then the same pragmas.
  await (await openMigratedDatabase(databaseUrl)).close();
  const sqlite = new SQLite(sqlitePath(databaseUrl));
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("cache_size = -16384");
  const result = sqlite.prepare(
    "insert into test_results (test_key, occurred_at, upload_key, seq, outcome) values (?, ?, ?, ?, ?)",
  );
  const failure = sqlite.prepare(
    "insert into test_failures (test_key, occurred_at, upload_key, seq, repository_id, received_at, summary) values (?, ?, ?, ?, ?, ?, ?)",
  );
  const now = Date.now();
  sqlite.transaction(() => {
    records.forEach((record, seq) => {
      result.run(seq + 1, now, 1, seq, record.outcome);
      if (record.outcome === "failed") failure.run(seq + 1, now, 1, seq, "repo", now, record.message ?? "");
    });
  })();
  sqlite.close();
}

const [mode, report, databaseUrl] = process.argv.slice(2);
const records = mode === "insert" ? await parse(report!) : [];
const cpu = process.cpuUsage();
const began = performance.now();
const results = mode === "parse" ? (await parse(report!)).length : records.length;
if (mode === "insert") await insert(records, databaseUrl!);
const { user, system } = process.cpuUsage(cpu);
console.log(JSON.stringify({ results, ms: performance.now() - began, cpuMs: (user + system) / 1000 }));
