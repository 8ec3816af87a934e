// The container image and the compose file. What can be checked without Docker always is: the stages, the user, the
// entry point and the health check's own command against a running service. Building the image and watching its
// health check turn healthy needs a Docker daemon: skipped, saying so, where `docker info` fails.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { promisify } from "node:util";
import ignore from "ignore";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { useTestServer } from "./support/api-server.ts";
import { testPrivateKey } from "./support/github-app.ts";

const run = promisify(execFile);
const root = new URL("..", import.meta.url).pathname;
const dockerfile = readFileSync(new URL("../Dockerfile", import.meta.url), "utf8");
const instructions = dockerfile
  .replace(/\\\n\s*/g, " ")
  .split("\n")
  .filter((line) => /^[A-Z]+\s/.test(line));
const finalStage = instructions.slice(instructions.findLastIndex((line) => line.startsWith("FROM ")));
const healthcheck = JSON.parse(
  (finalStage.find((line) => line.startsWith("HEALTHCHECK ")) ?? "").replace(/^.*CMD\s+/, ""),
) as string[];

const dockerDaemon = spawnSync("docker", ["info"], { stdio: "ignore", timeout: 10_000 }).status === 0;
const withoutDocker = dockerDaemon
  ? ""
  : " (skipped: no Docker daemon answers `docker info` on this machine)";
const composeCli =
  spawnSync("docker", ["compose", "version"], { stdio: "ignore", timeout: 10_000 }).status === 0;
const withoutCompose = composeCli ? "" : " (skipped: `docker compose` is not installed on this machine)";

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("Dockerfile", () => {
  it("builds in one stage and runs the compiled service in another, as a user other than root", () => {
    expect(instructions.filter((line) => line.startsWith("FROM ")).length).toBeGreaterThanOrEqual(2);
    const user = finalStage.filter((line) => line.startsWith("USER ")).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER\s+(root|0)(:|\s|$)/);
    const packageJson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    // The same entry point `npm run start:dist` runs after `npm run build`.
    expect(finalStage.at(-1)).toBe('CMD ["node", "dist/src/main.js"]');
    expect(packageJson.scripts["start:dist"]).toBe("node dist/src/main.js");
  });

  it("copies only files the build context holds", () => {
    const ignored = ignore().add(readFileSync(new URL("../.dockerignore", import.meta.url), "utf8"));
    const sources = instructions
      .filter((line) => line.startsWith("COPY ") && !line.includes("--from="))
      .flatMap((line) => line.split(/\s+/).slice(1, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(`${root}/${source}`), source).toBe(true);
      expect(ignored.ignores(source), source).toBe(false);
    }
    for (const secret of [".env", "switchyard.private-key.pem", "node_modules", "data/switchyard.db"]) {
      expect(ignored.ignores(secret), secret).toBe(true);
    }
  });

  describe("its health check's command", () => {
    const fixture = useTestServer();
    /** The probe's exit code, as Docker would run it in the container (PORT is set there). */
    const probe = (port: string) =>
      run(process.execPath, healthcheck.slice(1), { env: { PORT: port }, timeout: 10_000 }).then(
        () => 0,
        (error: { code: number }) => error.code,
      );

    it("passes while the service answers /healthz, and fails when nothing listens", async () => {
      expect(healthcheck[0]).toBe("node");
      expect(healthcheck.join(" ")).toContain("/healthz");
      expect(await probe(new URL(fixture.server.url).port)).toBe(0);
      expect(await probe(String(await closedPort()))).toBe(1);
    });
  });

  it.skipIf(!dockerDaemon)(
    `builds an image whose container turns healthy${withoutDocker}`,
    { timeout: 900_000 },
    async () => {
      const tag = `switchyard-test:${process.pid}`;
      await run("docker", ["build", "-t", tag, root], { maxBuffer: 64 * 1024 * 1024 });
      // The image runs in production: it starts only with the app's credentials (GitHub is not asked at start).
      const credentials = { APP_ID: "1", PRIVATE_KEY: testPrivateKey(), WEBHOOK_SECRET: "secret" };
      const { stdout } = await run("docker", [
        ...["run", "-d", "--rm"],
        ...Object.entries(credentials).flatMap(([name, value]) => ["-e", `${name}=${value}`]),
        tag,
      ]);
      const container = stdout.trim();
      try {
        let status = "";
        for (let attempt = 0; attempt < 60 && status !== "healthy"; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 2000));
          status = (
            await run("docker", ["inspect", "-f", "{{.State.Health.Status}}", container])
          ).stdout.trim();
        }
        expect(status).toBe("healthy");
        const user = (await run("docker", ["exec", container, "id", "-u"])).stdout.trim();
        expect(user).not.toBe("0");
      } finally {
        await run("docker", ["rm", "-f", container]);
        await run("docker", ["rmi", tag]);
      }
    },
  );
});

describe("compose.yaml", () => {
  const compose = parse(readFileSync(new URL("../compose.yaml", import.meta.url), "utf8"));

  it("runs the service built from the Dockerfile on the PostgreSQL service, once that is healthy", () => {
    const { switchyard, postgres } = compose.services;
    expect(switchyard.build).toBe(".");
    const database = new URL(switchyard.environment.DATABASE_URL);
    expect(database.protocol).toBe("postgres:");
    expect(database.hostname).toBe("postgres");
    expect(postgres.image).toMatch(/^postgres:/);
    expect(database.username).toBe(postgres.environment.POSTGRES_USER);
    expect(database.password).toBe(postgres.environment.POSTGRES_PASSWORD);
    expect(database.pathname).toBe(`/${postgres.environment.POSTGRES_DB}`);
    expect(switchyard.depends_on.postgres.condition).toBe("service_healthy");
    expect(postgres.healthcheck.test).toContain("pg_isready");
  });

  it("refuses to start the service without the app's credentials, rather than restart it in a loop", () => {
    const { switchyard } = compose.services;
    expect(switchyard.restart).toBe("unless-stopped");
    // A missing .env is no error of its own; a missing APP_ID stops `docker compose up` with this message.
    expect(switchyard.env_file).toEqual([{ path: ".env", required: false }]);
    expect(switchyard.environment.APP_ID).toMatch(/^\$\{APP_ID:\?register the GitHub App first .+\}$/);
  });

  it.skipIf(!composeCli)(`is a valid compose file${withoutCompose}`, async () => {
    const project = ["compose", "-f", `${root}/compose.yaml`, "config", "--quiet"];
    await run("docker", project, { env: { ...process.env, APP_ID: "1" } });
    // Without APP_ID anywhere, compose says what to do and starts nothing.
    const withoutEnvFile = ["compose", "--env-file", "/dev/null", ...project.slice(1)];
    const refused = await run("docker", withoutEnvFile, { env: { PATH: process.env.PATH ?? "" } }).then(
      () => "",
      (error: { stderr: string }) => error.stderr,
    );
    expect(refused).toContain("register the GitHub App first");
  });
});
