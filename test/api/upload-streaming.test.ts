// POST /v1/flaky-tests/upload reads its body as it arrives and keeps the reports in a temporary file, never whole in
// memory: whatever the order of the fields and however the body is cut in transit, it stores what the whole body
// says, answers errors found after the reports as before (nothing stored), and leaves no file open.
import { request } from "node:http";
import { readdirSync, readlinkSync } from "node:fs";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { testCaseId } from "../../src/test-health/index.ts";
import type { TestServer } from "../support/api-server.ts";
import { type TestStore, testDialects } from "../support/database.ts";
import { junitReport, TEST_HEALTH_START, useTestHealthServer } from "../support/test-health.ts";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const metadata = { repo, org_url_slug: "acme", commit_sha: "ab".repeat(20), branch: "main" };
/** Names whose characters are escaped in JSON or take several bytes in UTF-8, so that cuts fall inside them. */
const names = [
  'quotes " and \\ backslash',
  "accents é è ü",
  "emoji 😀 and 𐀀",
  "slash / and ampersand &",
  "€uro",
];
const reports = [
  junitReport(names.map((name, index) => ({ name, outcome: index % 2 ? "failed" : "passed" }))),
  junitReport(
    Array.from({ length: 300 }, (_, index) => ({ name: `case ${index} ✓` })),
    "second",
  ),
];

interface Answer {
  status: number;
  body: any;
}

/** POSTs `body` without a length, in pieces cut at `cuts` (byte offsets), each sent after the previous one left. */
function sendInPieces(
  server: TestServer,
  token: string,
  body: string | Buffer,
  cuts: number[],
  headers: Record<string, string> = {},
): Promise<Answer> {
  const bytes = Buffer.from(body);
  const url = new URL(`${server.url}/v1/flaky-tests/upload`);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-token": token, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      },
    );
    req.on("error", reject);
    const ends = [...cuts.filter((cut) => cut > 0 && cut < bytes.length).sort((a, b) => a - b), bytes.length];
    let from = 0;
    const next = () => {
      const end = ends.shift();
      if (end === undefined) {
        req.end();
        return;
      }
      const piece = bytes.subarray(from, end);
      from = end;
      req.write(piece, () => setTimeout(next, 1));
    };
    next();
  });
}

/** Cuts every `step` bytes, offset by `shift`: with steps of a few bytes, every escape and character gets cut. */
const everyFew = (length: number, step: number, shift = 0) =>
  Array.from({ length: Math.ceil(length / step) }, (_, index) => index * step + shift);

/** Files of the process still open on a spooled request body; each is closed (asynchronously) once answered. */
function openBodySpools(): string[] {
  const links: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      links.push(readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // closed meanwhile
    }
  }
  return links.filter((link) => link.includes("switchyard-body-"));
}

