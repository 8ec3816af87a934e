// An incremental reader of a JSON request body that streams the strings of one array member. JSON.parse needs the
// whole body, and every string of it whole: for an upload's JUnit reports that is the body twice over, and more than
// the reports themselves in garbage. The scanner is given the body's text in pieces as it arrives; every member of
// the root object is parsed whole (with JSON.parse, as the body was before), except the member named `streamedKey`
// when it is an array: its strings are handed on decoded, piece by piece, and its other elements whole. npm's
// streaming JSON parsers hand string values on whole (@streamparser/json) or as Node stream tokens.
import { Problem } from "./problem.ts";

/** What the scanner finds in a body, in order. */
export interface ScannedBody {
  /** The body, when it is not an object: parsed whole. */
  root(value: unknown): void;
  /** A member of the root object, other than the streamed array. A key given twice is given twice, as read. */
  member(key: string, value: unknown): void;
  /** The streamed key's value is an array: its elements follow. */
  arrayStart(): void;
  /** An element of the streamed array that is not a string. */
  element(value: unknown): void;
  /** A string element begins; its text follows in pieces (a surrogate pair is never cut), then stringEnd. */
  stringStart(): void;
  stringText(text: string): void;
  stringEnd(): void;
}

type State =
  | "start"
  | "first-key"
  | "key"
  | "colon"
  | "value"
  | "after-member"
  | "first-element"
  | "element"
  | "string"
  | "escape"
  | "after-element"
  | "raw"
  | "done";

type RawKind = "string" | "container" | "primitive";

/** Where a value read whole goes once complete, and which state follows. */
type RawDone = (raw: string) => State;

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
/**
 * In a streamed string, the longest run from where it is tried that JSON.parse reads as a string's content:
 * characters other than a quote, a backslash or a control character, and whole escapes. It ends at the closing
 * quote, a control character, an escape cut short by the piece's end or a malformed one, or the piece's end. A
 * report's text is one such run per piece however many quotes it escapes, decoded by JSON.parse at once.
 */
