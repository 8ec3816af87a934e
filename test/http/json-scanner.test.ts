// The incremental body scanner reads what JSON.parse reads, however the body is cut into pieces: the same members,
// the streamed strings' text exactly (escapes and UTF-8 cut anywhere), and an error exactly where JSON.parse fails.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonBodyScanner, parseWhole } from "../../src/http/json-scanner.ts";
import { Problem } from "../../src/http/problem.ts";

/** What a scan read: the body with its streamed strings in place, and each string's pieces. */
function scan(bytes: Uint8Array, cuts: number[]): { body: unknown; pieces: string[][] } {
  let body: Record<string, unknown> | unknown = {};
  const pieces: string[][] = [];
  const scanner = new JsonBodyScanner("junit_xml", {
    root: (value) => (body = value),
    member: (key, value) => ((body as Record<string, unknown>)[key] = value),
    arrayStart: () => ((body as Record<string, unknown>).junit_xml = []),
    element: (value) => ((body as Record<string, unknown[]>).junit_xml as unknown[]).push(value),
    stringStart: () => pieces.push([]),
    stringText: (text) => pieces.at(-1)!.push(text),
    stringEnd: () =>
      ((body as Record<string, unknown[]>).junit_xml as unknown[]).push(pieces.at(-1)!.join("")),
  });
  const decoder = new TextDecoder();
  let from = 0;
  for (const cut of [...cuts.filter((at) => at < bytes.length).sort((a, b) => a - b), bytes.length]) {
    scanner.write(decoder.decode(bytes.subarray(from, cut), { stream: true }));
    from = cut;
  }
  scanner.write(decoder.decode());
  scanner.end();
  return { body, pieces };
}

/** JSON text of `value` that writes some characters as \u escapes (surrogate pairs as two), at random. */
function escapedJson(value: unknown, escape: (index: number) => boolean): string {
  let index = 0;
  return JSON.stringify(value).replace(/"(?:[^"\\]|\\.)*"/g, (literal) =>
    [...(JSON.parse(literal) as string)]
      .map((char) => {
        if (!escape(index++)) return JSON.stringify(char).slice(1, -1);
        return [...Array(char.length).keys()]
          .map((unit) => `\\u${char.charCodeAt(unit).toString(16).padStart(4, "0")}`)
          .join("");
      })
      .join("")
      .replace(/^/, '"')
      .concat('"'),
  );
}

const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom("<", '"', "\\", "\n", "\u0001", "é", "€", "😀", "\uD83D", "\uDE00"),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  ),
});
const members = fc.record({
  repo: fc.record({ host: text, owner: text, name: text }),
  branch: text,
  pr_number: fc.oneof(fc.integer(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true })),
  junit_xml: fc.array(fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: fc.jsonValue() }), {
    maxLength: 4,
  }),
});
/** A body's members in any order. */
const bodies = members.chain((record) =>
  fc.shuffledSubarray(Object.entries(record), { minLength: 4, maxLength: 4 }).map(Object.fromEntries),
);
const cuts = fc.array(fc.nat({ max: 400 }), { maxLength: 30 });

describe("JsonBodyScanner", () => {
  it("reads what JSON.parse reads, wherever the body is cut, and streams the strings' text", () => {
    fc.assert(
      fc.property(bodies, fc.func(fc.boolean()), cuts, fc.boolean(), (body, escape, at, bom) => {
        const json = `${bom ? "\uFEFF" : ""} \n${escapedJson(body, (index) => escape(index))}\t`;
        const bytes = Buffer.from(json);
        const { body: read, pieces } = scan(bytes, at);
        expect(read).toEqual(JSON.parse(json.replace(/^\uFEFF/, "")));
        for (const string of pieces) {
          // A piece never ends in the middle of a surrogate pair: each encodes to UTF-8 on its own.
          expect(Buffer.from(string.join(""))).toEqual(
            Buffer.concat(string.map((piece) => Buffer.from(piece))),
          );
        }
      }),
      { numRuns: 500 },
    );
  });

  it("fails where JSON.parse fails, and reads the same where it does not, for bodies with a character changed", () => {
    const json = fc.tuple(bodies, fc.func(fc.boolean())).map(([body, escape]) => escapedJson(body, escape));
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 3 }),
      insert: fc.constantFrom(
        "",
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        '"',
        "\\",
        "u",
        "1",
        "-",
        "e",
        "n",
        " ",
        "\u0000",
      ),
    });
    fc.assert(
      fc.property(json, edit, cuts, (valid, { at, remove, insert }, cut) => {
        const index = at % (valid.length + 1);
        // As the body arrives: in UTF-8, where a surrogate the edit left alone is a replacement character.
        const edited = Buffer.from(valid.slice(0, index) + insert + valid.slice(index + remove)).toString();
        let expected: unknown;
        try {
          expected = parseWhole(edited);
        } catch (error) {
          expect(() => scan(Buffer.from(edited), cut)).toThrow(Problem);
          try {
            scan(Buffer.from(edited), cut);
          } catch (scanError) {
            expect((scanError as Problem).code).toBe("invalid_json");
          }
          expect((error as Problem).code).toBe("invalid_json");
          return;
        }
        expect(scan(Buffer.from(edited), cut).body).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads a string longer than a piece's window of one match, whatever falls on the window's edge", () => {
    // One match reads at most 64 KiB of a piece; a body read in one piece crosses that edge with each of these
    // at every position around it.
    const across = ['\\"', "\\u00e9", "😀", "\\\\", "\\ud83d\\ude00", '<a b=\\"c\\">', "\\n"];
    for (const escaped of across) {
      for (let shift = 0; shift < 8; shift++) {
        const filler = "x".repeat(65_536 - 16 + shift);
        const json = `{"junit_xml":["${filler}${escaped}${escaped}${filler}${escaped}"]}`;
        const { body } = scan(new TextEncoder().encode(json), []);
        expect(body).toEqual(JSON.parse(json));
      }
    }
    const bad = `{"junit_xml":["${"x".repeat(65_536 - 15)}\\x"]}`;
    expect(() => scan(new TextEncoder().encode(bad), [])).toThrow(
      /Bad escaped character in JSON at position/,
    );
  });

  it("answers an empty body as the whole-body parser does", () => {
    for (const body of ["", "  \n", "\uFEFF"]) {
      expect(() => scan(Buffer.from(body), [])).toThrow("the request body is empty; send a JSON object");
    }
  });

  it("refuses keys that would reach a prototype, at the top and inside members", () => {
    for (const body of [
      '{"__proto__":{}}',
      '{"repo":{"constructor":1}}',
      '{"junit_xml":[{"__proto__":1}]}',
    ]) {
      expect(() => scan(Buffer.from(body), [3])).toThrow(/the request body contains the forbidden key/);
    }
  });

  it("takes a body that is not an object whole, and a streamed key that is not an array as a member", () => {
    expect(scan(Buffer.from(' [1, "a"] '), [2]).body).toEqual([1, "a"]);
    expect(scan(Buffer.from("42"), [1]).body).toBe(42);
    expect(scan(Buffer.from('{"junit_xml":"<a/>"}'), [5]).body).toEqual({ junit_xml: "<a/>" });
    expect(scan(Buffer.from('{"junit_xml":["a"],"junit_xml":7}'), []).body).toEqual({ junit_xml: 7 });
  });
});
