// What every queue must look like once it comes to rest (Simulation.drain): nothing left in the line, no test
// branch left on GitHub, every PR merged, failed or cancelled, and no broken PR among the merged ones.
import { expect } from "vitest";
import type { Simulation } from "../queue/simulation.ts";

export function expectAtRest(simulation: Simulation): void {
  expect(simulation.state.line).toEqual([]);
  expect([...simulation.github.branches.keys()]).toEqual([]);
  for (const pr of Object.values(simulation.state.prs)) {
    expect(["merged", "failed", "cancelled"]).toContain(pr.state);
    if (pr.state === "merged") expect(simulation.github.pullRequest(pr.number).bad).toBe(false);
  }
}
