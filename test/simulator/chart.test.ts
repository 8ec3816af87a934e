import { describe, expect, it } from "vitest";
import { terminalChart } from "../../src/simulator/chart.ts";
import { HOUR_MS } from "../../src/simulator/model.ts";

describe("the queue-length chart in the terminal", () => {
  it("draws each slice of the day as the longest the queue was in it", () => {
    const chart = terminalChart(
      {
        label: "k=2",
        points: [
          [0, 0],
          [1 * HOUR_MS, 4],
          [1.5 * HOUR_MS, 2],
          [2 * HOUR_MS, 0],
        ],
        endsAt: 4 * HOUR_MS,
      },
      4,
      2,
    );
    expect(chart.split("\n")).toEqual([
      "Queue length over the day (PRs waiting or under test), k=2",
      "4 │ █  ",
      "0 │ █  ",
      "  └────",
      "   0 h 4.0 h",
    ]);
  });
});
