// The fault-injection test's CI and webhook deliveries: CI answers pushes to test branches, and every
// webhook reaches a replica signed with the app's secret (twice when told, never when told).
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../src/sandbox/fake-github/index.ts";
import { brokenContent, CiSimulator } from "../../src/sandbox/ci-simulator.ts";
import { chaosSettings } from "./settings.ts";
import { WebhookCourier } from "./webhook-courier.ts";

const secret = "chaos-secret";
const until = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
};

describe("CI and webhook deliveries of the fault-injection test", () => {
  let receiver: Server;
  let received: { event: string; id: string; signed: boolean }[];
  let fake: FakeGitHub;
  let ci: CiSimulator;
  let courier: WebhookCourier | undefined;

  beforeEach(async () => {
    received = [];
    receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        const expected = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
        received.push({
          event: request.headers["x-github-event"] as string,
          id: request.headers["x-github-delivery"] as string,
          signed: request.headers["x-hub-signature-256"] === expected,
        });
        response.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    fake = new FakeGitHub();
    fake.createRepository("acme/anvil", { installationId: 1 });
    fake.takeWebhooks();
  });
  afterEach(async () => {
    ci.stop();
    await courier?.stop();
    receiver.close();
  });

  const run = (webhooks: { duplicateRate: number; dropRate: number }) => {
    const settings = {
      ...chaosSettings,
      ci: { ...chaosSettings.ci, flakeRate: 0, minDelayMs: 10, maxDelayMs: 20 },
      webhooks: { ...webhooks, maxReorderMs: 0 },
    };
    ci = new CiSimulator(fake, settings, Math.random, "mq/");
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    courier = new WebhookCourier(
      fake,
      settings,
      Math.random,
      secret,
      () => [url],
      (delivery) => ci.observe(delivery),
    );
    courier.start(5);
  };

  it("reports both required contexts on a test branch's head, and fails a broken change", async () => {
    run({ duplicateRate: 0, dropRate: 0 });
    const repo = fake.repository("acme/anvil");
    const good = repo.createBranch("mq/main/1");
    repo.createBranch("mq/main/2");
    const broken = repo.commit("mq/main/2", { "changes/pr-2.txt": brokenContent });
    repo.createBranch("feature");
    await until(() => ci.runs.length === 2);

    expect(ci.passedOn("acme/anvil", good)).toBe(true);
    expect(ci.passedOn("acme/anvil", broken)).toBe(false);
    expect(repo.statuses(broken)[0]).toMatchObject({ context: "ci/build", state: "failure" });
    expect(repo.checkRuns(broken)[0]).toMatchObject({ name: "tests", conclusion: "failure" });
    // CI never ran on the first head of mq/main/2: the push of the broken commit replaced it.
    expect(ci.runs.map((r) => r.branch).sort()).toEqual(["mq/main/1", "mq/main/2"]);
    await until(() => received.some((delivery) => delivery.event === "status"));
    expect(received.every((delivery) => delivery.signed)).toBe(true);
  });

  it("delivers every webhook twice, or none, as told", async () => {
    run({ duplicateRate: 1, dropRate: 0 });
    fake.repository("acme/anvil").createBranch("feature");
    await until(() => courier?.figures.answered === 2);
    expect(received[0]?.id).toBe(received[1]?.id);
    expect(courier?.figures).toMatchObject({ emitted: 1, duplicated: 1, answered: 2 });

    await courier?.stop();
    received = [];
    run({ duplicateRate: 0, dropRate: 1 });
    fake.repository("acme/anvil").createBranch("other");
    await until(() => courier?.figures.dropped === 1);
    expect(received).toEqual([]);
  });
});
