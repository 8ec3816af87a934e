// docs/test-health.md#listings: a test's `codeowners` come from the repo's CODEOWNERS file for the test's file_path, read the way
// GitHub reads it (docs.github.com, "About code owners").
import { Buffer } from "node:buffer";
import ignore, { type Ignore } from "ignore";

/** Where GitHub looks for the file, in this order; the first one found is used. */
export const CODEOWNERS_PATHS = [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"] as const;

/** GitHub does not load a CODEOWNERS file larger than this. */
export const MAX_CODEOWNERS_BYTES = 3 * 1024 * 1024;

export interface CodeownersRule {
  pattern: string;
  /** `@user`, `@org/team` or e-mail addresses; empty when the pattern deliberately has no owner. */
  owners: string[];
  /** 1-based line number in the file. */
  line: number;
}

interface CompiledRule {
  owners: string[];
  matcher: Ignore;
  // GitHub's `dir/*` owns the files directly in dir, not those deeper (gitignore would match them too).
  directChildrenOnly: boolean;
}

const MAX_CACHED_PATHS = 10_000;

export class Codeowners {
  readonly rules: readonly CodeownersRule[];
  private readonly compiled: CompiledRule[];
  private readonly cache = new Map<string, string[]>();

  constructor(rules: readonly CodeownersRule[]) {
    this.rules = rules;
    this.compiled = rules.map((rule) => ({
      owners: rule.owners,
      // CODEOWNERS paths are case sensitive.
      matcher: ignore({ ignorecase: false }).add(rule.pattern),
      directChildrenOnly: rule.pattern.endsWith("/*") && !rule.pattern.includes("**"),
    }));
  }

  /** The owners of a file (a path relative to the repository root): the last matching rule's, else []. */
  ownersOf(filePath: string): string[] {
    const path = filePath.replaceAll("\\", "/").replace(/^(?:\.\/|\/)+/, "");
    const cached = this.cache.get(path);
    if (cached !== undefined) return cached;
    const owners = this.match(path);
    if (this.cache.size >= MAX_CACHED_PATHS) this.cache.clear();
    this.cache.set(path, owners);
    return owners;
  }

  private match(path: string): string[] {
    if (path === "" || !ignore.isPathValid(path)) return [];
    const parent = path.includes("/") ? `${path.slice(0, path.lastIndexOf("/"))}/` : null;
    for (let index = this.compiled.length - 1; index >= 0; index--) {
      const rule = this.compiled[index];
      if (rule === undefined || !rule.matcher.ignores(path)) continue;
      // The path matched through its directory: for `dir/*` that directory must not itself be a match.
      if (rule.directChildrenOnly && parent !== null && rule.matcher.ignores(parent)) continue;
      return rule.owners;
    }
    return [];
  }
}

/**
 * Parses a CODEOWNERS file. Comments and blank lines are skipped, `\ ` escapes a space in a pattern, a `#` after
 * the owners starts a comment. Lines GitHub rejects (`!` negation, `[ ]` ranges, a `\#` pattern) are skipped, as
 * GitHub skips them; tokens that are neither `@` handles nor e-mail addresses are not owners.
 */
export function parseCodeowners(text: string): Codeowners {
  if (Buffer.byteLength(text, "utf8") > MAX_CODEOWNERS_BYTES) return new Codeowners([]);
  const rules: CodeownersRule[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  for (const [index, rawLine] of lines.entries()) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#")) continue;
    const tokens = line.match(/(?:\\.|\S)+/g) ?? [];
    const [pattern, ...rest] = tokens;
    if (pattern === undefined || /^(?:!|\\#)|[[\]]/.test(pattern)) continue;
    const commentAt = rest.findIndex((token) => token.startsWith("#"));
    const owners = (commentAt === -1 ? rest : rest.slice(0, commentAt)).filter(isOwner);
    rules.push({ pattern, owners, line: index + 1 });
  }
  return new Codeowners(rules);
}

function isOwner(token: string): boolean {
  return /^@[^@\s]+$/.test(token) || /^[^@\s]+@[^@\s]+$/.test(token);
}
