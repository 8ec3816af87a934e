// Repository settings the app reads: collaborator roles, branch protection and rulesets.

export type Role = "admin" | "maintain" | "write" | "triage" | "read" | "none";

/** GitHub's `permission` field keeps the legacy roles: maintain reads as write, triage as read. */
export function legacyPermission(role: Role): "admin" | "write" | "read" | "none" {
  if (role === "maintain") return "write";
  if (role === "triage") return "read";
  return role;
}

export interface BranchProtection {
  /** Contexts that must succeed (commit status `success`, check run `success`/`neutral`/`skipped`). */
  readonly requiredChecks?: readonly string[];
  /** "Require branches to be up to date before merging". */
  readonly strict?: boolean;
  /** Legacy protection's rules that refuse a change for what it brings (see rule-enforcement.ts). */
  readonly requiredSignatures?: boolean;
  readonly requiredLinearHistory?: boolean;
  readonly lockBranch?: boolean;
}

export interface Ruleset {
  readonly id: number;
  readonly branch: string;
  readonly requiredChecks: readonly string[];
}

export class RepositorySettings {
  private readonly roles = new Map<string, Role>();
  private readonly protections = new Map<string, BranchProtection>();
  private readonly rulesets: Ruleset[] = [];

  setRole(login: string, role: Role): void {
    this.roles.set(login, role);
  }

  /** A user without a role reads a public repository and sees nothing of a private one. */
  roleOf(login: string, isPrivate: boolean): Role {
    return this.roles.get(login) ?? (isPrivate ? "none" : "read");
  }

  protect(branch: string, protection: BranchProtection): void {
    this.protections.set(branch, protection);
  }

  protectionOf(branch: string): BranchProtection | undefined {
    return this.protections.get(branch);
  }

  addRuleset(ruleset: Ruleset): void {
    this.rulesets.push(ruleset);
  }

  rulesetsFor(branch: string): Ruleset[] {
    return this.rulesets.filter((ruleset) => ruleset.branch === branch);
  }

  /** Every context a push to or a merge into `branch` must have passed, from protection and rulesets. */
  requiredChecksFor(branch: string): string[] {
    const contexts = [
      ...(this.protections.get(branch)?.requiredChecks ?? []),
      ...this.rulesetsFor(branch).flatMap((ruleset) => ruleset.requiredChecks),
    ];
    return [...new Set(contexts)];
  }
}
