// GitHub's webhook deliveries as the fault-injection test makes them: every webhook the fake emits, signed
// with the app's secret and posted to a live replica, but some twice, some never, and each after a random
// wait so that they arrive out of order. A delivery to a replica that just died is lost, as on GitHub
// (it does not redeliver by itself).
import { createHmac } from "node:crypto";
import type { AnyWebhookDelivery, FakeGitHub } from "../../src/sandbox/fake-github/index.ts";
import type { ChaosSettings } from "./settings.ts";

export interface DeliveryFigures {
  emitted: number;
  /** Posts the service answered, whatever the status. */
  answered: number;
  duplicated: number;
  /** Never sent (GitHub's lost deliveries). */
  dropped: number;
  /** Arrived after a webhook emitted later. */
  reordered: number;
  /** Sent to a replica that died before it answered. */
  lostToKilledReplica: number;
  /** Answers by status code. */
  statuses: Record<number, number>;
}

export class WebhookCourier {
  readonly figures: DeliveryFigures = {
    emitted: 0,
    answered: 0,
    duplicated: 0,
    dropped: 0,
    reordered: 0,
    lostToKilledReplica: 0,
    statuses: {},
  };
  /** The ids of the deliveries the service answered with a 2xx. */
  readonly acknowledged = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly waiting = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private sequence = 0;
  private latestSent = 0;

  constructor(
    private readonly fake: FakeGitHub,
    private readonly settings: ChaosSettings,
    private readonly random: () => number,
    private readonly secret: string,
    /** The base URLs of the replicas that are up now. */
    private readonly replicas: () => readonly string[],
    /** Sees every webhook as GitHub emits it, delivered or not (CI and the test's records). */
    private readonly observe: (delivery: AnyWebhookDelivery) => void,
  ) {}

  start(intervalMs = 50): void {
    this.timer = setInterval(() => this.pump(), intervalMs);
  }

  /** Stops delivering; what is already on its way arrives. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (const timer of this.waiting) clearTimeout(timer);
    this.waiting.clear();
    await Promise.all(this.inFlight);
  }

  /** Shows the observer what GitHub emitted since the last delivery, delivering none of it (the run is over). */
  observeRest(): void {
    for (const delivery of this.fake.takeWebhooks()) this.observe(delivery);
  }

  private pump(): void {
    const { duplicateRate, dropRate } = this.settings.webhooks;
    for (const delivery of this.fake.takeWebhooks()) {
      this.observe(delivery);
      this.figures.emitted += 1;
      const sequence = ++this.sequence;
      if (this.random() < dropRate) {
        this.figures.dropped += 1;
        continue;
      }
      this.sendLater(delivery, sequence);
      if (this.random() < duplicateRate) {
        this.figures.duplicated += 1;
        this.sendLater(delivery, sequence);
      }
    }
  }

  private sendLater(delivery: AnyWebhookDelivery, sequence: number): void {
    const timer = setTimeout(() => {
      this.waiting.delete(timer);
      const sent = this.send(delivery, sequence).finally(() => this.inFlight.delete(sent));
      this.inFlight.add(sent);
    }, this.random() * this.settings.webhooks.maxReorderMs);
    this.waiting.add(timer);
  }

  private async send(delivery: AnyWebhookDelivery, sequence: number): Promise<void> {
    if (sequence < this.latestSent) this.figures.reordered += 1;
    this.latestSent = Math.max(this.latestSent, sequence);
    const replicas = this.replicas();
    const replica = replicas[Math.floor(this.random() * replicas.length)];
    if (replica === undefined) {
      this.figures.lostToKilledReplica += 1;
      return;
    }
    const body = JSON.stringify(delivery.payload);
    const signature = `sha256=${createHmac("sha256", this.secret).update(body).digest("hex")}`;
    try {
      const response = await fetch(`${replica}/api/github/webhooks`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": delivery.name,
          "x-github-delivery": delivery.id,
          "x-hub-signature-256": signature,
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      this.figures.answered += 1;
      this.figures.statuses[response.status] = (this.figures.statuses[response.status] ?? 0) + 1;
      if (response.ok) this.acknowledged.add(delivery.id);
    } catch {
      this.figures.lostToKilledReplica += 1;
    }
  }
}
