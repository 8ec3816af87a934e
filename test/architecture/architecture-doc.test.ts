import { describe, expect, it } from "vitest";
import { redrawnDocument } from "../../scripts/architecture-graph.ts";

describe("docs/architecture.md", () => {
  it("draws the import graph as the code has it now (npm run docs:architecture redraws it)", async () => {
    const { current, redrawn } = await redrawnDocument();
    expect(current).toBe(redrawn);
  }, 60_000);
});
