import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { MetricKey, MetricShortcode } from "../../db/types.ts";
import { compareMetricKeys, compareShortcodes } from "./metric-order.ts";

describe("metric ordering", () => {
  test("items list AGGREGATE first, then languages by key name", () => {
    const keys: MetricKey[] = ["SWIFT", "PYTHON", "AGGREGATE", "C_AND_CPP", "CSHARP", "GO"];
    assert.deepEqual(keys.sort(compareMetricKeys), [
      "AGGREGATE",
      "CSHARP",
      "C_AND_CPP",
      "GO",
      "PYTHON",
      "SWIFT",
    ]);
  });

  test("metrics list in the contract's shortcode order", () => {
    const shortcodes: MetricShortcode[] = ["NCPCV", "LCV", "DDP", "BCV", "CPCV"];
    assert.deepEqual(shortcodes.sort(compareShortcodes), ["BCV", "DDP", "LCV", "CPCV", "NCPCV"]);
  });
});
