// Delivers a webhook to the app as GitHub does: JSON body, event name, delivery id and HMAC signature.
import { createHmac, randomUUID } from "node:crypto";
import { testWebhookSecret } from "./github-app.ts";

/** The X-Hub-Signature-256 GitHub sends with `body`. */
export function webhookSignature(body: string): string {
  return `sha256=${createHmac("sha256", testWebhookSecret).update(body).digest("hex")}`;
}

export async function deliverWebhook(
  baseUrl: string,
  event: string,
  payload: unknown,
  deliveryId: string = randomUUID(),
): Promise<Response> {
  const body = JSON.stringify(payload);
  const signature = webhookSignature(body);
  return fetch(`${baseUrl}/api/github/webhooks`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": event,
      "x-github-delivery": deliveryId,
      "x-hub-signature-256": signature,
    },
    body,
  });
}
