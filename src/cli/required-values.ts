// What the client commands need from their flags or the CI environment: each missing value is named with the
// ways to give it, and one error lists them all.
import type { CiEnvironment } from "./ci-environment.ts";
import { CliError } from "./io.ts";

export class RequiredValues {
  private readonly missing: string[] = [];

  /** The value, or "" noted as missing under `what`. */
  need(value: string | undefined, what: string): string {
    if (value === undefined || value === "") this.missing.push(what);
    return value ?? "";
  }

  /** Throws a CliError naming every missing value, for a command that cannot `action` without them. */
  check(action: string): void {
    if (this.missing.length > 0) throw new CliError(`cannot ${action} without ${this.missing.join(", ")}`);
  }

  /** The service, the token and the repository, which every client command needs. */
  serviceAndRepository(
    options: { readonly url?: string; readonly token?: string; readonly repo?: string },
    env: CiEnvironment,
  ): { serviceUrl: string; token: string; repository: string } {
    return {
      serviceUrl: this.need(options.url ?? env.SWITCHYARD_URL, "the service URL (--url or SWITCHYARD_URL)"),
      token: this.need(options.token ?? env.SWITCHYARD_TOKEN, "an API token (--token or SWITCHYARD_TOKEN)"),
      repository: this.need(
        options.repo ?? env.GITHUB_REPOSITORY,
        "the repository (--repo or GITHUB_REPOSITORY)",
      ),
    };
  }
}
