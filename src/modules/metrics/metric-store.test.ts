import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { anAccount, aRepository, aRun } from "../../../test/helpers/builders.ts";
import { anAnalyzer } from "../../../test/helpers/builders-catalog.ts";
import { aCheck } from "../../../test/helpers/builders-checks.ts";
import { aMetricItem, metricValuesOf } from "../../../test/helpers/builders-metrics.ts";
import { type OpenTestDatabase, openTestDatabase } from "../../../test/helpers/database.ts";
import type { MetricValueRow, RepositoryMetricItemRow } from "../../db/types.ts";
import { findLatestValuesOfItems, latestValuesOfItems } from "./metric-store.ts";

/** The part of a plan node (EXPLAIN, FORMAT JSON) this test reads. */
interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

/** Rows of `table` the plan's scans visited, filtered-out ones included, over all loops. */
function rowsVisited(node: PlanNode, table: string): number {
  const own =
    node["Relation Name"] === table
      ? (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0)) * node["Actual Loops"]
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsVisited(child, table), 0);
}

const HISTORY = 5000;

describe("the latest value of metric items", () => {
  let database: OpenTestDatabase;
  let long: RepositoryMetricItemRow;
  let empty: RepositoryMetricItemRow;
  let history: MetricValueRow[];

  before(async () => {
    database = await openTestDatabase();
    const db = database.handle.db;
    const repository = await aRepository(db, await anAccount(db));
    long = await aMetricItem(db, repository, "LCV");
    empty = await aMetricItem(db, repository, "BCV");
    // A long history of values, then the newest one measured by a run that ended TIMEOUT.
    history = await metricValuesOf(
      db,
      long,
      Array.from({ length: HISTORY }, (_, i) => ({
        value: i % 100,
        createdAt: new Date(Date.UTC(2025, 0, 1, i)),
      })),
    );
    const timedOut = await aRun(db, repository, { status: "TIMEOUT" });
    const check = await aCheck(db, timedOut, await anAnalyzer(db, { shortcode: "test-coverage-t" }));
    await metricValuesOf(db, long, [
      { value: 99.5, checkId: check.id, createdAt: new Date(Date.UTC(2026, 0, 1)) },
    ]);
  });
  after(() => database?.close());

  test("is the newest value of an analysed run, and an item without values has none", async () => {
    const rows = await findLatestValuesOfItems(database.handle.db, [long.id, empty.id]);
    assert.deepEqual(
      rows.map((row) => [row.item_id, row.key, row.value]),
      [[long.id, history.at(-1)!.key, history.at(-1)!.value]],
    );
  });

  test("reads the item's newest values only, not its whole history", async () => {
    const { rows } = await sql<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>`
      EXPLAIN (ANALYZE, FORMAT JSON) ${latestValuesOfItems([long.id, empty.id])}`.execute(database.handle.db);
    const plan = rows[0]!["QUERY PLAN"][0]!.Plan;
    // The TIMEOUT run's value, then the one before it: two of the item's 5,001 values (engines
    // that show rows per loop as averages may round them).
    const visited = rowsVisited(plan, "metric_values");
    assert.ok(visited <= 3, `read ${visited} values`);
  });
});
