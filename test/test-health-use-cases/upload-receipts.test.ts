// An upload's request hash is the same whether its reports are given as strings or streamed as bytes: receipts kept
// before the upload route streamed its body still recognise a retry.
import { describe, expect, it } from "vitest";
import { uploadRequestHash } from "../../src/test-health-use-cases/upload-receipts.ts";

/** `text` as a streamed part, in chunks of `size` bytes. */
function streamed(text: string, size: number) {
  const bytes = Buffer.from(text);
  return {
    byteLength: bytes.length,
    async *[Symbol.asyncIterator]() {
      for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
    },
  };
}

describe("uploadRequestHash", () => {
  it("hashes a streamed report as the string of its bytes", async () => {
    const reports = ['<testsuite name="é😀"/>', "", "<testsuites/>".repeat(100)];
    const head = ["github.com/acme/widgets", "abcd", "main", null, 42, undefined, reports.length];
    const asStrings = await uploadRequestHash([...head, ...reports]);
    expect(await uploadRequestHash([...head, ...reports.map((report) => streamed(report, 7))])).toBe(
      asStrings,
    );
    // The hash the earlier, string-only version computed for these parts.
    expect(await uploadRequestHash(["a", null, 1, streamed("<x/>", 2)])).toBe(
      "520f20bb627d83deaea584abe87e8aaeabddb08d6dc6ee50512531ad6d35e99a",
    );
    expect(await uploadRequestHash([...head, ...reports.slice(1)])).not.toBe(asStrings);
  });
});
