// The webhook endpoint: GitHub's deliveries, verified and handed to the handlers, each refusal a Problem with a
// stable code (as every /v1 refusal is) rather than Octokit's `{ "error": … }`.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Probot } from "probot";
import { Problem, problemContentType } from "../../http/problem.ts";
import { isJsonContentType } from "../../http/json-body.ts";
import type { DirectHandlers } from "./context.ts";
import { envelopeProblem, payloadProblem } from "./payload-shapes.ts";

/** GitHub caps a delivery's payload at 25 MB: a larger body is not GitHub's. */
const bodyLimitBytes = 25 * 1024 * 1024;
/** GitHub gives up on a delivery after 10 s: a slower handler is answered 202 before then and finishes anyway. */
const answerWithinMs = 9_000;
const requiredHeaders = ["x-github-event", "x-github-delivery", "x-hub-signature-256"] as const;

/**
 * Probot's middleware for the webhook path, replaced by ours: Probot's `createNodeMiddleware` (and its server) mount
 * the middleware `getNodeMiddleware` gives, so the app takes the path by providing that middleware.
 */
export function serveWebhooks(app: Probot, direct: DirectHandlers, previousSecret?: string): void {
  app.getNodeMiddleware = async ({ path } = {}) =>
    webhookHandler(app, direct, path ?? app.webhookPath, previousSecret);
}

function webhookHandler(app: Probot, direct: DirectHandlers, path: string, previousSecret?: string) {
  const normalizedPath = withoutTrailingSlashes(path);
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const pathname = withoutTrailingSlashes((req.url ?? "").split("?")[0] ?? "");
    if (pathname !== normalizedPath) return false;
    const answer = (status: number, body: string, type: string) => {
      if (!res.headersSent) res.writeHead(status, { "content-type": type }).end(body);
    };
    try {
      const delivery = await receivedDelivery(app, req, previousSecret);
      const handler = direct.get(delivery.name);
      const handled = (handler ? handler(delivery) : app.webhooks.receive(delivery)).then(
        () => answer(200, "ok\n", "text/plain"),
        (error: unknown) => {
          const refusal = handlerRefusal(error);
          if (refusal !== undefined)
            return answer(refusal.status, JSON.stringify(refusal.toBody()), problemContentType);
          // GitHub shows the delivery as failed, and redelivering it runs the handlers again.
          app.log.error(
            { err: error, delivery: delivery.id, event: delivery.name },
            "webhook handler failed",
          );
          const problem = new Problem(
            500,
            "internal_error",
            `delivery ${delivery.id} failed; see the service's log`,
          );
          answer(problem.status, JSON.stringify(problem.toBody()), problemContentType);
        },
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(() => resolve(answer(202, "still processing\n", "text/plain")), answerWithinMs);
      });
      await Promise.race([handled, late]).finally(() => clearTimeout(timer));
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      if (error.status === 405) res.setHeader("allow", "POST");
      answer(error.status, JSON.stringify(error.toBody()), problemContentType);
    }
    return true;
  };
}

/** A Problem a handler answered with on purpose (Octokit gathers the handlers' errors in an AggregateError). */
function handlerRefusal(error: unknown): Problem | undefined {
  if (error instanceof Problem) return error;
  const errors = error instanceof AggregateError ? (error.errors as unknown[]) : [];
  return errors.find((inner): inner is Problem => inner instanceof Problem);
}

/** The delivery the request carries, once its signature is verified and its payload is one the handlers read. */
async function receivedDelivery(app: Probot, req: IncomingMessage, previousSecret: string | undefined) {
  if (req.method !== "POST") {
    throw new Problem(405, "method_not_allowed", `${req.method} is not allowed on webhooks; use POST`);
  }
  if (!isJsonContentType(req.headers["content-type"])) {
    throw new Problem(
      415,
      "unsupported_media_type",
      "GitHub sends webhooks as Content-Type: application/json",
    );
  }
  const missing = requiredHeaders.filter((header) => typeof req.headers[header] !== "string");
  if (missing.length > 0) {
    throw new Problem(400, "webhook_headers_missing", `a webhook needs the headers ${missing.join(", ")}`);
  }
  const [name, id, signature] = requiredHeaders.map((header) => req.headers[header] as string) as [
    string,
    string,
    string,
  ];
  const body = await boundedBody(req);
  // Octokit's `verify` compares the HMAC in constant time; a malformed signature makes it throw. During a rotation
  // of the secret, GitHub may still sign with the previous one.
  const verified =
    (await app.webhooks.verify(body, signature).catch(() => false)) ||
    (previousSecret !== undefined && signedWith(previousSecret, body, signature));
  if (!verified) {
    throw new Problem(
      401,
      "webhook_signature_invalid",
      "the signature does not match the payload and the secret",
    );
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    throw new Problem(400, "invalid_json", "the webhook's body is not valid JSON");
  }
  const problem = envelopeProblem(payload) ?? payloadProblem(name, payload);
  if (problem !== null) throw new Problem(400, "invalid_webhook_payload", problem);
  return { id, name, payload } as Parameters<Probot["webhooks"]["receive"]>[0];
}

/** Whether `signature` (GitHub's `sha256=<hex>`) is the HMAC-SHA256 of `body` under `secret`, compared in constant time. */
function signedWith(secret: string, body: string, signature: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(body).digest("hex")}`);
  const presented = Buffer.from(signature);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** The body, read to its end (so that the refusal of one too large reaches the sender) but kept only up to the limit. */
async function boundedBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= bodyLimitBytes) chunks.push(chunk);
  }
  if (size > bodyLimitBytes) {
    throw new Problem(
      413,
      "payload_too_large",
      `a webhook's body is at most ${bodyLimitBytes} bytes (25 MiB)`,
    );
  }
  return Buffer.concat(chunks).toString("utf8");
}

function withoutTrailingSlashes(path: string): string {
  return path.replace(/\/+$/, "") || "/";
}
