// The little of Markdown the docs test reads, as GitHub renders it: code (fenced blocks and inline spans), links
// outside code, and the anchors GitHub gives headings.

/** Splits a page into its fenced code blocks and the prose between them. */
function blocks(markdown: string): { code: boolean; text: string }[] {
  const parts: { code: boolean; text: string }[] = [];
  let fence: string | undefined;
  let lines: string[] = [];
  const flush = (code: boolean) => {
    parts.push({ code, text: lines.join("\n") });
    lines = [];
  };
  for (const line of markdown.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      flush(false);
      fence = marker;
    } else if (fence !== undefined && marker !== undefined && line.trim().startsWith(fence)) {
      flush(true);
      fence = undefined;
    } else {
      lines.push(line);
    }
  }
  flush(fence !== undefined);
  return parts;
}

const inlineCode = /(`+)([\s\S]*?[^`])\1(?!`)/g;

/** The page's code: every fenced block's text, then every inline code span's, one a line. */
export function codeOf(markdown: string): string {
  const parts = blocks(markdown);
  const spans = parts
    .filter((part) => !part.code)
    .flatMap((part) => [...part.text.matchAll(inlineCode)].map((match) => (match[2] as string).trim()));
  return [...parts.filter((part) => part.code).map((part) => part.text), ...spans].join("\n");
}

/** The targets of the page's links and images outside code. */
export function linksOf(markdown: string): string[] {
  return blocks(markdown)
    .filter((part) => !part.code)
    .flatMap((part) =>
      [...part.text.replace(inlineCode, "").matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
        (match) => match[1] as string,
      ),
    );
}

/** GitHub's anchor of a heading: lowercased, punctuation but - and _ dropped, spaces as -, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const part of blocks(markdown).filter((block) => !block.code)) {
    for (const match of part.text.matchAll(/^#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
      const text = (match[1] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
      const slug = text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
        .replace(/\s/g, "-");
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
  }
  return anchors;
}
