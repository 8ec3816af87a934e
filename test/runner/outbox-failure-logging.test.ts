// What a failed command leaves in the log while the outbox retries it: GitHub out of reach or rate limiting is a
// warning naming the call (an outage retries many commands, and it passes); any other failure is an error with
// its stack, for the maintainer to find the bug.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubUnavailable } from "../../src/ports/github-failures.ts";
import { createTestStore, type TestStore } from "../support/database.ts";
import { logLines } from "../support/log-lines.ts";
import { aMerge, anOutboxQueue, enqueue, ExecutionLog, OutboxReplica } from "../support/outbox.ts";
import { T0 } from "../support/queue-factories.ts";

describe("the log of a command that failed and will be retried", () => {
  let store: TestStore;
  let replica: OutboxReplica;
  let lines: Record<string, any>[];
  let queueId: string;

  beforeEach(async () => {
    const log = logLines();
    lines = log.lines;
    store = await createTestStore("sqlite");
    replica = new OutboxReplica(store, new ExecutionLog(), "only", () => T0, log.logger);
    queueId = await anOutboxQueue(store, "widgets");
    await enqueue(store, queueId, [aMerge("merge-1")], T0);
  });
  afterEach(() => store.destroy());

  /** The one line the failed command logged. */
  const theRetry = () => {
    const retries = lines.filter((line) => String(line.msg).startsWith("command failed; it will be retried"));
    expect(retries).toHaveLength(1);
    return retries[0]!;
  };

  it("warns with the call, without a stack, when GitHub is out of reach", async () => {
    replica.executor.behaviour = async () => {
      throw new GitHubUnavailable("PUT /repos/acme/widgets/pulls/1/merge", 502, "answered 502: Bad Gateway");
    };
    await replica.drain([queueId]);
    const line = theRetry();
    expect(line).toMatchObject({ level: 40, queueId, command: "merge_pull_request", attempts: 1 });
    expect(line.msg).toContain("PUT /repos/acme/widgets/pulls/1/merge answered 502");
    expect(line.err).toBeUndefined();
  });

  it("warns the same when GitHub rate-limits the call, and retries when GitHub said", async () => {
    replica.executor.behaviour = async () => {
      throw Object.assign(new Error("You have exceeded a secondary rate limit"), {
        status: 403,
        request: { method: "PUT", url: "https://api.github.com/repos/acme/widgets/pulls/1/merge" },
        response: { headers: { "retry-after": "30" }, data: {} },
      });
    };
    await replica.drain([queueId]);
    const line = theRetry();
    expect(line).toMatchObject({ level: 40, queueId, attempts: 1, nextAttemptAt: T0 + 30_000 });
    expect(line.msg).toContain("secondary rate limit");
    expect(line.err).toBeUndefined();
  });

  it("logs any other failure as an error with its stack", async () => {
    replica.executor.behaviour = async () => {
      throw new TypeError("cannot read properties of undefined (reading 'sha')");
    };
    await replica.drain([queueId]);
    const line = theRetry();
    expect(line).toMatchObject({
      level: 50,
      queueId,
      msg: "command failed; it will be retried",
      attempts: 1,
    });
    expect(line.err.stack).toContain("TypeError: cannot read properties of undefined");
  });
});
