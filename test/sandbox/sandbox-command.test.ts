// `npm run sandbox` as a newcomer runs it: what it says on screen (nothing goes to GitHub, the settings it runs with,
// where to look and the token to sign in with), a token that opens the API it names, and Ctrl-C stopping it.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const tsxLoader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;

describe("npm run sandbox", () => {
  let child: ChildProcess;
  let screen = "";

  beforeAll(async () => {
    const options = ["--port", "0", "--prs", "1", "--broken", "80", "--flaky", "50", "--ci-seconds", "1"];
    child = spawn(process.execPath, ["--import", tsxLoader, join(root, "src/sandbox/main.ts"), ...options], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
    });
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        screen += chunk.toString();
        if (/opened and submitted #1/.test(screen)) resolve();
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.on("exit", (code) => reject(new Error(`exited with ${code}:\n${screen}`)));
    });
  }, 90_000);
  afterAll(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  it("says nothing goes to GitHub, with the shares of broken and flaky PRs it opens", () => {
    expect(screen).toContain("a simulated GitHub and CI on this machine. Nothing is sent to GitHub.");
    // A PR is broken or flaky, not both: 80% broken leaves at most 20% flaky, whatever --flaky asked.
    expect(screen).toContain(
      "Opening 12 pull requests a minute, 80% broken and 20% flaky, into a single queue",
    );
    expect(screen).toMatch(
      /Queue page {2}http:\/\/127\.0\.0\.1:\d+\/queues\/127\.0\.0\.1%3A\d+\/sandbox\/demo\/main/,
    );
  });

  it("prints a token that opens the API it names, on the queue it opened", async () => {
    const token = /Sign in with the token {2}(\S+)/.exec(screen)?.[1];
    const api = /API {9}(\S+)/.exec(screen)?.[1];
    const host = /the repository is (\S+)\/sandbox\/demo/.exec(screen)?.[1];
    const response = await fetch(`${api}/listQueues`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": token ?? "" },
      body: JSON.stringify({ repo: { host, owner: "sandbox", name: "demo" } }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ queues: [expect.objectContaining({ branch: "main" })] });
  });

  it("stops on Ctrl-C", async () => {
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(screen).toContain("Stopping the sandbox");
  }, 30_000);
});