// eslint-disable-next-line no-control-regex -- a control character ends the run: the point
const STRING_CONTENT = /^(?:[^"\\\u0000-\u001f]+|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/;
/**
 * The most of a piece one match reads: the regular expression engine keeps a backtracking entry per escape, and a
 * piece of megabytes of escaped quotes would overflow its stack. A body arrives in pieces smaller than this.
 */
const STRING_WINDOW = 65_536;
const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

export class JsonBodyScanner {
  private state: State = "start";
  /** Characters read before the current piece, for the position in error messages. */
  private offset = 0;
  private key = "";
  // The value being read whole: its text in earlier pieces, and where it began in the current one (else 0).
  private rawParts: string[] = [];
  private rawStart = 0;
  private rawKind: RawKind = "primitive";
  private rawDepth = 0;
  private rawInString = false;
  private rawEscaped = false;
  private rawDone: RawDone = () => "done";
  // The streamed string being read: its decoded text since the last piece handed on, and an escape cut short.
  private text: string[] = [];
  private escape = "";

  constructor(
    private readonly streamedKey: string,
    private readonly sink: ScannedBody,
  ) {}

  /** Reads the next piece of the body's text. Throws a 400 `invalid_json` Problem where the body stops being JSON. */
  write(piece: string): void {
    let index = 0;
    while (index < piece.length) index = this.step(piece, index);
    if (this.state === "raw") {
      this.rawParts.push(piece.slice(this.rawStart));
      this.rawStart = 0;
    }
    this.flushText(false);
    this.offset += piece.length;
  }

  /** The body ended: throws unless it was a whole JSON value. */
  end(): void {
    if (this.state === "start") {
      throw new Problem(400, "invalid_json", "the request body is empty; send a JSON object");
    }
    if (this.state === "raw" && this.rawKind === "primitive") this.completeRaw("", 0);
    if (this.state !== "done") throw invalidJson("Unexpected end of JSON input");
  }

  /** Reads from `index` on, in the current state; returns where to go on. */
  private step(piece: string, index: number): number {
    const char = piece[index] as string;
    switch (this.state) {
      case "string":
        return this.readString(piece, index);
      case "escape":
        return this.readEscape(piece, index);
      case "raw":
        return this.readRaw(piece, index);
    }
    if (WHITESPACE.has(char)) return index + 1;
    switch (this.state) {
      case "start":
        if (char === "{") return this.go("first-key", index);
        return this.startRaw(piece, index, (raw) => {
          this.sink.root(parseWhole(raw));
          return "done";
        });
      case "first-key":
        if (char === "}") return this.go("done", index);
        return this.readKey(piece, index);
      case "key":
        return this.readKey(piece, index);
      case "colon":
        if (char !== ":") throw this.unexpected(char, index);
        return this.go("value", index);
      case "value":
        if (this.key === this.streamedKey && char === "[") {
          this.sink.arrayStart();
          return this.go("first-element", index);
        }
        return this.startRaw(piece, index, (raw) => {
          this.sink.member(this.key, parseWhole(raw));
          return "after-member";
        });
      case "after-member":
        if (char === ",") return this.go("key", index);
        if (char === "}") return this.go("done", index);
        throw this.unexpected(char, index);
      case "first-element":
        if (char === "]") return this.go("after-member", index);
        return this.readElement(piece, index);
      case "element":
        return this.readElement(piece, index);
      case "after-element":
        if (char === ",") return this.go("element", index);
        if (char === "]") return this.go("after-member", index);
        throw this.unexpected(char, index);
      case "done":
        throw this.unexpected(char, index);
    }
  }

  private go(state: State, index: number): number {
    this.state = state;
    return index + 1;
  }

  private readKey(piece: string, index: number): number {
    const char = piece[index] as string;
    if (char !== '"') throw this.unexpected(char, index);
    return this.startRaw(piece, index, (raw) => {
      this.key = parseWhole(raw) as string;
      rejectPrototypeKey(this.key);
      return "colon";
    });
  }

  private readElement(piece: string, index: number): number {
    if (piece[index] === '"') {
      this.sink.stringStart();
      return this.go("string", index);
    }
    return this.startRaw(piece, index, (raw) => {
      this.sink.element(parseWhole(raw));
      return "after-element";
    });
  }

  private readString(piece: string, index: number): number {
    const limit = Math.min(piece.length, index + STRING_WINDOW);
    const run = (STRING_CONTENT.exec(piece.slice(index, limit)) as RegExpExecArray)[0];
    const end = index + run.length;
    if (run !== "") this.text.push(JSON.parse(`"${run}"`) as string);
    // The piece's end, or the window's: the string goes on in the next piece, or from there.
    if (end === limit) return end;
    const char = piece[end] as string;
    if (char === '"') {
      this.flushText(true);
      this.sink.stringEnd();
      return this.go("after-element", end);
    }
    if (char !== "\\") {
      throw invalidJson(`Bad control character in string literal at position ${this.offset + end}`);
    }
    // An escape cut short by the piece's end, or a malformed one: readEscape waits for the rest, or says which.
    this.escape = "";
    return this.go("escape", end);
  }

  /** Reads an escape (after its backslash), which may come in more than one piece. */
  private readEscape(piece: string, index: number): number {
    const wanted = (this.escape === "" ? piece[index] : this.escape[0]) === "u" ? 5 : 1;
    const taken = Math.min(wanted - this.escape.length, piece.length - index);
    this.escape += piece.slice(index, index + taken);
    if (this.escape.length < wanted) return index + taken;
    const simple = SIMPLE_ESCAPES[this.escape];
    if (simple !== undefined) {
      this.text.push(simple);
    } else if (/^u[0-9a-fA-F]{4}$/.test(this.escape)) {
      this.text.push(String.fromCharCode(parseInt(this.escape.slice(1), 16)));
    } else {
      throw invalidJson(`Bad escaped character in JSON at position ${this.offset + index}`);
    }
    this.state = "string";
    return index + taken;
  }

  /** Hands on the string's text read so far; a high surrogate at its end waits for its pair unless the string ended. */
  private flushText(ended: boolean): void {
    if (this.text.length === 0) return;
    let text = this.text.join("");
    this.text = [];
    const last = text.charCodeAt(text.length - 1);
    if (!ended && last >= 0xd800 && last <= 0xdbff) {
      this.text.push(text.slice(-1));
      text = text.slice(0, -1);
    }
    if (text !== "") this.sink.stringText(text);
  }

  private startRaw(piece: string, index: number, done: RawDone): number {
    const char = piece[index] as string;
    this.rawKind = char === '"' ? "string" : char === "{" || char === "[" ? "container" : "primitive";
    this.rawParts = [];
    this.rawDepth = char === "{" || char === "[" ? 1 : 0;
    this.rawInString = false;
    this.rawEscaped = false;
    this.rawDone = done;
    this.rawStart = index;
    this.state = "raw";
    return this.rawKind === "primitive" ? index : index + 1;
  }

  /** Reads on in a value read whole, to its end: its brackets and strings are followed, JSON.parse checks the rest. */
  private readRaw(piece: string, index: number): number {
    for (let at = index; at < piece.length; at++) {
      const char = piece[at] as string;
      if (this.rawKind === "primitive") {
        if (WHITESPACE.has(char) || char === "," || char === "}" || char === "]") {
          return this.completeRaw(piece, at);
        }
        continue;
      }
      if (this.rawEscaped) {
        this.rawEscaped = false;
      } else if (this.rawKind === "string" || this.rawInString) {
        if (char === "\\") this.rawEscaped = true;
        else if (char === '"') {
          if (this.rawKind === "string") return this.completeRaw(piece, at + 1);
          this.rawInString = false;
        }
      } else if (char === '"') {
        this.rawInString = true;
      } else if (char === "{" || char === "[") {
        this.rawDepth++;
      } else if ((char === "}" || char === "]") && --this.rawDepth === 0) {
        return this.completeRaw(piece, at + 1);
      }
    }
    return piece.length;
  }

  /** The value read whole ends before `end` of the current piece. */
  private completeRaw(piece: string, end: number): number {
    this.rawParts.push(piece.slice(this.rawStart, end));
    const raw = this.rawParts.join("");
    this.rawParts = [];
    this.state = this.rawDone(raw);
    return end;
  }

  private unexpected(char: string, index: number): Problem {
    return invalidJson(`Unexpected token '${char}' at position ${this.offset + index}`);
  }
}

function invalidJson(reason: string): Problem {
  return new Problem(400, "invalid_json", `the request body is not valid JSON: ${reason}`);
}

/** A value of the body, parsed as the whole body was: JSON.parse, refusing keys that would reach a prototype. */
export function parseWhole(text: string): unknown {
  try {
    // A reviver makes parsing several times slower: only a text that may name one of the keys needs it.
    return forbiddenKey.test(text) ? JSON.parse(text, rejectPrototypeKeys) : JSON.parse(text);
  } catch (error) {
    if (error instanceof Problem) throw error;
    throw invalidJson((error as Error).message.replace(bodyExcerpt, ""));
  }
}

/**
 * V8 quotes up to 10 characters of the text on each side of an unexpected token (`…, ..."secret": hunter2"...
 * is not valid JSON`); a problem detail never quotes the body, which may hold a credential (docs/security.md).
 */
const bodyExcerpt = /, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s;

/** Whether a text may hold a key `rejectPrototypeKey` refuses (also written with escapes, as `\u005f_proto__`). */
const forbiddenKey = /__proto__|constructor|\\u/;

function rejectPrototypeKeys(key: string, value: unknown): unknown {
  rejectPrototypeKey(key);
  return value;
}

function rejectPrototypeKey(key: string): void {
  if (key === "__proto__" || key === "constructor") {
    throw new Problem(400, "invalid_json", `the request body contains the forbidden key "${key}"`);
  }
}
