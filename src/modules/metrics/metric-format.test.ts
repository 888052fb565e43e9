import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatMetricValue, thresholdStatusOf } from "./metric-format.ts";

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
  test("percentages keep one decimal with the sign attached", () => {
    assert.equal(formatMetricValue(83.44, "%"), "83.4%");
    assert.equal(formatMetricValue(83.46, "%"), "83.5%");
    assert.equal(formatMetricValue(100, "%"), "100.0%");
    assert.equal(formatMetricValue(0, "%"), "0.0%");
    assert.equal(formatMetricValue(-0.01, "%"), "0.0%");
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
