import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { autofixedView, coverageInsightView, preventedView } from "./insight-views.ts";
import { currentValueOf, trendsOfView, valuesOf } from "./report-service.ts";

const day = (date: string) => Date.parse(`${date}T12:00:00Z`);
const now = new Date("2026-03-10T12:00:00Z");

describe("insight views", () => {
  test("prevented findings accumulate per repository; values give each day's growth and the level", () => {
    const view = preventedView(
      [
        { repositoryId: "b", key: "r3", at: day("2026-03-09"), prevented: 1 },
        { repositoryId: "a", key: "r1", at: day("2026-03-07"), prevented: 2 },
        { repositoryId: "a", key: "r2", at: day("2026-03-09"), prevented: 3 },
      ],
      now,
    );
    assert.equal(currentValueOf(view), 6);
    assert.deepEqual(
      valuesOf(view, "2026-03-07", "2026-03-09").map((d) => d.values.map((v) => v.value)),
      [
        [2, 2],
        [0, 2],
        [4, 6],
      ],
    );
  });

  test("coverage is the exact mean of the latest values, rounded, and absent before any value", () => {
    const view = coverageInsightView(
      [
        { repositoryId: "a", key: "v1", at: day("2026-03-01"), value: 10.1 },
        { repositoryId: "a", key: "v2", at: day("2026-03-05"), value: 55.3 },
        { repositoryId: "b", key: "v3", at: day("2026-03-05"), value: 55.7 },
      ],
      now,
    );
    // (55.3 + 55.7) / 2 = 55.5, which rounds up.
    assert.equal(currentValueOf(view), 56);
    assert.deepEqual(
      valuesOf(view, "2026-02-28", "2026-03-01").map((d) => d.values),
      [[], [{ key: "lcv", value: 10 }]],
    );
    assert.equal(trendsOfView(view)[0]!.value, null);
    assert.equal(coverageInsightView([], now).runs.length, 0);
    assert.equal(currentValueOf(coverageInsightView([], now)), null);
  });

  test("issues autofixed has no numbers but still checks the range", () => {
    const view = autofixedView(now);
    assert.equal(currentValueOf(view), null);
    assert.deepEqual(valuesOf(view, "2026-03-01", "2026-03-02"), []);
    assert.throws(() => valuesOf(view, "2026-03-02", "2026-03-01"));
    assert.deepEqual(
      trendsOfView(view).map((t) => t.value),
      [null, null, null, null],
    );
  });
});
