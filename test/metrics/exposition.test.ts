import { describe, expect, it } from "vitest";
import { writeExposition } from "../../src/metrics/exposition.ts";
import { histogram, parseExposition } from "../support/prometheus-text.ts";

describe("the text exposition", () => {
  it("escapes label values git allows in branch names (quotes) and backslashes in help", () => {
    const text = writeExposition([
      {
        name: "mq_depth_current",
        help: "a \\ b",
        type: "gauge",
        samples: [{ labels: { repo: "acme/widgets", branch: 'release/"beta"' }, value: 2 }],
      },
    ]);
    expect(text).toBe(
      [
        "# HELP mq_depth_current a \\\\ b",
        "# TYPE mq_depth_current gauge",
        'mq_depth_current{repo="acme/widgets",branch="release/\\"beta\\""} 2',
        "",
      ].join("\n"),
    );
    expect(parseExposition(text).value("mq_depth_current", { branch: 'release/"beta"' })).toBe(2);
  });

  it("writes a histogram as cumulative buckets ending in +Inf, then its sum and count", () => {
    const text = writeExposition([
      {
        name: "mq_pr_test_duration_1h_seconds",
        help: "h",
        type: "histogram",
        bounds: [60, 300],
        series: [{ labels: { repo: "acme/widgets" }, atMost: [1, 3], count: 4, sum: 1250.5 }],
      },
    ]);
    expect(
      histogram(parseExposition(text), "mq_pr_test_duration_1h_seconds", { repo: "acme/widgets" }),
    ).toEqual({
      buckets: { "60": 1, "300": 3, "+Inf": 4 },
      count: 4,
      sum: 1250.5,
    });
    expect(text.split("\n").slice(2, 7)).toEqual([
      'mq_pr_test_duration_1h_seconds_bucket{repo="acme/widgets",le="60"} 1',
      'mq_pr_test_duration_1h_seconds_bucket{repo="acme/widgets",le="300"} 3',
      'mq_pr_test_duration_1h_seconds_bucket{repo="acme/widgets",le="+Inf"} 4',
      'mq_pr_test_duration_1h_seconds_sum{repo="acme/widgets"} 1250.5',
      'mq_pr_test_duration_1h_seconds_count{repo="acme/widgets"} 4',
    ]);
  });
});
