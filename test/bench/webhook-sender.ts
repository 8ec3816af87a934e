// The load generator of test/bench/webhook-load.ts, in a process of its own as GitHub is: signing and sending the
// deliveries does not take the service's CPU. It sends what it is told over IPC and answers the answer times.
import { performance } from "node:perf_hooks";
import { deliverWebhook } from "../support/webhooks.ts";

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

async function send(order: SendOrder): Promise<SendReport> {
  const latencies: number[] = [];
  const started = performance.now();
  const done = (sent: number) =>
    order.count !== undefined ? sent >= order.count : performance.now() - started >= order.durationMs!;
  let next = 0;
  const worker = async () => {
    while (!done(next)) {
      const index = next++;
      const delivery = order.deliveries[((order.from ?? 0) + index) % order.deliveries.length]!;
      const sent = performance.now();
      const response = await deliverWebhook(
        order.url,
        delivery.name,
        delivery.payload,
        `${order.runId}-${index}`,
      );
      if (response.status !== 200) throw new Error(`delivery answered ${response.status}`);
      await response.arrayBuffer();
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: order.concurrency }, worker));
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
