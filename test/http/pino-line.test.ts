// The request logger writes its lines itself (src/http/pino-line.ts) instead of through pino's generic path: the line
// must be the one pino writes for the same fields, byte for byte, and any text must come out as valid JSON.
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { jsonString, pinoLineWriter } from "../../src/http/pino-line.ts";

describe("jsonString", () => {
  const awkward = {
    plain: "/v1/getQueue?page=2",
    empty: "",
    quotes: 'say "hi"',
    backslashes: "C:\\temp\\",
    "a backslash before a quote": '\\"',
    "control characters": "a\nb\rc\td\u0000e\u0001f\u001f",
    "DEL and latin-1": "\u007f caf\u00e9 \u00ff",
    "line separators": "a\u2028b\u2029c",
    "a surrogate pair": "ok \ud83d\ude80",
    "a lone high surrogate": "x\ud83dy",
    "a lone low surrogate": "x\ude80y",
    "a pair reversed": "\ude80\ud83d",
    "a surrogate at the end": "abc\ud800",
  };

  for (const [name, text] of Object.entries(awkward)) {
    it(`writes ${name} as JSON.stringify does`, () => {
      expect(jsonString(text)).toBe(JSON.stringify(text));
      expect(JSON.parse(jsonString(text))).toBe(text);
    });
  }

  it("leaves no raw control character or lone surrogate in the output", () => {
    const everyControl = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join("");
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(jsonString(everyControl + "\ud800")).not.toMatch(/[\u0000-\u001f\ud800-\udfff]/);
  });
});

describe("pinoLineWriter", () => {
  function loggerWritingTo(lines: string[], options: pino.LoggerOptions = {}) {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    return pino({ level: "info", ...options }, sink).child({ name: "http" });
  }

  it("writes the line pino writes for the same fields, bindings, level and message", () => {
    const lines: string[] = [];
    const http = loggerWritingTo(lines, { timestamp: () => `,"time":1700000000000` });
    const fields = {
      reqId: "req-1",
      method: "GET",
      url: '/x?q="\\\n\u2028',
      statusCode: 500,
      responseTime: 12.5,
      userAgent: "curl/8 \u00e9",
    };
    const serialised =
      `,"reqId":${jsonString(fields.reqId)},"method":"GET","url":${jsonString(fields.url)}` +
      `,"statusCode":500,"responseTime":12.5,"userAgent":${jsonString(fields.userAgent)}`;
    http.error(fields, 'GET /x "quoted" 500');
    pinoLineWriter(http)(http.levels.values.error!, serialised, jsonString('GET /x "quoted" 500'));
    http.info("plain");
    pinoLineWriter(http)(http.levels.values.info!, "", jsonString("plain"));
    expect(lines).toHaveLength(4);
    expect(lines[1]).toBe(lines[0]);
    expect(lines[3]).toBe(lines[2]);
    expect(JSON.parse(lines[1]!)).toMatchObject({
      level: 50,
      name: "http",
      pid: process.pid,
      url: fields.url,
    });
  });
});
