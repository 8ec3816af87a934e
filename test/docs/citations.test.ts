// Comments say which rule they implement by citing the docs page and heading that explain it, as a path with an
// anchor (docs/queue.md#batching, or docs/queue.md#merging, #merging-in-lanes for several headings of one page). Every
// such citation in src/, test/ and scripts/ must name a page of docs/ and a heading of that page, and nothing may
// cite the sections of documents the repository does not hold (the service contract, the interface document, the
// design notes), which a reader cannot follow.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf } from "./markdown.ts";
import { read, root, sources } from "./repository-files.ts";

/**
 * `docs/<page>.md#<anchor>`, then `, #<anchor>` for each further heading of the same page. A path without an anchor
 * is not a citation (tests write such files into fake repositories).
 */
const citation = /(?<![\w./-])docs\/([\w-]+\.md)(#[\w-]*(?:,\s*#[\w-]+)*)/g;
/** A section of a document outside the repository ("contract", "interface" or "design" and a number), or its file. */
const outsideDocument =
  /\b(?:contract|interface|design)\s*§?\s*\d+(?:\.\d+)*\b|\bDESIGN\.md\b|\bservice-interface\b|\bcontract\.md\b/i;

const anchorsByPage = new Map<string, Set<string> | undefined>();
/** The anchors of the headings of docs/`page`, or undefined when there is no such page. */
function anchorsOfPage(page: string): Set<string> | undefined {
  if (!anchorsByPage.has(page)) {
    const path = `docs/${page}`;
    anchorsByPage.set(page, existsSync(join(root, path)) ? anchorsOf(read(path)) : undefined);
  }
  return anchorsByPage.get(page);
}

/** What is wrong with the citations of `text`, one line each, and how many citations it holds. */
function citationProblems(text: string): { problems: string[]; citations: number } {
  const problems: string[] = [];
  let citations = 0;
  text.split("\n").forEach((line, index) => {
    const at = `line ${index + 1}`;
    for (const [, page, anchorList] of line.matchAll(citation)) {
      citations++;
      const anchors = anchorsOfPage(page as string);
      if (anchors === undefined) {
        problems.push(`${at}: docs/${page} (no such page)`);
        continue;
      }
      for (const [anchor] of (anchorList as string).matchAll(/#[\w-]*/g)) {
        if (!anchors.has(anchor.slice(1))) problems.push(`${at}: docs/${page}${anchor} (no such heading)`);
      }
    }
    const outside = outsideDocument.exec(line);
    if (outside !== null) problems.push(`${at}: "${outside[0]}" (a document the repository does not hold)`);
  });
  return { problems, citations };
}

describe("citations of the docs in the code", () => {
  it("name a page of docs/ and a heading of it, and never a document the repository does not hold", () => {
    const problems: string[] = [];
    let citations = 0;
    for (const file of [...sources("src"), ...sources("test"), ...sources("scripts")]) {
      const found = citationProblems(read(file));
      citations += found.citations;
      problems.push(...found.problems.map((problem) => `${file}: ${problem}`));
    }
    expect(problems).toEqual([]);
    expect(citations).toBeGreaterThan(100);
  });

  it("finds a missing page, a missing heading and a section of an outside document", () => {
    // Written in pieces, so that this file's own text cites nothing wrong.
    const docs = "docs/";
    const text = [
      `// ${docs}queue.md#batching, #bisection: both resolve`,
      `// ${docs}queue.md#Batching: anchors are lowercase`,
      `// ${docs}queue.md#batching, #no-such-heading`,
      `// ${docs}no-such-page.md#batching`,
      `// ${docs}api.md#: an empty anchor`,
      `// the rule of ${"contract"} 5.3`,
      `/** ${"Interface"} 2.4: the record */`,
      `// as ${"DESIGN"}.md says`,
    ].join("\n");
    expect(citationProblems(text)).toEqual({
      citations: 5,
      problems: [
        `line 2: ${docs}queue.md#Batching (no such heading)`,
        `line 3: ${docs}queue.md#no-such-heading (no such heading)`,
        `line 4: ${docs}no-such-page.md (no such page)`,
        `line 5: ${docs}api.md# (no such heading)`,
        `line 6: "${"contract"} 5.3" (a document the repository does not hold)`,
        `line 7: "${"Interface"} 2.4" (a document the repository does not hold)`,
        `line 8: "${"DESIGN"}.md" (a document the repository does not hold)`,
      ],
    });
  });

  it("reads a heading's anchor as GitHub makes it", () => {
    expect(anchorsOfPage("queue.md")).toContain("what-concurrency-bounds"); // `What \`concurrency\` bounds`
    expect(anchorsOfPage("test-health.md")).toContain("a-tests-page"); // A test's page
    expect(anchorsOfPage("monitoring.md")).toContain("merge-queue-metrics");
  });
});
