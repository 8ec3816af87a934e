import { describe, expect, it } from "vitest";
import { Codeowners, MAX_CODEOWNERS_BYTES, parseCodeowners } from "../../src/test-health/codeowners.ts";

const ownersOf = (codeowners: string, path: string): string[] => parseCodeowners(codeowners).ownersOf(path);
const rule = (pattern: string) => new Codeowners([{ pattern, owners: ["@owner"], line: 1 }]);
const matches = (pattern: string, path: string): boolean => rule(pattern).ownersOf(path).length > 0;

describe("CODEOWNERS parsing", () => {
  it("reads patterns, owners and line numbers, skipping comments and blank lines", () => {
    const codeowners = parseCodeowners(
      "# Owners of everything\n\n*       @acme/core\n\n/docs/  docs@acme.test @writer\n",
    );
    expect(codeowners.rules).toEqual([
      { pattern: "*", owners: ["@acme/core"], line: 3 },
      { pattern: "/docs/", owners: ["docs@acme.test", "@writer"], line: 5 },
    ]);
  });

  it("reads Windows line endings", () => {
    expect(parseCodeowners("*.js @js\r\n*.go @go\r\n").rules.map((entry) => entry.line)).toEqual([1, 2]);
  });

  it("stops the owners at an inline comment", () => {
    expect(
      parseCodeowners("*.js @js-owner #This is an inline comment. @not-an-owner").rules[0]?.owners,
    ).toEqual(["@js-owner"]);
  });

  it("keeps a space escaped with a backslash in the pattern", () => {
    expect(ownersOf("path\\ with\\ spaces/ @spaces", "path with spaces/file.txt")).toEqual(["@spaces"]);
  });

  it("keeps a pattern without owners, which leaves its files unowned", () => {
    expect(parseCodeowners("/apps/github\n").rules).toEqual([
      { pattern: "/apps/github", owners: [], line: 1 },
    ]);
  });

  it("skips negated patterns, which GitHub does not support", () => {
    expect(parseCodeowners("!docs/ @nobody\n").rules).toEqual([]);
  });

  it("skips character ranges, which GitHub does not support", () => {
    expect(parseCodeowners("file[0-9].js @nobody\n").rules).toEqual([]);
  });

  it("skips a pattern escaping a leading #, which GitHub does not support", () => {
    expect(parseCodeowners("\\#notes.md @nobody\n").rules).toEqual([]);
  });

  it("keeps only tokens that are handles, team handles or e-mail addresses as owners", () => {
    expect(parseCodeowners("*.rb @ruby not-an-owner @acme/rails ops@acme.test\n").rules[0]?.owners).toEqual([
      "@ruby",
      "@acme/rails",
      "ops@acme.test",
    ]);
  });

  it("loads nothing from a file larger than GitHub loads", () => {
    const line = "*.js @js\n";
    const big = line.repeat(Math.ceil(MAX_CODEOWNERS_BYTES / line.length) + 1);
    expect(parseCodeowners(big).rules).toEqual([]);
  });
});

describe("CODEOWNERS matching", () => {
  const example = [
    "# The last matching pattern takes precedence.",
    "*                  @global-owner1 @global-owner2",
    "*.js               @js-owner",
    "*.go               docs@example.com",
    "*.txt              @octo-org/octocats",
    "/build/logs/       @doctocat",
    "docs/*             docs@example.com",
    "apps/              @octocat",
    "/docs/             @doctocat",
    "/scripts/          @doctocat @octocat",
    "**/logs            @octocat",
    "/apps/             @octocat",
    "/apps/github",
  ].join("\n");

  it.each([
    ["README.md", ["@global-owner1", "@global-owner2"]],
    ["src/app.js", ["@js-owner"]],
    ["cmd/main.go", ["docs@example.com"]],
    ["build/logs/output.txt", ["@octocat"]],
    ["deeply/nested/logs/today.log", ["@octocat"]],
    ["docs/getting-started.md", ["@doctocat"]],
    ["scripts/deploy.sh", ["@doctocat", "@octocat"]],
    ["lib/apps/widget.rb", ["@octocat"]],
    ["apps/web/index.html", ["@octocat"]],
    ["apps/github/index.js", []],
  ])("gives %s to %j, the last matching rule's owners", (path, owners) => {
    expect(ownersOf(example, path)).toEqual(owners);
  });

  it("lets a later rule override an earlier, more specific one", () => {
    expect(ownersOf("/src/cart/ @cart\n*.ts @typescript\n", "src/cart/cart.ts")).toEqual(["@typescript"]);
  });

  it("gives no owners when no rule matches", () => {
    expect(ownersOf("*.js @js\n", "main.go")).toEqual([]);
  });

  it("anchors a pattern with a leading slash at the root", () => {
    expect(matches("/build", "build/out.js")).toBe(true);
    expect(matches("/build", "src/build/out.js")).toBe(false);
  });

  it("matches a pattern without a slash at any depth", () => {
    expect(matches("build", "src/build/out.js")).toBe(true);
    expect(matches("*.md", "a/b/c/notes.md")).toBe(true);
  });

  it("anchors a pattern with a slash in the middle at the root", () => {
    expect(matches("src/build", "src/build/out.js")).toBe(true);
    expect(matches("src/build", "lib/src/build/out.js")).toBe(false);
  });

  it("matches a trailing slash against directories only", () => {
    expect(matches("logs/", "logs/today.log")).toBe(true);
    expect(matches("logs/", "logs")).toBe(false);
  });

  it("matches dir/* against the files directly in dir, not deeper", () => {
    expect(matches("docs/*", "docs/getting-started.md")).toBe(true);
    expect(matches("docs/*", "docs/build-app/troubleshooting.md")).toBe(false);
  });

  it("matches /* against the files at the root only", () => {
    expect(matches("/*", "README.md")).toBe(true);
    expect(matches("/*", "src/index.ts")).toBe(false);
  });

  it("matches ** across any number of directories", () => {
    expect(matches("**/logs", "logs/a.txt")).toBe(true);
    expect(matches("src/**/fixtures", "src/a/b/fixtures/x.xml")).toBe(true);
    expect(matches("src/**", "src/a/b.ts")).toBe(true);
    expect(matches("src/**/*", "src/a/b/c.ts")).toBe(true);
  });

  it("matches * within one path segment and ? as one character", () => {
    expect(matches("src/*.ts", "src/a.ts")).toBe(true);
    expect(matches("src/*.ts", "src/a/b.ts")).toBe(false);
    expect(matches("file?.js", "file1.js")).toBe(true);
  });

  it("is case sensitive", () => {
    expect(matches("/Docs/", "docs/readme.md")).toBe(false);
  });

  it("accepts file paths written with ./, a leading slash or backslashes", () => {
    const codeowners = parseCodeowners("/src/ @src\n");
    expect(codeowners.ownersOf("./src/a.ts")).toEqual(["@src"]);
    expect(codeowners.ownersOf("/src/a.ts")).toEqual(["@src"]);
    expect(codeowners.ownersOf("src\\a.ts")).toEqual(["@src"]);
  });

  it("gives no owners to an empty path or one that leaves the repository", () => {
    const codeowners = parseCodeowners("* @everyone\n");
    expect(codeowners.ownersOf("")).toEqual([]);
    expect(codeowners.ownersOf("../outside.ts")).toEqual([]);
  });

  it("gives the same answer when asked twice", () => {
    const codeowners = parseCodeowners(example);
    expect(codeowners.ownersOf("src/app.js")).toEqual(codeowners.ownersOf("src/app.js"));
  });
});
