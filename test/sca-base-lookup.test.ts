// test-runner: execution-mode independent (the stores' SQL on the database; no GraphQL)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Kysely, sql } from "kysely";
import type { AnalysisRunRow, Database, RepositoryTargetRow, ScaCheckRow } from "../src/db/types.ts";
import { findScaCheckWithBase } from "../src/modules/dependencies/advisory-store.ts";
import { findRunsComparingScansOf } from "../src/modules/dependencies/sbom-store.ts";
import { anAccount, aRepository, aRun, aUser } from "./helpers/builders.ts";
import { anScaCheck, aTarget } from "./helpers/builders-dependencies.ts";
import { type OpenTestDatabase, openTestDatabase } from "./helpers/database.ts";
import { analysedPlanOf, recordingStatements, rowsVisited } from "./helpers/plans.ts";

/**
 * An SCA check's base scan is its target's newest scan on the base run's branch at or before the
 * base run (`findScaCheckWithBase`): a probe of `sca_checks_target_branch_idx` that reads the
 * target's newest scans, however long the branch's history, walking past the runs that scanned
 * only another target.
 */

const RUNS = 300;
/** The newest runs of the branch, which scan only the other target. */
const SKIPPING = 3;

let database: OpenTestDatabase;
let db: Kysely<Database>;
let target: RepositoryTargetRow;
let scans: ScaCheckRow[];
let check: ScaCheckRow;

before(async () => {
  database = await openTestDatabase();
  db = database.handle.db;
  const account = await anAccount(db, {}, [{ user: await aUser(db), role: "ADMIN" }]);
  const repository = await aRepository(db, account);
  target = await aTarget(db, repository);
  const other = await aTarget(db, repository);
  const start = Date.now() - 3_600_000;
  const runs: AnalysisRunRow[] = [];
  scans = [];
  for (let n = 0; n < RUNS; n++) {
    const run = await aRun(db, repository, { createdAt: new Date(start + n * 1000) });
    runs.push(run);
    await anScaCheck(db, run, { target: other });
    if (n < RUNS - SKIPPING) scans.push(await anScaCheck(db, run, { target }));
  }
  const run = await aRun(db, repository, { createdAt: new Date(start + RUNS * 1000), baseRun: runs.at(-1)! });
  check = await anScaCheck(db, run, { target });
  await sql`ANALYZE analysis_runs`.execute(db);
  await sql`ANALYZE sca_checks`.execute(db);
});
after(async () => {
  await database?.close();
});

test("an SCA check's base scan is read from its target's newest scans, not from every run of the branch", async () => {
  const { db: recording, statements } = recordingStatements(db);
  const found = await findScaCheckWithBase(recording, check.id);
  // Walked past the newest runs, which did not scan the target.
  assert.equal(String(found?.base_check_id), String(scans.at(-1)!.id));
  const plan = await analysedPlanOf(db, statements[0]!);
  assert.ok(
    rowsVisited(plan, "sca_checks") <= 5,
    `sca_checks rows visited: ${rowsVisited(plan, "sca_checks")}`,
  );
  assert.ok(
    rowsVisited(plan, "analysis_runs") <= 5,
    `analysis_runs rows visited: ${rowsVisited(plan, "analysis_runs")}`,
  );
});

test("the runs comparing with a scan are those whose base scan it is", async () => {
  const newest = scans.at(-1)!;
  assert.deepEqual(await findRunsComparingScansOf(db, newest.run_id), [String(check.run_id)]);
  assert.deepEqual(await findRunsComparingScansOf(db, scans.at(-2)!.run_id), []);
});
