// /healthz, /readyz and /metrics: outside /v1, without a token, for load balancers, Kubernetes probes and the
// operator's Prometheus.
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../src/store/database.ts";
import { latestMigration } from "../src/store/migrations.ts";
import { startTestServer, type TestServer } from "./support/api-server.ts";
import { createTestStore, type TestStore, testDialects } from "./support/database.ts";

describe.each(testDialects)("operator endpoints on %s", (dialect) => {
  let store: TestStore;
  let server: TestServer;
  const start = async (env: Record<string, string> = {}) => {
    store = await createTestStore(dialect);
    server = await startTestServer(store, { env });
  };
  afterEach(async () => {
    await server.close();
    await store.destroy();
  });

  it("/healthz answers while the process runs, without a token", async () => {
    await start();
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
    const head = await fetch(`${server.url}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("/ names where to go: the API's description, the test pages and the probes", async () => {
    await start();
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    const { links } = (await response.json()) as { links: Record<string, string> };
    expect(links).toMatchObject({ apiDocs: "/v1/openapi.json", health: "/healthz", readiness: "/readyz" });
    expect((await fetch(`${server.url}${links.apiDocs}`)).status).toBe(200);
    expect(links.testHealthPages).toBe("/tests/{host}/{owner}/{name}");
  });

  it("/readyz is 200 once the database answers and holds the latest migration", async () => {
    await start();
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ready", migration: latestMigration });
  });

  it("/readyz is 503 while a migration is missing, and says how to apply it", async () => {
    await start();
    await store.db.deleteFrom("kysely_migration").where("name", "=", latestMigration).execute();
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toMatchObject({
      status: 503,
      code: "migrations_pending",
      detail: `the database lacks migration ${latestMigration}: run \`switchyard migrate\``,
    });
  });

  it("/readyz is 503 once the database is gone, without naming it", async () => {
    await start();
    await store.close();
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(503);
    const body = await response.json();
    expect(body).toMatchObject({
      status: 503,
      code: "database_unreachable",
      detail: "the database does not answer",
    });
    expect(JSON.stringify(body)).not.toContain(store.databaseUrl);
    // /healthz is about the process only: the load balancer keeps it, Kubernetes does not restart it.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("serves process metrics at /metrics only when OPERATOR_METRICS is on", async () => {
    await start();
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    await server.close();
    server = await startTestServer(store, { env: { OPERATOR_METRICS: "true" } });
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await response.text();
    expect(text).toContain("# TYPE process_cpu_user_seconds_total counter");
    expect(text).toContain("nodejs_eventloop_lag_seconds");
    expect(text).not.toContain("mq_depth_current");
  });

  it("answers other methods with 405", async () => {
    await start();
    const response = await fetch(`${server.url}/readyz`, { method: "POST" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
    expect(((await response.json()) as any).code).toBe("method_not_allowed");
  });
});

describe("/readyz on a database never migrated", () => {
  it("is 503 migrations_pending", async () => {
    const store = await createTestStore("sqlite");
    const unmigrated = openDatabase(`${store.databaseUrl}-empty`);
    const server = await startTestServer(unmigrated);
    try {
      const response = await fetch(`${server.url}/readyz`);
      expect(response.status).toBe(503);
      expect(((await response.json()) as any).code).toBe("migrations_pending");
    } finally {
      await server.close();
      await unmigrated.close();
      await store.destroy();
    }
  });
});
