// The service as a fresh clone's `npm start` runs it, before any GitHub App is registered: Probot's setup page,
// and beside it what needs no app. A token is made with the CLI, reports are uploaded with the CLI, and test health
// is listed and read through the API and the pages; the queue's endpoints say how to register the app.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ciVariables } from "../src/cli/ci-environment.ts";
import { runCli } from "../src/cli/program.ts";
import { loadConfig } from "../src/config.ts";
import { freePort } from "./support/ports.ts";
import { junitReport, widgetsTestId } from "./support/test-health.ts";

const root = join(import.meta.dirname, "..");
const tsxLoader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;

describe("setup mode (no GitHub App registered)", () => {
  let cwd: string;
  let url: string;
  let child: ChildProcess;
  let token: string;
  let log = "";
  const databaseUrl = () => `file:${join(cwd, "service.db")}`;

  async function cli(...argv: string[]) {
    let out = "";
    let err = "";
    const code = await runCli(argv, {
      out: (text) => (out += text),
      err: (text) => (err += text),
      config: () => loadConfig({ DATABASE_URL: databaseUrl() }),
      now: Date.now,
    });
    return { code, out, err };
  }
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${url}/v1/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": token },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      body: (await response.json()) as any,
    };
  };

  beforeAll(async () => {
    for (const name of ciVariables) vi.stubEnv(name, "");
    cwd = mkdtempSync(join(tmpdir(), "switchyard-setup-"));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ["--import", tsxLoader, join(root, "src/main.ts")], {
      cwd,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: cwd,
        NODE_ENV: "development",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: databaseUrl(),
        OPERATOR_METRICS: "true",
        APP_ID: "",
        PRIVATE_KEY: "",
      },
    });
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        log += chunk.toString();
        if (/Listening on http/.test(log)) resolve();
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.on("exit", (code) => reject(new Error(`exited with ${code}:\n${log}`)));
    });
    const created = await cli("token", "create", "--org", "acme");
    expect(created.code).toBe(0);
    token = created.out.trim();
  }, 60_000);
  afterAll(() => {
    vi.unstubAllEnvs();
    child?.kill("SIGKILL");
    rmSync(cwd, { recursive: true, force: true });
  });

  it("says on start, in one line, where to register the app and what works until then", () => {
    const lines = log.split("\n").filter((line) => line.startsWith("{"));
    const said = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    const banner = said.find((message) => message.startsWith("No GitHub App is registered yet"));
    expect(banner).toContain(`open ${url} to register one`);
    expect(banner).toMatch(/then restart the service\. Until then, API tokens, test health .* work;/);
    // Probot's welcome, which says that custom routes will not work until then, is not repeated; nor an empty line.
    expect(said.filter((message) => /custom routes will not work|Welcome to Probot/.test(message))).toEqual(
      [],
    );
    expect(said).not.toContain("");
  });

  it("serves the setup page, the probes, the OpenAPI document and the operator metrics", async () => {
    expect(await (await fetch(`${url}/probot`)).text()).toContain("Register GitHub App");
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    const openApi = await fetch(`${url}/v1/openapi.json`);
    expect(openApi.status).toBe(200);
    expect(((await openApi.json()) as any).paths).toHaveProperty("/v1/flaky-tests/upload");
    expect(await (await fetch(`${url}/metrics`)).text()).toContain("process_resident_memory_bytes");
  });

  it("takes uploads from the CLI and answers test health through the API and the pages", async () => {
    for (const [index, outcome] of (["failed", "passed"] as const).entries()) {
      writeFileSync(
        join(cwd, `report-${index}.xml`),
        junitReport([{ name: "adds", outcome }, { name: "removes" }]),
      );
      const uploaded = await cli(
        "upload",
        "--junit-paths",
        join(cwd, `report-${index}.xml`),
        "--url",
        url,
        "--token",
        token,
        "--repo",
        "acme/widgets",
        "--commit-sha",
        "c".repeat(40),
        "--branch",
        "main",
      );
      expect(uploaded, uploaded.err).toMatchObject({ code: 0 });
    }
    const target = { repo: { host: "github.com", owner: "acme", name: "widgets" }, org_url_slug: "acme" };
    const unhealthy = await post("flaky-tests/list-unhealthy-tests", {
      ...target,
      status: "flaky",
      page_query: {},
    });
    expect(unhealthy.status).toBe(200);
    expect(unhealthy.body.tests.map((test: any) => test.name)).toEqual(["adds"]);
    const details = await post("flaky-tests/get-test-details", { ...target, test_id: widgetsTestId("adds") });
    expect(details.body.test.status).toMatchObject({ value: "flaky" });
    const page = await fetch(`${url}/tests/github.com/acme/widgets`);
    expect(page.status).toBe(401);
    expect(await page.text()).toContain("Sign in");
  });

  it("answers the queue's endpoints 503 github_app_not_registered, saying how to register the app", async () => {
    const repo = { host: "github.com", owner: "acme", name: "widgets" };
    for (const [path, body] of [
      ["createQueue", { repo, targetBranch: "main" }],
      ["getQueue", { repo, targetBranch: "main" }],
      ["listQueues", { repo }],
      ["submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } }],
    ] as const) {
      const answer = await post(path, body);
      expect(answer.status, path).toBe(503);
      expect(answer.type).toBe("application/problem+json; charset=utf-8");
      expect(answer.body).toMatchObject({ code: "github_app_not_registered" });
      expect(answer.body.detail).toContain("setup page");
    }
    const unauthenticated = await fetch(`${url}/v1/getQueue`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(unauthenticated.status).toBe(401);
  });
});
