// Generated JUnit reports for the benchmarks: deterministic, Surefire-like, about 100 bytes per test case.
import { createWriteStream } from "node:fs";
import { once } from "node:events";

/** A deterministic pseudo-random sequence (mulberry32), so that every run generates the same data. */
export function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A Surefire-like report: suites of 100 cases, about 100 bytes each. `failing(i)` says whether case i fails; a
 * failure carries a message and a short stack trace, as real ones do.
 */
export function* reportChunks(cases: number, failing: (index: number) => boolean): Generator<string> {
  yield '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="widgets">\n';
  for (let suite = 0; suite * 100 < cases; suite++) {
    const module = `module${String(suite % 250).padStart(3, "0")}`;
    const classname = `com.acme.${module}.WidgetSuite${suite}`;
    const parts = [
      `<testsuite name="${classname}" tests="100" file="src/${module}/widget-suite-${suite}.spec.ts">\n`,
    ];
    for (let index = suite * 100; index < Math.min(cases, (suite + 1) * 100); index++) {
      const attributes = `classname="${classname}" name="handles widget case ${index}" time="0.0${index % 90}"`;
      if (failing(index)) {
        parts.push(
          `<testcase ${attributes}><failure message="expected ${index % 7} widgets but found ${index % 5}" type="AssertionError">` +
            `AssertionError: expected ${index % 7} widgets\n  at WidgetSuite${suite}.test(widget-suite-${suite}.spec.ts:${index % 300})</failure></testcase>\n`,
        );
      } else {
        parts.push(`<testcase ${attributes}/>\n`);
      }
    }
    parts.push("</testsuite>\n");
    yield parts.join("");
  }
  yield "</testsuites>\n";
}

export async function writeReport(path: string, cases: number, failureRate: number): Promise<number> {
  const next = random(cases);
  const out = createWriteStream(path);
  let bytes = 0;
  for (const chunk of reportChunks(cases, () => next() < failureRate)) {
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return bytes;
}
