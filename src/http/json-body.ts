// Reads JSON request bodies with the 20 MiB limit (docs/api.md#conventions): an oversized body is refused with 413 as
// soon as its declared length or the bytes received pass the limit, without buffering it. The rest is read
// and discarded so the client (still sending) reliably receives the 413, then the connection is closed. A route
// whose body carries large strings (an upload's reports) names them in its `streamedStrings` config: its body is
// read as it arrives (streamed-json-body.ts) rather than buffered and parsed whole.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { readBodyWithinLimit } from "./body-within-limit.ts";
import { bodyLimitBytes, payloadTooLarge, Problem, problemContentType } from "./problem.ts";
import { parseWhole } from "./json-scanner.ts";
import { readStreamedJson } from "./streamed-json-body.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** What the 413 of an oversized body tells the client to send instead (a smaller form of the request). */
    oversizedBodyHint?: string;
  }
}

/** A client that keeps sending after the 413 is cut off after this long. */
const drainTimeoutMs = 30_000;

/**
 * `application/json` and the structured `application/<anything>+json` types, whatever their parameters
 * (`charset=utf-8`, as many clients send). Fastify tests a parser's pattern against the header as it normalises it
 * (`application/json; charset="utf-8"`: type lower-cased, parameters quoted), so the type must end at `;` or at
 * the end. JSON is UTF-8 whatever the charset says, as Fastify's own JSON parser reads it.
 */
export const jsonContentType = /^application\/(?:[\w.+-]+\+)?json(?:;|$)/i;

/** Whether a request's `Content-Type` header is JSON: its media type, parameters aside, as Fastify parses it. */
export function isJsonContentType(header: string | string[] | undefined): boolean {
  // What nearly every client sends, without taking the header apart.
  if (header === "application/json") return true;
  const type =
    String(header ?? "")
      .split(";")[0]
      ?.trim() ?? "";
  return jsonContentType.test(type);
}

/**
 * The raw response of each request in flight, so the parser can answer an oversized body itself (and a streamed
 * body's spool be closed with the exchange).
 */
const responses = new WeakMap<IncomingMessage, ServerResponse>();

export function registerJsonBodyParser(api: FastifyInstance): void {
  // A callback hook, not an async one: no promise and microtask for every request.
  api.addHook("onRequest", (request, reply, done) => {
    responses.set(request.raw, reply.raw);
    done();
  });
  api.removeAllContentTypeParsers();
  api.addContentTypeParser(jsonContentType, (request: FastifyRequest, payload: IncomingMessage, done) => {
    const declared = Number(request.headers["content-length"]);
    if (Number.isFinite(declared) && declared > bodyLimitBytes) {
      refuseOversizedBody(request, payload);
    } else if (request.routeOptions.config.streamedStrings !== undefined) {
      readStreamedJson(request, responses.get(request.raw), payload, done, () =>
        refuseOversizedBody(request, payload),
      );
    } else {
      readJson(request, payload, done);
    }
  });
}

type Done = (error: Error | null, body?: unknown) => void;

function readJson(request: FastifyRequest, payload: IncomingMessage, done: Done): void {
  const chunks: Buffer[] = [];
  readBodyWithinLimit(payload, {
    chunk: (chunk) => chunks.push(chunk),
    end: () => {
      let body: unknown;
      try {
        body = parseJson(Buffer.concat(chunks));
      } catch (error) {
        done(error as Error);
        return;
      }
      done(null, body);
    },
    error: (error) => done(error),
    refuse: () => {
      chunks.length = 0;
      refuseOversizedBody(request, payload);
    },
  });
}

function parseJson(buffer: Buffer): unknown {
  // A leading byte-order mark is not JSON but some clients send one.
  const text = buffer.toString("utf8").replace(/^\uFEFF/, "");
  if (text.trim() === "")
    throw new Problem(400, "invalid_json", "the request body is empty; send a JSON object");
  return parseWhole(text);
}

/**
 * Answers 413 at once but ends the response only when the client has finished sending: ending it earlier
 * closes the socket with unread data, which resets the connection and can destroy the 413 in flight.
 */
function refuseOversizedBody(request: FastifyRequest, payload: IncomingMessage): void {
  const raw = request.raw;
  // Fastify's lifecycle for this request is abandoned here: the parser never calls back, and the socket
  // closes once the body is drained.
  const res = responses.get(raw);
  if (res === undefined || res.headersSent) {
    raw.socket.destroy();
    return;
  }
  const problem = payloadTooLarge(request.routeOptions.config.oversizedBodyHint).toBody();
  const body = JSON.stringify({ ...problem, detail: `${problem.detail} (request ${request.id})` });
  res.writeHead(413, {
    "content-type": problemContentType,
    "content-length": Buffer.byteLength(body),
    connection: "close",
  });
  res.write(body);
  const timer = setTimeout(() => raw.socket.destroy(), drainTimeoutMs);
  timer.unref();
  payload.on("data", () => undefined);
  payload.once("end", () => {
    clearTimeout(timer);
    res.end();
  });
  payload.once("error", () => {
    clearTimeout(timer);
    raw.socket.destroy();
  });
}
