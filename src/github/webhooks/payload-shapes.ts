// The fields of each webhook payload the handlers read, with their types. GitHub signs what it sends, but a
// payload of an unexpected shape (an API change, a proxy, a hand-made redelivery) must be refused with a 400
// naming the field rather than crash a handler (a 500 that GitHub would show as a failed delivery of ours).
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

const Optional = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const Repository = Type.Object({ name: Type.String(), full_name: Type.String() });
const Repositories = Type.Array(Type.Object({ full_name: Type.String() }));
const Installation = Optional(Type.Object({ id: Type.Integer() }));

const Status = Type.Object({
  id: Type.Integer(),
  sha: Type.String(),
  context: Type.String(),
  state: Type.String(),
  target_url: Optional(Type.String()),
});
const CheckRun = Type.Object({
  check_run: Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    head_sha: Type.String(),
    status: Type.String(),
    conclusion: Optional(Type.String()),
    html_url: Optional(Type.String()),
    details_url: Optional(Type.String()),
    check_suite: Optional(Type.Object({ id: Type.Optional(Type.Integer()) })),
  }),
});

/** What the handlers of `status` and `check_run` read, once `payloadProblem` found nothing wrong. */
export type StatusPayload = Static<typeof Status>;
export type CheckRunPayload = Static<typeof CheckRun>;

const shapes: Readonly<Record<string, TSchema>> = {
  push: Type.Object({ ref: Type.String(), after: Type.String(), repository: Repository }),
  branch_protection_rule: Type.Object({ repository: Repository }),
  repository_ruleset: Type.Object({ repository: Repository }),
  pull_request: Type.Object({
    pull_request: Type.Object({
      number: Type.Integer(),
      merged: Optional(Type.Boolean()),
      base: Type.Object({ ref: Type.String() }),
      head: Type.Object({ sha: Type.String() }),
    }),
    changes: Type.Optional(
      Type.Object({ base: Type.Optional(Type.Object({ ref: Type.Object({ from: Type.String() }) })) }),
    ),
    repository: Repository,
  }),
  issue_comment: Type.Object({
    issue: Type.Object({ number: Type.Integer() }),
    comment: Type.Object({
      id: Type.Integer(),
      body: Type.String(),
      user: Optional(Type.Object({ login: Type.String(), type: Type.String() })),
    }),
    repository: Repository,
    installation: Installation,
  }),
  status: Status,
  check_run: CheckRun,
  check_suite: Type.Object({ check_suite: Type.Object({ head_sha: Type.String() }) }),
  installation: Type.Object({
    installation: Type.Object({ id: Type.Integer() }),
    repositories: Type.Optional(Repositories),
  }),
  installation_repositories: Type.Object({
    installation: Type.Object({ id: Type.Integer() }),
    repositories_added: Type.Optional(Repositories),
    repositories_removed: Type.Optional(Repositories),
  }),
};

/** What is wrong with a payload of the event `name`, or null when the handlers can read it. */
export function payloadProblem(name: string, payload: unknown): string | null {
  const shape = shapes[name];
  if (shape === undefined) return null;
  const error = Value.Errors(shape, payload).First();
  if (error === undefined) return null;
  return `the ${name} payload is malformed: ${error.path || "(payload)"} ${error.message.toLowerCase()}`;
}

const Envelope = Type.Object({ installation: Optional(Type.Object({ id: Type.Integer({ minimum: 1 }) })) });

/**
 * What is wrong with a payload of any event, or null. Before any handler runs, Octokit names the event after its
 * `action` (`check_run.completed`) and Probot authenticates as its `installation`: a payload that is not an object
 * (`null`, `""`, `5`), whose action is not text, or whose installation has no numeric id, would fail there.
 */
export function envelopeProblem(payload: unknown): string | null {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return "the payload is not a JSON object";
  }
  const { action } = payload as { action?: unknown };
  if (action !== undefined && action !== null && typeof action !== "string") {
    return "the payload's action is not text";
  }
  return Value.Check(Envelope, payload) ? null : "the payload's installation has no numeric id";
}
