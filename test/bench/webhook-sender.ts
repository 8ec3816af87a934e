// The load generator of test/bench/webhook-load.ts, in a process of its own as GitHub is: signing and sending the
// deliveries does not take the service's CPU. It sends what it is told over IPC and answers the answer times. Its
// own cost per delivery must stay well below the service's, or it measures itself: bodies are signed before the
// clock starts, and sent with node:http over kept-alive connections (fetch cost twice the service's CPU per event).
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { webhookSignature } from "../support/webhooks.ts";

export interface SendOrder {
  url: string;
  deliveries: readonly { name: string; payload: unknown }[];
  concurrency: number;
  /** Stop after this many deliveries, or once this many ms have passed. */
  count?: number;
  durationMs?: number;
  /** The index of the first delivery to send (0 unless told); after the last, they are sent again from the first. */
  from?: number;
  /** Prefix of the delivery ids: every order sends fresh ones. */
  runId: string;
}

export interface SendReport {
  seconds: number;
  /** Answer times in ms, in order of completion. */
  latencies: number[];
}

interface SignedDelivery {
  name: string;
  body: Buffer;
  signature: string;
}

/** POSTs one delivery as GitHub does; resolves with the answer's status once its body is read. */
function post(url: URL, agent: Agent, delivery: SignedDelivery, id: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": delivery.body.length,
          "x-github-event": delivery.name,
          "x-github-delivery": id,
          "x-hub-signature-256": delivery.signature,
        },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode!));
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(delivery.body);
  });
}

async function send(order: SendOrder): Promise<SendReport> {
  const url = new URL("/api/github/webhooks", order.url);
  const agent = new Agent({ keepAlive: true, maxSockets: order.concurrency });
  const signed = order.deliveries.map(({ name, payload }): SignedDelivery => {
    const body = JSON.stringify(payload);
    return { name, body: Buffer.from(body), signature: webhookSignature(body) };
  });
  const latencies: number[] = [];
  const started = performance.now();
  const done = (sent: number) =>
    order.count !== undefined ? sent >= order.count : performance.now() - started >= order.durationMs!;
  let next = 0;
  const worker = async () => {
    while (!done(next)) {
      const index = next++;
      const delivery = signed[((order.from ?? 0) + index) % signed.length]!;
      const sent = performance.now();
      const status = await post(url, agent, delivery, `${order.runId}-${index}`);
      if (status !== 200) throw new Error(`delivery answered ${status}`);
      latencies.push(performance.now() - sent);
    }
  };
  try {
    await Promise.all(Array.from({ length: order.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return { seconds: (performance.now() - started) / 1000, latencies };
}

process.on("message", (order: SendOrder) => {
  send(order).then(
    (report) => process.send!(report),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
