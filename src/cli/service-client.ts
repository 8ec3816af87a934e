// Requests of the client commands to the Switchyard API: a JSON POST with the token, retried when the service
// cannot be reached, fails (5xx) or asks to slow down (429); refusals become CliErrors quoting the problem's detail.
import { setTimeout } from "node:timers/promises";
import { CliError } from "./io.ts";

/** A 20 MiB upload over a slow link takes a while, but a service that never answers must not hang CI forever. */
const REQUEST_TIMEOUT_MS = 5 * 60 * 1000;
/** Attempts of one request; a request that changes something is only retried with an idempotency key. */
const ATTEMPTS = 3;
const RETRY_DELAY_MS = 500;
/** The body is handed to the socket in pieces of this size, so that progress can follow it. */
const CHUNK_BYTES = 256 * 1024;

export interface Service {
  /** The service's address, without a trailing slash. */
  serviceUrl: string;
  token: string;
}

export interface ServiceRequest {
  /** The operation's path below /v1, e.g. "flaky-tests/upload". */
  path: string;
  body: string;
  headers?: Record<string, string>;
  /** What the request does, for messages: "the upload", "setting impacted targets". */
  what: string;
  /** Called as the body's bytes are handed to the connection (again from 0 on a retry). */
  onBytesSent?: (bytes: number) => void;
}

/** Why an attempt failed, and whether another attempt may succeed. */
class AttemptFailed extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

/** POSTs the request, retrying what may succeed later; returns the parsed answer or throws a CliError. */
export async function postToService<T>(service: Service, request: ServiceRequest): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await attemptPost(service, request)) as T;
    } catch (error) {
      if (!(error instanceof AttemptFailed)) throw error;
      if (!error.retry || attempt === ATTEMPTS) throw new CliError(error.message);
      await setTimeout(RETRY_DELAY_MS * attempt);
    }
  }
}

async function attemptPost(service: Service, request: ServiceRequest): Promise<unknown> {
  const url = `${service.serviceUrl}/v1/${request.path}`;
  let response: Response;
  let text: string;
  try {
    const bytes = Buffer.from(request.body);
    response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(bytes.length),
        "x-api-token": service.token,
        ...request.headers,
      },
      body: request.onBytesSent === undefined ? bytes : chunked(bytes, request.onBytesSent),
      duplex: "half",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    } as RequestInit);
    text = await response.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new AttemptFailed(
      `could not reach the Switchyard service at ${service.serviceUrl} (${reason})`,
      true,
    );
  }
  if (response.ok) return JSON.parse(text);
  let problem: { code?: string; detail?: string } = {};
  try {
    problem = JSON.parse(text) as typeof problem;
  } catch {
    // not problem JSON: a proxy's error page, say
  }
  const detail = problem.detail ?? `HTTP ${response.status}`;
  const transient = response.status === 429 || response.status >= 500;
  if (problem.code === undefined) {
    throw new AttemptFailed(`${request.what} failed on the Switchyard service: ${detail}`, transient);
  }
  throw new AttemptFailed(
    `${request.what} was refused: ${detail} (${problem.code})`,
    transient && !UNTIL_SET_UP.has(problem.code),
  );
}

/**
 * Refusals that last until someone changes the service's set-up (the GitHub App registered): another attempt
 * a few seconds later gets the same answer.
 */
const UNTIL_SET_UP = new Set(["github_app_not_registered"]);

/** The body as a stream that reports how much of it the connection has taken. */
function chunked(bytes: Buffer, onBytesSent: (bytes: number) => void): ReadableStream<Uint8Array> {
  let sent = 0;
  onBytesSent(0);
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes.length) {
        controller.close();
        return;
      }
      const chunk = bytes.subarray(sent, sent + CHUNK_BYTES);
      controller.enqueue(chunk);
      sent += chunk.length;
      onBytesSent(sent);
    },
  });
}
