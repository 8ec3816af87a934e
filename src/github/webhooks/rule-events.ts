// GitHub says a repository's rules changed (`branch_protection_rule`, `repository_ruleset`, whatever the action):
// the rules of every queue of the repository are read again and told to the queue (see src/queue/branch-rules.ts).
import type { Probot } from "probot";
import {
  deliveryOf,
  type Delivery,
  type RepositoryPayload,
  repoOf,
  onEachDelivery,
  type WebhookDependencies,
} from "./context.ts";

export function registerRuleEvents(app: Probot, deps: WebhookDependencies): void {
  const { queueDirectory, repositories, queues, github, githubHost } = deps;
  const on = onEachDelivery(app, deps);

  const readAgain = async (context: Delivery) => {
    const { repository } = context.payload as { repository: RepositoryPayload };
    const ref = repoOf(githubHost, repository);
    github.rulesCache.forgetRepository(ref);
    const known = await repositories.findRepository(ref);
    if (known === undefined) return;
    for (const branch of await queueDirectory.queueBranches(known.id)) {
      const location = await queueDirectory.findQueueLocation(ref, branch);
      if (location === undefined) continue;
      const { rules } = await github.branchRules(location, branch);
      await queues.dispatch(location.queueId, [{ type: "branch_rules_read", rules }], deliveryOf(context));
    }
  };

  on("branch_protection_rule", readAgain);
  on("repository_ruleset" as Parameters<Probot["on"]>[0], readAgain);
}
