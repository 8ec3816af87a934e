// One log line per HTTP request, built from an allow-list: the method, the path with its query's secret values
// masked, the status, the response time, the request id and the user agent. Headers are never copied wholesale, so
// x-api-token, Authorization, Cookie, Set-Cookie and the webhook signatures cannot reach the log
// (docs/security.md). It replaces Probot's pino-http logger, which recorded every header of every request and
// cost 20-35 µs a request on the main thread.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";

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
  const bounded = (text: string) => (text.length > urlLength ? `${text.slice(0, urlLength)}…` : text);
  if (query < 0) return bounded(url);
  const parameters = url
    .slice(query + 1)
    .split("&")
    .map((parameter) => {
      const equals = parameter.indexOf("=");
      if (equals < 0) return parameter;
      const name = parameter.slice(0, equals);
      return secretParameter.test(safeDecode(name)) ? `${name}=[REDACTED]` : parameter;
    });
  return bounded(`${url.slice(0, query)}?${parameters.join("&")}`);
}

function safeDecode(text: string): string {
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
 * Logs each request once its response is done (or abandoned), at info, or error for a 5xx. Nothing is done per
 * request when the level is above info. One listener function serves every response (no closure per request).
 */
export function requestLogger(log: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  const http = log.child({ name: "http" });
  function logResponse(this: TimedResponse): void {
    const req = this.req;
    const status = this.statusCode;
    const responseTime = Math.round((performance.now() - (this[startedKey] as number)) * 10) / 10;
    const url = loggableUrl(req.url ?? "");
    const userAgent = req.headers["user-agent"];
    const line = {
      reqId: requestIdOf(req),
      method: req.method,
      url,
      statusCode: status,
      responseTime,
      userAgent: userAgent === undefined ? undefined : userAgent.slice(0, userAgentLength),
    };
    const outcome = this.writableFinished ? String(status) : "aborted";
    const message = `${req.method} ${url} ${outcome} - ${responseTime}ms`;
    if (status >= 500) http.error(line, message);
    else http.info(line, message);
  }
  return (_req, res) => {
    if (!http.isLevelEnabled("info")) return;
    (res as TimedResponse)[startedKey] = performance.now();
    res.once("close", logResponse);
  };
}
