import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { coveragePercent, formatMetricValue, thresholdStatusOf } from "./metric-format.ts";

describe("thresholdStatusOf", () => {
  test("an upward metric passes at or above its threshold and fails below it", () => {
    assert.equal(thresholdStatusOf(80, 80, "UPWARD"), "PASSING");
    assert.equal(thresholdStatusOf(80.1, 80, "UPWARD"), "PASSING");
    assert.equal(thresholdStatusOf(79.99, 80, "UPWARD"), "FAILING");
  });

  test("a downward metric passes at or below its threshold and fails above it", () => {
    assert.equal(thresholdStatusOf(5, 5, "DOWNWARD"), "PASSING");
    assert.equal(thresholdStatusOf(4.9, 5, "DOWNWARD"), "PASSING");
    assert.equal(thresholdStatusOf(5.01, 5, "DOWNWARD"), "FAILING");
  });

  test("without a threshold or without a value there is no status", () => {
    assert.equal(thresholdStatusOf(50, null, "UPWARD"), null);
    assert.equal(thresholdStatusOf(50, undefined, "DOWNWARD"), null);
    assert.equal(thresholdStatusOf(null, 50, "UPWARD"), null);
    assert.equal(thresholdStatusOf(undefined, 50, "DOWNWARD"), null);
  });

  test("a threshold of zero is a threshold", () => {
    assert.equal(thresholdStatusOf(0, 0, "UPWARD"), "PASSING");
    assert.equal(thresholdStatusOf(0.5, 0, "DOWNWARD"), "FAILING");
  });
});

describe("formatMetricValue", () => {
  test("percentages keep their hundredths, at least one decimal, with the sign attached", () => {
    assert.equal(formatMetricValue(83.44, "%"), "83.44%");
    assert.equal(formatMetricValue(83.4, "%"), "83.4%");
    assert.equal(formatMetricValue(100, "%"), "100.0%");
    assert.equal(formatMetricValue(0, "%"), "0.0%");
    assert.equal(formatMetricValue(-0.001, "%"), "0.0%");
    // 7,996 of 10,000 lines fail a threshold of 80: the value must not read as 80.0%.
    assert.equal(formatMetricValue(coveragePercent(7996, 10_000)!, "%"), "79.96%");
  });

  test("other units follow up to two decimals and a space", () => {
    assert.equal(formatMetricValue(12.5, "ms"), "12.5 ms");
    assert.equal(formatMetricValue(3, "files"), "3 files");
    assert.equal(formatMetricValue(2.456, "s"), "2.46 s");
  });

  test("a metric without a unit shows the bare number without trailing zeros", () => {
    assert.equal(formatMetricValue(12, null), "12");
    assert.equal(formatMetricValue(0.25, null), "0.25");
    assert.equal(formatMetricValue(1.2, undefined), "1.2");
    assert.equal(formatMetricValue(-0.001, null), "0");
    assert.equal(formatMetricValue(1000, ""), "1000");
  });
});

describe("coveragePercent", () => {
  test("a percentage to two decimals, a half up, also where the binary fraction falls short of the half", () => {
    assert.equal(coveragePercent(23, 160), 14.38, "14.375%: Math.round(23 / 160 * 10000) / 100 gives 14.37");
    assert.equal(coveragePercent(41, 160), 25.63);
    assert.equal(coveragePercent(19, 32), 59.38);
    assert.equal(coveragePercent(1, 3), 33.33);
    assert.equal(coveragePercent(2, 3), 66.67);
    assert.equal(coveragePercent(54, 65), 83.08);
    assert.equal(coveragePercent(0, 7), 0);
    assert.equal(coveragePercent(7, 7), 100);
    assert.equal(coveragePercent(999_999_999, 1_000_000_000), 100);
    assert.equal(coveragePercent(0, 0), null, "nothing to measure");
  });

  test("agrees with exact decimal rounding for every fraction with up to 2,000 in the denominator", () => {
    let wrong = 0;
    for (let total = 1; total <= 2000; total++) {
      for (let covered = 0; covered <= total; covered++) {
        // percentage × 100, a half up, in integers: (20,000 × covered + total) div (2 × total).
        const exact = Number((20_000n * BigInt(covered) + BigInt(total)) / (2n * BigInt(total))) / 100;
        if (coveragePercent(covered, total) !== exact) wrong += 1;
      }
    }
    assert.equal(wrong, 0);
  });
});
