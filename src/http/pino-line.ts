// A log line written as pino writes it, without pino's per-call work: the request logger (request-log.ts) writes one
// line a request, and pino's generic path (a fields object, then a loop over its keys with a type switch and a
// serializer lookup for each) cost several times what building the line costs (docs/performance.md#request-logging).
// The line keeps pino's format (level, time, the logger's bindings, the fields, msg), so log tools read it as any other.
import { pino, type DestinationStream, type Logger } from "pino";

const symbols = pino.symbols;

/** The state pino keeps on a logger and exposes through `pino.symbols` for integrations. */
interface PinoInternals {
  [symbols.chindingsSym]: string;
  [symbols.endSym]: string;
  [symbols.lsCacheSym]: Record<number, string>;
  [symbols.messageKeySym]: string;
  [symbols.streamSym]: DestinationStream;
  [symbols.timeSym]: () => string;
}

/** Characters JSON.stringify escapes: the quote, the backslash, control characters and UTF-16 surrogates. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const needsEscaping = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Whether `text` goes into JSON as it is, between quotes; most text (a path, a user agent) does. */
export function isPlain(text: string): boolean {
  return !needsEscaping.test(text);
}

/**
 * `text` as a JSON string, exactly as JSON.stringify writes it. Unlike pino's own short-string path, a lone surrogate
 * is escaped, so the line stays valid UTF-8.
 */
export function jsonString(text: string): string {
  return isPlain(text) ? `"${text}"` : JSON.stringify(text);
}

/**
 * Writes `{"level":…,"time":…<the logger's bindings><fields>,"msg":<message>}` to the logger's destination, as
 * `logger[level](fieldsObject, message)` would. `fields` is the fields' JSON, each preceded by a comma, and
 * `message` the message's JSON (jsonString), so that a caller that knows its text is plain need not check it. The caller
 * checks the level first (logger.isLevelEnabled), as pino does before building a line. Pino's hooks (mixin,
 * formatters.log, hooks.streamWrite) and serializers are not run: the service's logger (logger.ts) sets none.
 */
export function pinoLineWriter(logger: Logger): (level: number, fields: string, message: string) => void {
  const internals = logger as unknown as PinoInternals;
  const levels = internals[symbols.lsCacheSym];
  const destination = internals[symbols.streamSym];
  const time = internals[symbols.timeSym];
  const bindings = internals[symbols.chindingsSym];
  const messageKey = `,${jsonString(internals[symbols.messageKeySym])}:`;
  const end = internals[symbols.endSym];
  return (level, fields, message) =>
    destination.write(levels[level] + time() + bindings + fields + messageKey + message + end);
}
