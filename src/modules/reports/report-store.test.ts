import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { anAccount, aRepository, aRun } from "../../../test/helpers/builders.ts";
import { anAnalyzer } from "../../../test/helpers/builders-catalog.ts";
import { aCheck } from "../../../test/helpers/builders-checks.ts";
import { aMetricItem, aMetricValue } from "../../../test/helpers/builders-metrics.ts";
import { type OpenTestDatabase, openTestDatabase } from "../../../test/helpers/database.ts";
import { analysedPlan, rowsVisited } from "../../../test/helpers/plans.ts";
import type { AccountRow, MetricValueRow } from "../../db/types.ts";
import { findScopeLineCoverage, scopeLineCoverage } from "./report-store.ts";

const RUNS = 60;

describe("the coverage trend's values (findScopeLineCoverage)", () => {
  let database: OpenTestDatabase;
  let account: AccountRow;
  let shown: MetricValueRow[];

  before(async () => {
    database = await openTestDatabase();
    const db = database.handle.db;
    account = await anAccount(db);
    const repository = await aRepository(db, account);
    const item = await aMetricItem(db, repository, "LCV");
    const analyzer = await anAnalyzer(db, { shortcode: "test-coverage-r" });
    shown = [];
    // Runs that analysed the code, and every fifth one that ended TIMEOUT, each with a value.
    for (let i = 0; i < RUNS; i++) {
      const run = await aRun(db, repository, { status: i % 5 === 4 ? "TIMEOUT" : "SUCCESS" });
      const value = await aMetricValue(db, item, {
        checkId: (await aCheck(db, run, analyzer)).id,
        value: i,
        createdAt: new Date(Date.UTC(2025, 0, 1 + i)),
      });
      if (run.status === "SUCCESS") shown.push(value);
    }
  });
  after(() => database?.close());

  test("are the scope's values of analysed runs", async () => {
    const rows = await findScopeLineCoverage(database.handle.db, "account_id", [account.id]);
    assert.deepEqual(rows.map((row) => row.value_key).sort(), shown.map((value) => value.key).sort());
  });

  test("are judged without reading any check or run", async () => {
    const plan = await analysedPlan(database.handle.db, scopeLineCoverage("account_id", [account.id]));
    assert.equal(rowsVisited(plan, "metric_values"), RUNS);
    assert.equal(rowsVisited(plan, "checks"), 0, "checks read");
    assert.equal(rowsVisited(plan, "analysis_runs"), 0, "runs read");
  });
});
