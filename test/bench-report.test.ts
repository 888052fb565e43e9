// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { LoadResult } from "../bench/load.ts";
import { combineRounds, formatTable, type Measurement, type Role } from "../bench/report.ts";

const QUERY = "{ viewer { email } }";

function load(requestsPerSecond: number, non2xx = 0): LoadResult {
  return { requestsPerSecond, p50Ms: 1, p99Ms: 2, requests: requestsPerSecond * 5, non2xx, socketErrors: 0 };
}

function measured(
  target: string,
  role: Role,
  requestsPerSecond: number,
  backend: Measurement["backend"] = role === "bare" ? undefined : "postgres",
): Measurement {
  return {
    target,
    role,
    backend,
    query: QUERY,
    result: load(requestsPerSecond),
    otherCores: 0.01,
    serverCpuMs: 1000 / requestsPerSecond,
    spread: undefined,
  };
}

/** One round on PostgreSQL: the bare server, Apollo and one Assay row, in the order given. */
function round(bare: number, apollo: number, assay: number, reversed = false): Measurement[] {
  const rows = [
    measured("bare", "bare", bare),
    measured("Apollo, PostgreSQL", "apollo", apollo),
    measured("Assay, PostgreSQL", "assay", assay),
  ];
  return reversed ? rows.reverse() : rows;
}

describe("the benchmark's table over several rounds (bench/report.ts)", () => {
  test("each ratio is taken within its round, and the table shows the rounds' median and range", () => {
    // The machine runs at half speed in the second round: every server slows down together.
    const rows = combineRounds([round(1000, 100, 150), round(500, 50, 80, true), round(800, 90, 120)]);
    const assay = rows.find((row) => row.target === "Assay, PostgreSQL");
    assert.ok(assay);
    // Within the rounds: 1.5, 1.6 and 1.33. The ratio of the two medians (120 ÷ 90) would be 1.33.
    assert.equal(assay.toApollo?.median, 1.5);
    assert.equal(assay.toApollo?.lowest, 120 / 90);
    assert.equal(assay.toApollo?.highest, 1.6);
    assert.equal(assay.toApollo?.rounds, 3);
    assert.equal(assay.toBare?.median, 0.15);
    // The row's own figures are those of the round whose req/s is the median.
    assert.equal(assay.result.requestsPerSecond, 120);
    assert.equal(assay.serverCpuMs, 1000 / 120);
    assert.equal(assay.spread, (150 - 80) / 120);
  });

  test("rows keep the first round's order, and only Assay rows are divided by Apollo", () => {
    const rows = combineRounds([round(1000, 100, 150), round(900, 90, 140, true)]);
    assert.deepEqual(
      rows.map((row) => row.target),
      ["bare", "Apollo, PostgreSQL", "Assay, PostgreSQL"],
    );
    assert.equal(rows[0]?.toBare?.median, 1);
    assert.equal(rows[0]?.toApollo, undefined);
    assert.equal(rows[1]?.toApollo, undefined);
    assert.equal(rows[1]?.toBare?.median, 0.1);
  });

  test("Assay is divided by Apollo on its own database only", () => {
    const rows = combineRounds([
      [
        measured("Apollo, embedded", "apollo", 50, "embedded"),
        measured("Assay, PostgreSQL", "assay", 150, "postgres"),
      ],
    ]);
    assert.equal(rows.find((row) => row.target === "Assay, PostgreSQL")?.toApollo, undefined);
    assert.equal(rows.find((row) => row.target === "Assay, PostgreSQL")?.toBare, undefined);
  });

  test("refused answers of any round are counted in the row", () => {
    const first = round(1000, 100, 150);
    const second = round(1000, 100, 150);
    second[2] = { ...second[2]!, result: load(150, 7) };
    const assay = combineRounds([first, second]).find((row) => row.target === "Assay, PostgreSQL");
    assert.equal(assay?.result.non2xx, 7);
  });

  test("the table prints a range only when there were several rounds", () => {
    const one = formatTable(combineRounds([round(1000, 100, 150)]));
    assert.match(one, /\| +0\.150 \| +1\.50 \|/);
    const several = formatTable(
      combineRounds([round(1000, 100, 150), round(500, 50, 80, true), round(800, 90, 120)]),
    );
    assert.match(several, /\| 0\.150 \(0\.150–0\.160\) \| 1\.50 \(1\.33–1\.60\) \|/);
    assert.match(several, /\| +– \|/, "Apollo's own row has no × Apollo");
  });
});
