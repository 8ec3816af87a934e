// One log line per HTTP request, built from an allow-list: the method, the path with its query's secret values
// masked, the status, the response time, the request id and the user agent. Headers are never copied wholesale, so
// x-api-token, Authorization, Cookie, Set-Cookie and the webhook signatures cannot reach the log
// (docs/security.md). It replaces Probot's pino-http logger, which recorded every header of every request and
// cost 20-35 µs a request on the main thread.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { isPlain, jsonString, pinoLineWriter } from "./pino-line.ts";

const requestIdKey = Symbol("requestId");
type IdentifiedRequest = IncomingMessage & { [requestIdKey]?: string };

/** A request id a client or GitHub chose is kept when it is short and plain, so that lines can be matched up. */
const plainId = /^[\w.:-]{1,128}$/;
/** Query parameters whose values may be credentials: the name is logged, the value is not. */
const secretParameter = /token|secret|passw|signature|session|key|code|auth|credential|jwt|cookie/i;
const userAgentLength = 200;
const urlLength = 2000;

/** This process's prefix of the ids it makes: ids stay unique across restarts and replicas, and cost a counter. */
const processPrefix = randomBytes(6).toString("hex");
let requestsSeen = 0;

/**
 * The request's id: its x-request-id, else GitHub's delivery id, else a new one (`<process>-<count>`). The request
 * logger and the /v1 server (its problem details and error lines) use the same one.
 */
export function requestIdOf(req: IncomingMessage): string {
  const identified = req as IdentifiedRequest;
  return (identified[requestIdKey] ??=
    chosenId(req.headers["x-request-id"]) ?? chosenId(req.headers["x-github-delivery"]) ?? newId());
}

function newId(): string {
  return `${processPrefix}-${(++requestsSeen).toString(36)}`;
}

function chosenId(header: string | string[] | undefined): string | undefined {
  return typeof header === "string" && plainId.test(header) ? header : undefined;
}

/** The URL as logged: the path as sent, and each query parameter whose name suggests a secret without its value. */
export function loggableUrl(url: string): string {
  const query = url.indexOf("?");
  // Most queries name no secret (no name can then match either): they are logged as they are, without being taken apart.
  if (query < 0 || !mayNameSecret(url, query)) return bounded(url);
  let logged = url.slice(0, query + 1);
  for (let start = query + 1; start <= url.length;) {
    const next = url.indexOf("&", start);
    const end = next < 0 ? url.length : next;
    const equals = url.indexOf("=", start);
    const named = equals >= 0 && equals < end;
    logged +=
      named && secretParameter.test(safeDecode(url.slice(start, equals)))
        ? `${url.slice(start, equals)}=[REDACTED]`
        : url.slice(start, end);
    if (next >= 0) logged += "&";
    start = end + 1;
  }
  return bounded(logged);
}

/** Whether a parameter of the query that starts at `query` may name a secret: one percent-encoded may, whatever it says. */
function mayNameSecret(url: string, query: number): boolean {
  const parameters = url.slice(query + 1);
  return parameters.includes("%") || secretParameter.test(parameters);
}

function bounded(text: string): string {
  return text.length > urlLength ? `${text.slice(0, urlLength)}…` : text;
}

function safeDecode(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** When a response's request came in (performance.now()), kept on the response for its log line. */
const startedKey = Symbol("started");
type TimedResponse = ServerResponse & { [startedKey]?: number };

/**
 * 502, 503 and 504 name a service the answer needed (GitHub out of reach, rate-limiting or refusing, the GitHub App
 * not registered yet): the request line is a warning, and the line of the cause says at which level it needs
 * someone. Any other 5xx is a failure of this service: an error.
 */
function isDependencyAnswer(status: number): boolean {
  return status >= 502 && status <= 504;
}

/**
 * Logs each request once its response is done (or abandoned), at info, warn for a dependency's 5xx
 * (isDependencyAnswer), or error for any other 5xx, as a pino line with the logger's bindings and `name: "http"`.
 * Nothing is done per request when the level is above info. One listener function serves every response (no
 * closure per request), and the line is built as a string (pino-line.ts).
 */
export function requestLogger(log: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  const http = log.child({ name: "http" });
  const writeLine = pinoLineWriter(http);
  const { info, warn, error } = http.levels.values as { info: number; warn: number; error: number };
  const levelOf = (status: number) => (status < 500 ? info : isDependencyAnswer(status) ? warn : error);
  function logResponse(this: TimedResponse): void {
    const req = this.req;
    const status = this.statusCode;
    const responseTime = String(Math.round((performance.now() - (this[startedKey] as number)) * 10) / 10);
    // The method is one node's parser knows and the id is plain by construction (requestIdOf): neither needs escaping.
    const method = req.method ?? "";
    const url = loggableUrl(req.url ?? "");
    const plainUrl = isPlain(url);
    const userAgent = req.headers["user-agent"];
    const fields =
      `,"reqId":"${requestIdOf(req)}","method":"${method}","url":${plainUrl ? `"${url}"` : JSON.stringify(url)}` +
      `,"statusCode":${status},"responseTime":${responseTime}` +
      (userAgent === undefined ? "" : `,"userAgent":${jsonString(userAgent.slice(0, userAgentLength))}`);
    const message = `${method} ${url} ${this.writableFinished ? status : "aborted"} - ${responseTime}ms`;
    writeLine(levelOf(status), fields, plainUrl ? `"${message}"` : JSON.stringify(message));
  }
  return (_req, res) => {
    if (!http.isLevelEnabled("info")) return;
    (res as TimedResponse)[startedKey] = performance.now();
    // A response emits "close" once, whether it was sent or abandoned: no need for once()'s wrapper.
    res.on("close", logResponse);
  };
}