describe.each(testDialects)("upload with a streamed body on %s", (dialect) => {
  let store: TestStore;
  let server: TestServer;
  let token: string;

  const fixture = useTestHealthServer(dialect, () => TEST_HEALTH_START);
  beforeEach(() => {
    ({ store, server, token } = fixture);
  });

  const storedRows = async () => {
    const counts: Record<string, number> = {};
    for (const table of ["test_results", "test_cases", "test_uploads", "test_failures"] as const) {
      const row = await store.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      counts[table] = Number(row.n);
    }
    return counts;
  };
  const nothingStored = { test_results: 0, test_cases: 0, test_uploads: 0, test_failures: 0 };
  const storedName = async (name: string) => {
    const response = await server.post(
      "flaky-tests/get-test-details",
      {
        repo,
        org_url_slug: "acme",
        test_id: testCaseId(repo, { classname: "pkg.Widget", parent: "suite", name }),
      },
      token,
    );
    return ((await response.json()) as any).test?.name;
  };

  it("stores what the whole body says, reports first or last, cut every few bytes", async () => {
    const reportsLast = JSON.stringify({ ...metadata, junit_xml: reports });
    const whole = await sendInPieces(server, token, reportsLast, []);
    expect(whole.status).toBe(200);
    expect(whole.body.test_results).toBe(305);
    expect(whole.body.unquarantined_failures.map((failure: any) => failure.name)).toEqual([
      names[1],
      names[3],
    ]);
    for (const name of names) expect(await storedName(name)).toBe(name);

    // Reports first, metadata after them: the reports wait in the file until the body is known valid.
    const reportsFirst = JSON.stringify({ junit_xml: reports, ...metadata, commit_sha: "cd".repeat(20) });
    const cut = await sendInPieces(server, token, reportsFirst, everyFew(reportsFirst.length, 7, 3));
    expect(cut.status).toBe(200);
    expect({ ...cut.body, upload_id: undefined }).toEqual({ ...whole.body, upload_id: undefined });
    expect(await storedRows()).toMatchObject({ test_results: 610, test_cases: 305, test_uploads: 2 });
    await vi.waitFor(() => expect(openBodySpools()).toEqual([]));
  });

  it("decodes \\u escapes and UTF-8 cut anywhere, surrogate pairs included", async () => {
    const ascii = JSON.stringify({ ...metadata, junit_xml: reports }).replace(/[^\x20-\x7e]/gu, (char) =>
      [...Array(char.length).keys()]
        .map((unit) => `\\u${char.charCodeAt(unit).toString(16).padStart(4, "0")}`)
        .join(""),
    );
    const answer = await sendInPieces(server, token, ascii, everyFew(ascii.length, 3, 1));
    expect(answer.status).toBe(200);
    for (const name of names) expect(await storedName(name)).toBe(name);
    // Thousands of pieces: on a loaded machine this takes longer than the default limit.
  }, 60_000);

  it("answers a retry with the same reports in another order and other cuts the first answer", async () => {
    const key = { "idempotency-key": "retry-1" };
    const first = await sendInPieces(
      server,
      token,
      JSON.stringify({ ...metadata, junit_xml: reports }),
      [],
      key,
    );
    const reordered = JSON.stringify({ junit_xml: reports, ...metadata });
    const retry = await sendInPieces(server, token, reordered, everyFew(reordered.length, 5), key);
    expect(retry).toEqual(first);
    expect((await storedRows()).test_uploads).toBe(1);
    const other = JSON.stringify({
      ...metadata,
      junit_xml: [reports[0], reports[1]!.replace("case 1 ", "case X ")],
    });
    expect((await sendInPieces(server, token, other, [100], key)).body.code).toBe("idempotency_key_reused");
  });

  it("stores nothing of a body that stops being JSON after its reports", async () => {
    const body = `${JSON.stringify({ ...metadata, junit_xml: reports }).slice(0, -1)},"job_name":"ci",}`;
    const answer = await sendInPieces(server, token, body, everyFew(body.length, 4096));
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("invalid_json");
    expect(await storedRows()).toEqual(nothingStored);
    await vi.waitFor(() => expect(openBodySpools()).toEqual([]));
  });

  it("stores nothing of a body with an invalid field after its reports, and names the field", async () => {
    const body = JSON.stringify({ junit_xml: reports, ...metadata, branch: 5 });
    const answer = await sendInPieces(server, token, body, everyFew(body.length, 4096));
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("invalid_request");
    expect(answer.body.errors).toEqual([{ path: "branch", message: "must be string" }]);
    expect(await storedRows()).toEqual(nothingStored);
  });

  it("answers an invalid field before an invalid report, as when the body was read whole", async () => {
    const body = JSON.stringify({ junit_xml: ["<testsuite>"], ...metadata, commit_sha: "not a sha" });
    const answer = await sendInPieces(server, token, body, [10]);
    expect(answer.body.code).toBe("invalid_request");
    const broken = JSON.stringify({ ...metadata, junit_xml: [reports[0], "<testsuite><testcase"] });
    const invalid = await sendInPieces(server, token, broken, [100, 1000]);
    expect(invalid.body.code).toBe("invalid_junit");
    expect(await storedRows()).toEqual(nothingStored);
  });

  it("refuses a body over 20 MiB sent without a length with 413 once the limit is passed, storing nothing", async () => {
    const body = JSON.stringify({
      ...metadata,
      junit_xml: [junitReport([{ name: "x".repeat(21 * 1024 * 1024) }])],
    });
    const answer = await sendInPieces(server, token, body, everyFew(body.length, 1024 * 1024));
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe("payload_too_large");
    expect(await storedRows()).toEqual(nothingStored);
    await vi.waitFor(() => expect(openBodySpools()).toEqual([]));
  });
});
