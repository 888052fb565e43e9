import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  accumulated,
  changePercentage,
  countsAt,
  daysBetween,
  monthsBefore,
  type RunCounts,
} from "./series.ts";

const run = (slot: string, at: number, key: string, total: number): RunCounts => ({
  slot,
  at,
  key,
  counts: new Map([["total", total]]),
});

describe("report series", () => {
  test("each instant sums every repository's latest run created strictly before it", () => {
    const runs = [run("a", 10, "r1", 5), run("a", 20, "r2", 2), run("b", 15, "r3", 7)];
    const [t10, t16, t21, later] = countsAt(runs, [10, 16, 21, 1000]);
    assert.equal(t10!.get("total") ?? 0, 0);
    assert.equal(t16!.get("total"), 12);
    assert.equal(t21!.get("total"), 9);
    assert.equal(later!.get("total"), 9);
  });

  test("instants may come in any order", () => {
    const runs = [run("a", 10, "r1", 5), run("a", 20, "r2", 2)];
    assert.deepEqual(
      countsAt(runs, [25, 15]).map((c) => c.get("total")),
      [2, 5],
    );
  });

  test("accumulated counts are each repository's running total in time order, whose sweep gives what was added", () => {
    const runs = accumulated([run("a", 20, "r2", 3), run("b", 15, "r3", 7), run("a", 10, "r1", 5)], "total");
    assert.deepEqual(
      runs.map((r) => [r.key, r.counts.get("total")]),
      [
        ["r1", 5],
        ["r3", 7],
        ["r2", 8],
      ],
    );
    const [before, after] = countsAt(runs, [16, 21]);
    assert.equal(after!.get("total")! - before!.get("total")!, 3, "what r2 added between 16 and 21");
  });

  test("days run from start to end inclusive, each ending at the next midnight UTC", () => {
    const days = daysBetween("2026-02-27", "2026-03-01");
    assert.deepEqual(
      days.map((d) => d.date),
      ["2026-02-27", "2026-02-28", "2026-03-01"],
    );
    assert.equal(days[0]!.end, Date.parse("2026-02-28T00:00:00Z"));
    assert.throws(() => daysBetween("2026-03-02", "2026-03-01"), RangeError);
    assert.equal(daysBetween("2025-01-01", "2026-01-01").length, 366);
    assert.throws(() => daysBetween("2025-01-01", "2026-01-02"), RangeError);
  });

  test("change is a percentage to two decimals, and null without a base", () => {
    assert.equal(changePercentage(7, 2), 250);
    assert.equal(changePercentage(1, 3), -66.67);
    assert.equal(changePercentage(4, 0), null);
    // Halves, decided on the counts: 25.125% and -3.125%, away from zero.
    assert.equal(changePercentage(1001, 800), 25.13);
    assert.equal(changePercentage(775, 800), -3.13);
    assert.equal(changePercentage(825, 800), 3.13);
    assert.equal(changePercentage(0, 5), -100);
    // Coverage values are not counts: the same rule on their quotient.
    assert.equal(changePercentage(80.5, 70), 15);
    assert.equal(changePercentage(69.3, 70), -1);
  });

  test("months before clamp to the end of a shorter month", () => {
    assert.equal(monthsBefore(new Date("2026-03-31T12:00:00Z"), 1).toISOString(), "2026-02-28T12:00:00.000Z");
    assert.equal(
      monthsBefore(new Date("2026-01-15T00:00:00Z"), 12).toISOString(),
      "2025-01-15T00:00:00.000Z",
    );
  });
});
