// One JUnit report too large for one request (the service takes 20 MiB bodies), cut into reports that each fit.
// The service reads of a report only its test cases, each with the name and file of its innermost enclosing
// <testsuite>; so each part repeats the prolog and the opening tags of the suites around the test cases it holds,
// and the parts together describe the same test cases, in the same order, in the same suites, as the whole.
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { CliError } from "./io.ts";

// Characters XML 1.0 forbids, which the service replaces by U+FFFD before parsing (ANSI colour codes in captured
// output); replaced the same way here, one character for one, so that the report can be cut where the service reads.
const INVALID_XML_CHARS =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const CONTAINERS = new Set(["testsuites", "testsuite"]);

/** An enclosing <testsuites> or <testsuite> element, by its place in the report. */
interface Container {
  id: number;
  name: string;
  openingTag: string;
}

/** Test case elements that must stay in one part, and the suites around them. */
interface Unit {
  chain: Container[];
  text: string;
}

/** The size of `text` as a JSON string in the request body, without its quotes. */
const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;

/**
 * Cuts `report` into JUnit reports whose JSON strings are at most `maxBytes` each. Throws a CliError when the
 * report is not well-formed XML, or when one test case alone is larger than `maxBytes`.
 */
export function splitReport(report: string, maxBytes: number, path: string): string[] {
  const { prolog, units } = readUnits(report.replace(INVALID_XML_CHARS, "\uFFFD"), path);
  const parts: string[] = [];
  let part = new PartWriter(prolog);
  for (const unit of units) {
    if (part.bytesWith(unit) > maxBytes && !part.isEmpty()) {
      parts.push(part.finish());
      part = new PartWriter(prolog);
    }
    if (part.bytesWith(unit) > maxBytes) {
      throw new CliError(`${path} holds a test case too large to upload (over ${maxBytes} bytes as JSON)`);
    }
    part.add(unit);
  }
  if (!part.isEmpty()) parts.push(part.finish());
  return parts;
}

/** The report's test cases with the suites around each, grouped so that no cut falls inside a group. */
function readUnits(report: string, path: string): { prolog: string; units: Unit[] } {
  const sax = new SaxesParser<{ position: true; xmlns: false }>({ position: true, xmlns: false });
  const stack: (Container | null)[] = [];
  const units: Unit[] = [];
  let rootStart = -1;
  let tagStart = 0;
  let caseStart = -1;
  let caseName = "";
  let previous: { name: string; unit: Unit } | null = null;
  let ids = 0;
  sax.on("opentagstart", () => {
    tagStart = report.lastIndexOf("<", sax.position - 1);
    if (rootStart === -1) rootStart = tagStart;
  });
  sax.on("opentag", (tag: SaxesTagPlain) => {
    // Only elements whose ancestors are all suites count, as the service reads them.
    const inSuites = stack.every((frame) => frame !== null);
    if (inSuites && CONTAINERS.has(tag.name)) {
      stack.push({ id: ids++, name: tag.name, openingTag: report.slice(tagStart, sax.position) });
      return;
    }
    if (inSuites && tag.name === "testcase") {
      caseStart = tagStart;
      caseName = `${tag.attributes.classname ?? ""}\u0000${tag.attributes.name ?? ""}`;
    }
    stack.push(null);
  });
  sax.on("closetag", (tag: SaxesTagPlain) => {
    stack.pop();
    if (caseStart === -1 || tag.name !== "testcase" || stack.some((frame) => frame === null)) return;
    const chain = stack as Container[];
    const text = report.slice(caseStart, sax.position);
    caseStart = -1;
    // Consecutive elements of one test (reruns written as elements of their own, jest's echo of a failed
    // suite) are read together by the service: they stay in one part.
    const last = chain.at(-1);
    if (previous !== null && previous.name === caseName && previous.unit.chain.at(-1) === last) {
      previous.unit.text += text;
      return;
    }
    const unit = { chain: [...chain], text };
    units.push(unit);
    previous = { name: caseName, unit };
  });
  try {
    sax.write(report).close();
  } catch (error) {
    throw new CliError(
      `${path} is too large for one request and cannot be cut in parts: ${(error as Error).message}`,
    );
  }
  return { prolog: report.slice(0, Math.max(rootStart, 0)), units };
}

/** One part being written: the prolog, the suites opened so far, and the test cases. */
class PartWriter {
  private text: string;
  private bytes: number;
  private open: Container[] = [];
  private units = 0;

  constructor(prolog: string) {
    this.text = prolog;
    this.bytes = jsonBytes(prolog);
  }

  isEmpty(): boolean {
    return this.units === 0;
  }

  /** The part's size with `unit` added and every suite closed. */
  bytesWith(unit: Unit): number {
    const shared = sharedDepth(this.open, unit.chain);
    return (
      this.bytes +
      jsonBytes(closingTags(this.open.slice(shared))) +
      jsonBytes(
        unit.chain
          .slice(shared)
          .map((c) => c.openingTag)
          .join(""),
      ) +
      jsonBytes(unit.text) +
      jsonBytes(closingTags(unit.chain))
    );
  }

  add(unit: Unit): void {
    const shared = sharedDepth(this.open, unit.chain);
    this.append(closingTags(this.open.slice(shared)));
    this.append(
      unit.chain
        .slice(shared)
        .map((c) => c.openingTag)
        .join(""),
    );
    this.append(unit.text);
    this.open = unit.chain;
    this.units++;
  }

  finish(): string {
    this.append(closingTags(this.open));
    return this.text;
  }

  private append(text: string): void {
    this.text += text;
    this.bytes += jsonBytes(text);
  }
}

function sharedDepth(a: Container[], b: Container[]): number {
  let depth = 0;
  while (depth < a.length && depth < b.length && a[depth] === b[depth]) depth++;
  return depth;
}

const closingTags = (containers: Container[]) =>
  containers
    .map((c) => `</${c.name}>`)
    .reverse()
    .join("");
