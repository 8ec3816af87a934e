// switchyard queues (POST /v1/listQueues): a repository's merge queues, one a line, with their state, mode and how
// many PRs each holds; --json prints the service's answer as it came.
import type { Command } from "commander";
import { readCiEnvironment } from "./ci-environment.ts";
import type { ClientContext } from "./io.ts";
import { RequiredValues } from "./required-values.ts";
import { addServiceOptions, type ServiceOptions } from "./service-options.ts";
import { postToService } from "./service-client.ts";
import { textTableLines } from "./text-table.ts";
import { checkServiceUrl, ownerAndName, repoHost } from "./upload-metadata.ts";

interface QueuesOptions extends ServiceOptions {
  json?: boolean;
}

interface QueueSummary {
  branch: string;
  state: string;
  mode: string;
  depth: number;
  concurrency: number;
  batch: boolean;
  waitingForBranch: boolean;
}

export function registerQueuesCommand(program: Command, context: ClientContext): void {
  addServiceOptions(program.command("queues").description("list a repository's merge queues"))
    .option("--json", "print the service's answer as JSON")
    .action(async (options: QueuesOptions) => {
      const env = readCiEnvironment();
      const required = new RequiredValues();
      const { serviceUrl, token, repository } = required.serviceAndRepository(options, env);
      required.check("list queues");
      checkServiceUrl(serviceUrl);
      const { owner, name } = ownerAndName(repository);
      const answer = await postToService<{ queues: QueueSummary[] }>(
        { serviceUrl: serviceUrl.replace(/\/+$/, ""), token },
        {
          path: "listQueues",
          body: JSON.stringify({ repo: { host: repoHost(options, env), owner, name } }),
          what: "listing queues",
        },
      );
      if (options.json === true) {
        context.out(`${JSON.stringify(answer, null, 2)}\n`);
        return;
      }
      context.out(queuesTable(`${owner}/${name}`, answer.queues));
    });
}

function queuesTable(repository: string, queues: readonly QueueSummary[]): string {
  if (queues.length === 0) return `${repository} has no merge queue\n`;
  const rows = [
    ["BRANCH", "STATE", "MODE", "PRS", "CONCURRENCY", "BATCH"],
    ...queues.map((queue) => [
      queue.branch,
      queue.waitingForBranch ? `${queue.state} (waiting for the branch)` : queue.state,
      queue.mode,
      String(queue.depth),
      String(queue.concurrency),
      queue.batch ? "on" : "off",
    ]),
  ];
  return textTableLines(rows)
    .map((line) => `${line}\n`)
    .join("");
}
