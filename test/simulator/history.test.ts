import { describe, expect, it } from "vitest";
import { HistoryError, parseHistory } from "../../src/simulator/history.ts";

const csv = [
  "pr,submitted_at,started_at,finished_at,conclusion",
  "7,2026-11-02T08:50:00Z,2026-11-02T09:00:00Z,2026-11-02T09:20:00Z,failure",
  "7,,2026-11-02T09:30:00Z,2026-11-02T10:00:00Z,success",
  "8,2026-11-02T10:50:00Z,2026-11-02T11:00:00Z,2026-11-02T11:40:00Z,failure",
  "8,,2026-11-02T11:45:00Z,2026-11-02T11:50:00Z,cancelled",
  "",
  "9,2026-11-02T12:50:00Z,2026-11-02T13:00:00Z,2026-11-02T13:30:00Z,success",
].join("\n");

describe("--from-history", () => {
  it("reads arrivals, CI durations, broken and flaky rates from a CSV of runs", () => {
    expect(parseHistory(csv, "runs.csv")).toEqual({
      // Three PRs submitted over four hours: two gaps.
      arrivalsPerHour: 0.5,
      ciDurations: [20, 30, 40, 30],
      broken: 1 / 3,
      flaky: 1 / 3,
      prs: 3,
      runs: 4,
    });
  });

  it("reads the same runs from JSON, with durations in minutes instead of end times", () => {
    const runs = [
      {
        pr: 7,
        submitted_at: "2026-11-02T08:50:00Z",
        started_at: "2026-11-02T09:00:00Z",
        duration_minutes: 20,
        conclusion: "failure",
      },
      { pr: 7, started_at: "2026-11-02T09:30:00Z", duration_minutes: 30, conclusion: "success" },
      {
        pr: 8,
        submitted_at: "2026-11-02T10:50:00Z",
        started_at: "2026-11-02T11:00:00Z",
        duration_minutes: "40",
        conclusion: "failure",
      },
      {
        pr: 9,
        submitted_at: "2026-11-02T12:50:00Z",
        started_at: "2026-11-02T13:00:00Z",
        duration_minutes: 30,
        conclusion: "success",
      },
    ];
    expect(parseHistory(JSON.stringify(runs), "runs.json")).toEqual(parseHistory(csv, "runs.csv"));
  });

  it.each([
    [
      "pr,started_at,conclusion\n1,2026-11-02T09:00:00Z,success",
      "runs.csv:2: finished_at or duration_minutes is missing",
    ],
    [
      "pr,started_at,finished_at,conclusion\n1,yesterday,2026-11-02T09:00:00Z,success",
      "runs.csv:2: started_at is not an ISO 8601 time: yesterday",
    ],
    [
      "pr,started_at,finished_at,conclusion\n1,2026-11-02T09:00:00Z,success",
      "runs.csv:2 has 3 values for 4 columns",
    ],
    [
      "pr,started_at,duration_minutes,conclusion\n1,2026-11-02T09:00:00Z,0,success",
      "runs.csv:2: the run must last longer than 0 minutes",
    ],
    [
      "pr,started_at,duration_minutes,conclusion\n1,2026-11-02T09:00:00Z,30,success",
      "runs.csv needs runs of at least two PRs submitted at different times",
    ],
    ["", "runs.csv is empty"],
  ])("refuses a history it cannot use: %j", (content, message) => {
    expect(() => parseHistory(content, "runs.csv")).toThrow(HistoryError);
    expect(() => parseHistory(content, "runs.csv")).toThrow(message);
  });

  it("names the JSON entry it cannot use", () => {
    expect(() => parseHistory('{"runs": []}', "runs.json")).toThrow(
      "runs.json must hold a JSON array of runs",
    );
    expect(() => parseHistory("[1]", "runs.json")).toThrow("runs.json[0] is not an object");
    expect(() => parseHistory('[{"pr": 1}]', "runs.json")).toThrow("runs.json[0]: conclusion is missing");
    expect(() => parseHistory("[{", "runs.json")).toThrow(/runs.json is not valid JSON/);
  });
});
