import { readFileSync } from "node:fs";
import { parseJunitDocument, type JunitInput } from "../../src/test-reports/junit-documents.ts";
import type { ParsedTestCase } from "../../src/test-reports/parsed-report.ts";

export async function parseAll(input: JunitInput, documentIndex = 0): Promise<ParsedTestCase[]> {
  const testCases: ParsedTestCase[] = [];
  for await (const testCase of parseJunitDocument(input, { documentIndex })) testCases.push(testCase);
  return testCases;
}

export function fixture(name: string): Buffer {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
}

export function byName(testCases: ParsedTestCase[], name: string): ParsedTestCase {
  const found = testCases.find((testCase) => testCase.name === name);
  if (found === undefined) throw new Error(`no test case named ${name}`);
  return found;
}
