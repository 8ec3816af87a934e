// switchyard set-impacted-targets (POST /v1/setImpactedTargets): tells a parallel queue which build or test targets
// a pull request's head commit impacts, as a monorepo's CI computes them (bazel-diff, nx affected, …), or that it
// impacts all of them. On a pull_request workflow of GitHub Actions the PR, its head and its target branch come
// from the event.
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { readCiEnvironment } from "./ci-environment.ts";
import { CliError, type ClientContext } from "./io.ts";
import { pullRequestOfEvent } from "./pull-request-event.ts";
import { RequiredValues } from "./required-values.ts";
import { postToService } from "./service-client.ts";
import { addServiceOptions, type ServiceOptions } from "./service-options.ts";
import { checkServiceUrl, ownerAndName, repoHost } from "./upload-metadata.ts";

interface ImpactedTargetsOptions extends ServiceOptions {
  target?: string[];
  targetsFile?: string;
  all?: boolean;
  targetBranch?: string;
  prNumber?: string;
  prSha?: string;
}

interface ImpactedTargetsAnswer {
  prNumber: number;
  prSha: string;
  impactedTargets: number | "ALL";
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerImpactedTargetsCommand(program: Command, context: ClientContext): void {
  const command = program
    .command("set-impacted-targets")
    .description("set the build/test targets a pull request impacts, for parallel queues")
    .option("--target <name...>", "an impacted target (repeatable)", collect)
    .option(
      "--targets-file <path>",
      "a file of impacted targets, one a line (blank lines and # comments ignored)",
    )
    .option("--all", "the pull request impacts every target");
  addServiceOptions(command)
    .option(
      "--target-branch <name>",
      "the queue's branch (default: the PR's base from the event, or GITHUB_BASE_REF)",
    )
    .option(
      "--pr-number <number>",
      "the pull request (default: from the event, or GITHUB_REF refs/pull/<n>/merge)",
    )
    .option("--pr-sha <sha>", "the PR's head commit the targets are for (default: from the event)")
    .action(async (options: ImpactedTargetsOptions) => {
      const targets = await impactedTargets(options);
      const env = readCiEnvironment();
      const event = await pullRequestOfEvent(env.GITHUB_EVENT_PATH);
      const required = new RequiredValues();
      const need = required.need.bind(required);
      const { serviceUrl, token, repository } = required.serviceAndRepository(options, env);
      const targetBranch = need(
        options.targetBranch ?? event.baseRef ?? env.GITHUB_BASE_REF,
        "the target branch (--target-branch, the pull_request event or GITHUB_BASE_REF)",
      );
      const prNumber = need(
        options.prNumber ??
          (event.number === undefined ? undefined : String(event.number)) ??
          /^refs\/pull\/(\d+)\/merge$/.exec(env.GITHUB_REF ?? "")?.[1],
        "the pull request (--pr-number, the pull_request event or GITHUB_REF)",
      );
      const prSha = need(
        options.prSha ?? event.headSha,
        "the PR's head commit (--pr-sha or the pull_request event)",
      );
      required.check("set impacted targets");
      checkServiceUrl(serviceUrl);
      if (!/^[1-9]\d{0,9}$/.test(prNumber))
        throw new CliError(`--pr-number must be a number, got "${prNumber}"`);
      if (!/^[0-9a-f]{40}$/i.test(prSha))
        throw new CliError(`--pr-sha must be a 40-hex commit, got "${prSha}"`);
      const { owner, name } = ownerAndName(repository);

      const answer = await postToService<ImpactedTargetsAnswer>(
        { serviceUrl: serviceUrl.replace(/\/+$/, ""), token },
        {
          path: "setImpactedTargets",
          body: JSON.stringify({
            repo: { host: repoHost(options, env), owner, name },
            targetBranch,
            pr: { number: Number(prNumber), sha: prSha },
            impactedTargets: targets,
          }),
          what: "setting impacted targets",
        },
      );
      const what =
        answer.impactedTargets === "ALL"
          ? "every target"
          : `${answer.impactedTargets} target${answer.impactedTargets === 1 ? "" : "s"}`;
      context.out(
        `#${answer.prNumber} at ${answer.prSha.slice(0, 12)} impacts ${what} (${owner}/${name} ${targetBranch})\n`,
      );
      context.output?.("impacted-targets", String(answer.impactedTargets));
    });
}

/** The targets the flags name: exactly one of --target, --targets-file and --all. */
async function impactedTargets(options: ImpactedTargetsOptions): Promise<string[] | "ALL"> {
  const given = [options.target !== undefined, options.targetsFile !== undefined, options.all === true];
  if (given.filter(Boolean).length !== 1) {
    throw new CliError("give the impacted targets with exactly one of --target, --targets-file and --all");
  }
  if (options.all === true) return "ALL";
  if (options.target !== undefined) return options.target;
  let text: string;
  try {
    text = await readFile(options.targetsFile as string, "utf8");
  } catch (error) {
    throw new CliError(`cannot read --targets-file ${options.targetsFile}: ${(error as Error).message}`);
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}
