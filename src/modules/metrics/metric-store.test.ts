import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { anAccount, aRepository, aRun } from "../../../test/helpers/builders.ts";
import { anAnalyzer } from "../../../test/helpers/builders-catalog.ts";
import { aCheck } from "../../../test/helpers/builders-checks.ts";
import { aMetricItem, aMetricValue, metricValuesOf } from "../../../test/helpers/builders-metrics.ts";
import { type OpenTestDatabase, openTestDatabase } from "../../../test/helpers/database.ts";
import { analysedPlan, rowsVisited } from "../../../test/helpers/plans.ts";
import type { AnalysisRunStatus, MetricValueRow, RepositoryMetricItemRow } from "../../db/types.ts";
import { findLatestValuesOfItems, latestValuesOfItems } from "./metric-store.ts";

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
    const plan = await analysedPlan(database.handle.db, latestValuesOfItems([long.id, empty.id]));
    // The TIMEOUT run's value, then the one before it: two of the item's 5,001 values (engines
    // that show rows per loop as averages may round them).
    const visited = rowsVisited(plan, "metric_values");
    assert.ok(visited <= 3, `read ${visited} values`);
  });
});

describe("whether a metric value's run has analysed the code (of_analysed_run, kept by the database)", () => {
  let database: OpenTestDatabase;

  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  async function marks(keys: readonly string[]): Promise<boolean[]> {
    const rows = await database.handle.db
      .selectFrom("metric_values")
      .select(["key", "of_analysed_run"])
      .where("key", "in", keys)
      .execute();
    const byKey = new Map(rows.map((row) => [row.key, row.of_analysed_run]));
    return keys.map((key) => byKey.get(key)!);
  }

  test("follows the run through every change of its status, whoever writes it", async () => {
    const db = database.handle.db;
    const repository = await aRepository(db, await anAccount(db));
    const item = await aMetricItem(db, repository, "LCV");
    const analyzer = await anAnalyzer(db, { shortcode: "test-coverage-m" });
    const run = await aRun(db, repository, { status: "PENDING" });
    const other = await aRun(db, repository, { status: "SUCCESS" });
    const check = await aCheck(db, run, analyzer);
    const measured = await aMetricValue(db, item, { checkId: check.id });
    const untouched = await aMetricValue(db, item, { checkId: (await aCheck(db, other, analyzer)).id });
    const set = async (status: AnalysisRunStatus, reopenedFrom: AnalysisRunStatus | null) => {
      await db
        .updateTable("analysis_runs")
        .set({ status, reopened_from: reopenedFrom })
        .where("id", "=", run.id)
        .execute();
      return (await marks([measured.key, untouched.key]))[0];
    };

    assert.deepEqual(await marks([measured.key, untouched.key]), [false, true], "as inserted");
    assert.equal(await set("SUCCESS", null), true, "finished SUCCESS");
    // A late upload: PENDING again, still the repository's current state.
    assert.equal(await set("PENDING", "SUCCESS"), true, "reopened from SUCCESS");
    const late = await aMetricValue(db, item, { checkId: check.id });
    assert.deepEqual(await marks([late.key]), [true], "inserted while reopened from SUCCESS");
    assert.equal(await set("TIMEOUT", null), false, "ended TIMEOUT");
    assert.deepEqual(await marks([late.key]), [false], "every value of the run follows");
    assert.equal(await set("FAILURE", null), true, "finished FAILURE");
    assert.equal(await set("CANCEL", null), false, "cancelled");
    assert.equal(await set("PENDING", "CANCEL"), false, "reopened from CANCEL");
    // Another run's value never moved.
    assert.deepEqual(await marks([untouched.key]), [true]);
  });

  test("counts a value of no check (stored before values had one) as analysed", async () => {
    const db = database.handle.db;
    const item = await aMetricItem(db, await aRepository(db, await anAccount(db)), "LCV");
    const value = await aMetricValue(db, item, { checkId: null });
    assert.deepEqual(await marks([value.key]), [true]);
  });

  test("moves with the value to another check", async () => {
    const db = database.handle.db;
    const repository = await aRepository(db, await anAccount(db));
    const item = await aMetricItem(db, repository, "LCV");
    const analyzer = await anAnalyzer(db, { shortcode: "test-coverage-n" });
    const analysed = await aCheck(db, await aRun(db, repository, { status: "SUCCESS" }), analyzer);
    const waiting = await aCheck(db, await aRun(db, repository, { status: "PENDING" }), analyzer);
    const value = await aMetricValue(db, item, { checkId: analysed.id });
    await db
      .updateTable("metric_values")
      .set({ check_id: waiting.id })
      .where("key", "=", value.key)
      .execute();
    assert.deepEqual(await marks([value.key]), [false]);
  });
});
