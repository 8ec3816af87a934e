// What test health needs to know about a repository beyond its results: its stable branches (docs/test-health.md#classification) and
// its code owners (docs/test-health.md#listings). The uploads' checkouts tell both (the CLI sends them), the queues the rest: test health
// works for a repository without the GitHub App, and never waits on GitHub.
import type { Repository } from "../ports/test-case-storage.ts";
import type { TestHealthStorage } from "../ports/test-health-persistence.ts";
import { type Codeowners, parseCodeowners, stableBranchesOf } from "../test-health/index.ts";

export interface RepositoryFacts {
  /** The default branch an upload named; null while none has. */
  defaultBranch(repository: Repository): Promise<string | null>;
  /** The rules of the repository's CODEOWNERS file; none when it has none or no upload sent it. */
  codeowners(repository: Repository): Promise<Codeowners>;
}

/** What an upload's checkout tells of its repository (extensions of the upload request). */
export interface CheckoutReport {
  defaultBranch?: string | undefined;
  /** The text of the checkout's CODEOWNERS file, "" when it has none. */
  codeowners?: string | undefined;
}

/** Parsed files kept per repository; a file is parsed again only when an upload changed it. */
const MAX_PARSED_FILES = 1000;

/** The facts as the uploads stored them. */
export function storedRepositoryFacts(storage: TestHealthStorage): RepositoryFacts {
  const parsed = new Map<string, { text: string; codeowners: Codeowners }>();
  return {
    async defaultBranch(repository) {
      return (await storage.checkoutFacts(repository.id)).defaultBranch;
    },
    async codeowners(repository) {
      const text = (await storage.checkoutFacts(repository.id)).codeowners ?? "";
      const known = parsed.get(repository.id);
      if (known?.text === text) return known.codeowners;
      const codeowners = parseCodeowners(text);
      if (parsed.size >= MAX_PARSED_FILES) parsed.clear();
      parsed.set(repository.id, { text, codeowners });
      return codeowners;
    },
  };
}

/**
 * Records what an upload on `branch` told. The default branch it names replaces the one known. Its CODEOWNERS
 * counts when it comes from the default branch, as GitHub reads the file there, or while none is known: a pull
 * request's change to the file does not move every test's owners.
 */
export async function rememberCheckout(
  storage: TestHealthStorage,
  repository: Repository,
  branch: string,
  checkout: CheckoutReport,
  now: number,
): Promise<void> {
  const known = await storage.checkoutFacts(repository.id);
  const defaultBranch = checkout.defaultBranch ?? known.defaultBranch ?? "main";
  const codeownersCount = known.codeowners === null || branch === defaultBranch;
  await storage.saveCheckoutFacts(
    repository.id,
    {
      defaultBranch: checkout.defaultBranch,
      codeowners: codeownersCount ? checkout.codeowners : undefined,
    },
    now,
  );
}

/**
 * docs/test-health.md#classification: the default branch (`main` while unknown) and the target branch of each of the repo's queues;
 * `defaultBranch` is one an upload names, which counts at once.
 */
export async function stableBranches(
  storage: TestHealthStorage,
  facts: RepositoryFacts,
  repository: Repository,
  defaultBranch?: string,
): Promise<Set<string>> {
  const [known, queueBranches] = await Promise.all([
    defaultBranch ?? facts.defaultBranch(repository),
    storage.queueBranches(repository.id),
  ]);
  return stableBranchesOf(known, queueBranches);
}
