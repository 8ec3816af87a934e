// npm run sandbox [-- options]: the service against a simulated GitHub and CI, fed pull requests until Ctrl-C.
import { Command, InvalidArgumentError, Option } from "commander";
import { startSandbox } from "./sandbox.ts";

const number = (min: number, max: number) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < min || parsed > max) {
    throw new InvalidArgumentError(`must be a number from ${min} to ${max}`);
  }
  return parsed;
};
const percent = (value: string) => number(0, 100)(value) / 100;

const program = new Command("sandbox")
  .description(
    "Runs Switchyard against a simulated GitHub repository and CI, and feeds its queue pull requests. " +
      "Nothing is sent to GitHub.",
  )
  .option("--port <port>", "the service's port", number(0, 65_535), 3000)
  .option("--rate <prs>", "pull requests opened and submitted per minute", number(0.1, 600), 12)
  .option("--broken <percent>", "share of pull requests that break the build", percent, 0.1)
  .option("--flaky <percent>", "share of pull requests that bring a flaky test", percent, 0.1)
  .addOption(
    new Option("--mode <mode>", "the queue's mode").choices(["single", "parallel"]).default("single"),
  )
  .option("--concurrency <runs>", "test runs at once", number(1, 100), 3)
  .option("--no-batch", "test each pull request on its own rather than in batches")
  .option("--ci-seconds <seconds>", "how long CI takes, at most (at least a fifth of it)", number(1, 600), 10)
  .option("--prs <count>", "stop opening pull requests after this many", number(1, 1_000_000))
  .action(async (options) => {
    // A pull request is broken or flaky, never both: the flaky share is what the broken one leaves.
    const flakyShare = Math.min(options.flaky, 1 - options.broken);
    const sandbox = await startSandbox({
      port: options.port,
      prsPerMinute: options.rate,
      brokenShare: options.broken,
      flakyShare,
      mode: options.mode,
      concurrency: options.concurrency,
      batch: options.batch,
      ciMinMs: (options.ciSeconds * 1000) / 5,
      ciMaxMs: options.ciSeconds * 1000,
      maxPullRequests: options.prs ?? Infinity,
      log: (line) => console.log(`  ${new Date().toISOString().slice(11, 19)} ${line}`),
    });
    const share = (value: number) => `${Math.round(value * 100)}%`;
    console.log(
      [
        "",
        "Switchyard sandbox: a simulated GitHub and CI on this machine. Nothing is sent to GitHub.",
        "",
        `  Queue page  ${sandbox.dashboardUrl}`,
        `  Sign in with the token  ${sandbox.token}`,
        `  API         ${sandbox.url}/v1 (x-api-token: the same token; the repository is ${sandbox.github.host}/${sandbox.repository})`,
        "",
        `Opening ${options.rate} pull requests a minute, ${share(options.broken)} broken and ${share(flakyShare)} flaky, ` +
          `into a ${options.mode} queue (concurrency ${options.concurrency}, batching ${options.batch ? "on" : "off"}). Ctrl-C stops.`,
        "",
      ].join("\n"),
    );
    const stop = async () => {
      console.log("\nStopping the sandbox (its database goes with it).");
      await sandbox.stop();
      process.exit(0);
    };
    process.once("SIGINT", () => void stop());
    process.once("SIGTERM", () => void stop());
  });

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
