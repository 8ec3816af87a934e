// Reads the JSON body of a route whose body carries large strings in one array (an upload's `junit_xml`), as it
// arrives: the strings go to a temporary file (string-spool.ts), decoded, and the body is parsed with an empty string
// in place of each, so that it is validated against the route's schema as it was before, field for field. The
// handler reads the strings back with streamedStrings(). Memory stays bounded by the other members of the body,
// whatever the size of the strings; the answers (413, 400 invalid_json, validation) are those of json-body.ts.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyRequest } from "fastify";
import { JsonBodyScanner, type ScannedBody } from "./json-scanner.ts";
import { readBodyWithinLimit } from "./body-within-limit.ts";
import { type SpooledString, StringSpool } from "./string-spool.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The member of the body, an array of strings, whose strings are read by streamedStrings() rather than parsed. */
    streamedStrings?: string;
  }
}

const spooled = new WeakMap<IncomingMessage, readonly SpooledString[]>();

/** The strings of the route's `streamedStrings` array, in order, in place of the empty strings its body holds. */
export function streamedStrings(request: FastifyRequest): readonly SpooledString[] {
  return spooled.get(request.raw) ?? [];
}

/** The body as the scanner reads it: an empty string stands for each streamed string. */
class BodyWithoutStrings implements ScannedBody {
  value: unknown = {};
  strings: SpooledString[] = [];

  constructor(
    private readonly key: string,
    private readonly spool: StringSpool,
  ) {}

  root(value: unknown): void {
    this.value = value;
  }

  member(key: string, value: unknown): void {
    // As JSON.parse does, a key given again replaces the value given before.
    if (key === this.key) this.strings = [];
    (this.value as Record<string, unknown>)[key] = value;
  }

  arrayStart(): void {
    this.member(this.key, []);
  }

  element(value: unknown): void {
    this.elements().push(value);
  }

  stringStart(): void {
    this.elements().push("");
    this.spool.begin();
  }

  stringText(text: string): void {
    this.spool.append(text);
  }

  stringEnd(): void {
    this.strings.push(this.spool.end());
  }

  private elements(): unknown[] {
    return (this.value as Record<string, unknown[]>)[this.key] as unknown[];
  }
}

type Done = (error: Error | null, body?: unknown) => void;

/**
 * Reads the body into `done`, or calls `refuse` (and nothing more) once more than the body limit has arrived. An
 * error found in the body is answered only once the whole body has arrived, as when the body was parsed whole.
 */
export function readStreamedJson(
  request: FastifyRequest,
  response: ServerResponse | undefined,
  payload: IncomingMessage,
  done: Done,
  refuse: () => void,
): void {
  const key = request.routeOptions.config.streamedStrings as string;
  const spool = new StringSpool();
  const body = new BodyWithoutStrings(key, spool);
  const scanner = new JsonBodyScanner(key, body);
  const decoder = new TextDecoder();
  let failure: Error | undefined;
  const fail = (error: unknown) => {
    failure ??= error instanceof Error ? error : new Error(String(error));
  };
  const scan = (text: string) => {
    if (failure !== undefined) return;
    try {
      scanner.write(text);
    } catch (error) {
      fail(error);
    }
  };
  // The spool lives as long as the exchange: the handler reads it before it answers.
  response?.once("close", () => void spool.close());
  readBodyWithinLimit(payload, {
    chunk: (chunk) => {
      scan(decoder.decode(chunk, { stream: true }));
      if (failure !== undefined || !spool.full) return;
      payload.pause();
      spool.flush().then(
        () => payload.resume(),
        (error: unknown) => {
          fail(error);
          payload.resume();
        },
      );
    },
    end: () => {
      scan(decoder.decode());
      if (failure === undefined) {
        try {
          scanner.end();
        } catch (error) {
          fail(error);
        }
      }
      const finish = () => {
        if (failure !== undefined) {
          void spool.close();
          done(failure);
          return;
        }
        spooled.set(request.raw, body.strings);
        done(null, body.value);
      };
      spool.flush().then(finish, (error: unknown) => {
        fail(error);
        finish();
      });
    },
    error: (error) => {
      void spool.close();
      done(error);
    },
    refuse: () => {
      void spool.close();
      refuse();
    },
  });
}
