// Rotating the webhook secret without losing deliveries: while WEBHOOK_SECRET_PREVIOUS is set, a delivery signed
// with either secret is taken; any other signature is refused as before.
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/api-server.ts";
import { createTestStore, type TestStore } from "../support/database.ts";
import { testWebhookSecret } from "../support/github-app.ts";

const previousSecret = "the-secret-before-rotation";

function ping(url: string, secret: string): Promise<Response> {
  const body = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 });
  return fetch(`${url}/api/github/webhooks`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "ping",
      "x-github-delivery": "delivery-1",
      "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
    },
    body,
  });
}

describe("webhook secret rotation", () => {
  let store: TestStore;
  let server: TestServer;
  afterEach(async () => {
    await server.close();
    await store.close();
  });

  it("takes deliveries signed with the current or the previous secret while both are set", async () => {
    store = await createTestStore("sqlite");
    server = await startTestServer(store, { env: { WEBHOOK_SECRET_PREVIOUS: previousSecret } });
    expect((await ping(server.url, testWebhookSecret)).status).toBe(200);
    expect((await ping(server.url, previousSecret)).status).toBe(200);
    const forged = await ping(server.url, "some-other-secret");
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ code: "webhook_signature_invalid" });
  });

  it("refuses the previous secret once it is unset", async () => {
    store = await createTestStore("sqlite");
    server = await startTestServer(store);
    expect((await ping(server.url, testWebhookSecret)).status).toBe(200);
    expect((await ping(server.url, previousSecret)).status).toBe(401);
  });
});
