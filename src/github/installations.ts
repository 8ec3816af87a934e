// The GitHub App's installations: looked up through GitHub with the app's own credentials, and kept up to
// date by installation webhooks.
import type { Probot } from "probot";
import type { InstallationDirectory, RepositoryRef } from "../ports/github-reads.ts";
import type { RepositoryRecords } from "../ports/repository-records.ts";
import { GitHubUnavailable } from "../ports/github-failures.ts";
import type { Clock } from "../ports/clock.ts";

export function githubInstallations(app: Probot): InstallationDirectory {
  return {
    async findInstallation(ref) {
      const octokit = await app.auth();
      try {
        const { data } = await octokit.rest.apps.getRepoInstallation({ owner: ref.owner, repo: ref.name });
        return { ...ref, installationId: data.id };
      } catch (error) {
        if ((error as { status?: number }).status === 404) return null;
        if (error instanceof GitHubUnavailable) throw error;
        app.log.error({ err: error, repo: `${ref.owner}/${ref.name}` }, "installation look-up failed");
        const call = `GET /repos/${ref.owner}/${ref.name}/installation`;
        throw new GitHubUnavailable(call, undefined, "did not answer the installation look-up; try again", {
          cause: error,
        });
      }
    },
  };
}

type RepoPayload = { full_name: string };

function refsOf(host: string, repositories: RepoPayload[] | undefined): RepositoryRef[] {
  return (repositories ?? []).map((repository) => {
    const [owner = "", name = ""] = repository.full_name.split("/");
    return { host, owner, name };
  });
}

export function registerInstallationWebhooks(
  app: Probot,
  records: Pick<RepositoryRecords, "rememberRepository" | "forgetInstallation">,
  host: string,
  clock: Clock,
): void {
  const remember = async (installationId: number, repositories: RepoPayload[] | undefined) => {
    for (const ref of refsOf(host, repositories)) {
      await records.rememberRepository({ ...ref, installationId }, clock());
    }
  };
  app.on("installation.created", async ({ payload }) => {
    await remember(payload.installation.id, payload.repositories);
  });
  app.on("installation_repositories.added", async ({ payload }) => {
    await remember(payload.installation.id, payload.repositories_added);
  });
  app.on("installation.deleted", async ({ payload }) => {
    await records.forgetInstallation(payload.installation.id, undefined, clock());
  });
  app.on("installation_repositories.removed", async ({ payload }) => {
    await records.forgetInstallation(
      payload.installation.id,
      refsOf(host, payload.repositories_removed),
      clock(),
    );
  });
}
