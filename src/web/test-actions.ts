// The actions of a test's page: its quarantine setting and its linked ticket, decided by the code of the /v1
// endpoints (test-triage.ts), so with the same checks and errors. Each form posts to the test's own address; a
// success answers 303 back to the page (Post/Redirect/Get, so a reload posts nothing again), a refusal shows the
// page again with the reason.
import type { FastifyInstance, FastifyReply } from "fastify";
import { validate as isUuid } from "uuid";
import type { Repository } from "../ports/test-case-storage.ts";
import { quarantineSettings } from "../test-health/index.ts";
import { testHealthDependencies } from "../http/dependencies.ts";
import { refusalProblem } from "../http/problem.ts";
import { InvalidRequest, Refusal } from "../ports/refusals.ts";
import { linkTestTicket, setQuarantineSetting } from "../test-health-use-cases/test-triage.ts";
import { fromAnotherSite, isFormToken } from "./browser-sessions.ts";
import { notFoundPage, sendPage } from "./page-replies.ts";
import { showTestPage, testSignIn, visibleTest } from "./test-page.ts";
import { type Change, changes, messagePage } from "./test-page-html.ts";
import type { PageContext } from "./page-context.ts";

const isChange = (value: string): value is Change => (changes as readonly string[]).includes(value);
const isQuarantineSetting = (value: string): value is (typeof quarantineSettings)[number] =>
  (quarantineSettings as readonly string[]).includes(value);

/** How a refusal names the field it is about. */
const fieldNames: Record<string, string> = {
  setting: "The quarantine setting",
  ticket_url: "The ticket URL",
  action: "The action",
};

const forbidden = (reply: FastifyReply, testId: string) =>
  sendPage(
    reply,
    403,
    messagePage(
      "This form was not sent from its page",
      "Nothing was changed: the form did not come from the test's page in this browser session. Open the page and send it again.",
      { href: testId, text: "The test's page" },
    ),
  );

/** Does what the form `change` asks of the test, as the /v1 endpoint of the same name would. */
async function decide(
  deps: PageContext["deps"],
  repository: Repository,
  testId: string,
  change: Change,
  field: (name: string) => string,
) {
  switch (change) {
    case "quarantine-setting": {
      const setting = field("setting").toLowerCase();
      if (!isQuarantineSetting(setting)) {
        throw new InvalidRequest(
          "invalid_request",
          "the request is invalid: setting is not always, never or auto",
          [{ path: "setting", message: `must be one of ${quarantineSettings.join(", ")}` }],
        );
      }
      return setQuarantineSetting(testHealthDependencies(deps), repository, testId, setting);
    }
    case "link-ticket":
      return linkTestTicket(testHealthDependencies(deps), repository, testId, field("ticket_url"));
    case "unlink-ticket":
      return linkTestTicket(testHealthDependencies(deps), repository, testId, null);
  }
}

export function registerTestActions(pages: FastifyInstance, context: PageContext): void {
  const { deps } = context;
  const publicHost = new URL(deps.config.publicUrl).host;

  pages.post<{ Params: { testId: string }; Body: Record<string, unknown> | undefined }>(
    "/:testId",
    { config: { public: true, takesForm: true }, schema: { hide: true } },
    async (request, reply) => {
      const testId = request.params.testId.toLowerCase();
      if (!isUuid(testId)) return notFoundPage(reply);
      if (fromAnotherSite(request, publicHost)) return forbidden(reply, testId);
      const visitor = await context.visitorOf(request);
      if (visitor === null) return context.signIn(request, reply, testSignIn(testId));
      const field = (name: string) => {
        const value = request.body?.[name];
        return typeof value === "string" ? value : "";
      };
      if (!isFormToken(field("form_token"), visitor.formToken)) return forbidden(reply, testId);
      const found = await visibleTest(context, visitor, testId);
      if (found === undefined) return notFoundPage(reply);

      const action = field("action");
      try {
        if (!isChange(action)) {
          throw new InvalidRequest("invalid_request", "the request is invalid: action is unknown", [
            { path: "action", message: `must be one of ${changes.join(", ")}` },
          ]);
        }
        await decide(deps, found.repository, testId, action, field);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        if (error.kind === "not_found") return notFoundPage(reply);
        const [first] = error.faults ?? [];
        const reason = first ? `${fieldNames[first.path] ?? first.path} ${first.message}.` : error.message;
        const triage = { formToken: visitor.formToken, error: `Nothing was changed. ${reason}` };
        return showTestPage(context, reply, refusalProblem(error).status, found, {
          ...triage,
          ticketInput: field("ticket_url"),
        });
      }
      // Relative to /tests/<id>: the page itself, wherever a proxy mounts the service.
      return reply.redirect(`${testId}?changed=${action}`, 303);
    },
  );
}
