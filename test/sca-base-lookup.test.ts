// test-runner: execution-mode independent (the stores' SQL on the database; no GraphQL)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Kysely, sql } from "kysely";
import type {
  AnalysisRunRow,
  CheckStatus,
  Database,
  RepositoryRow,
  RepositoryTargetRow,
  ScaCheckRow,
} from "../src/db/types.ts";
import { findScaCheckWithBase } from "../src/modules/dependencies/advisory-store.ts";
import { findRunsComparingScansOf } from "../src/modules/dependencies/sbom-store.ts";
import { anAccount, aRepository, aRun, aUser } from "./helpers/builders.ts";
import { anArtifact } from "./helpers/builders-artifacts.ts";
import { anAnalyzer } from "./helpers/builders-catalog.ts";
import { aCheck } from "./helpers/builders-checks.ts";
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
let repository: RepositoryRow;
let db: Kysely<Database>;
let target: RepositoryTargetRow;
let scans: ScaCheckRow[];
let check: ScaCheckRow;

before(async () => {
  database = await openTestDatabase();
  db = database.handle.db;
  const account = await anAccount(db, {}, [{ user: await aUser(db), role: "ADMIN" }]);
  repository = await aRepository(db, account);
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

/**
 * The base scan of a scan whose run's base run scanned its target in an `sca` check that does not
 * say what the code holds (`status`, with a FAILED SBOM when `failed`), over a scan of the run
 * before: the one found, and the earlier scan.
 */
async function baseScanPast(status: CheckStatus, failed: boolean) {
  // Of an analyzer of its own: the rule reads the check, not the catalog.
  const sca = await anAnalyzer(db);
  const scanned = await aTarget(db, repository);
  const start = Date.now();
  const earlier = await aRun(db, repository, { createdAt: new Date(start + 10_000) });
  const kept = await anScaCheck(db, earlier, { target: scanned, check: await aCheck(db, earlier, sca) });
  // Analysed, by its other checks when its `sca` check is NEUTRAL.
  const base = await aRun(db, repository, {
    createdAt: new Date(start + 20_000),
    status: failed ? "FAILURE" : "SUCCESS",
  });
  const baseCheck = await aCheck(db, base, sca, { status });
  await anScaCheck(db, base, { target: scanned, check: baseCheck });
  if (failed) await anArtifact(db, base, baseCheck, { kind: "SBOM", analyzer: "sca", status: "FAILED" });
  const run = await aRun(db, repository, { createdAt: new Date(start + 30_000), baseRun: base });
  const scan = await anScaCheck(db, run, { target: scanned });
  const found = await findScaCheckWithBase(db, scan.id);
  return { found: String(found?.base_check_id), kept: String(kept.id) };
}

test("a base run's scan whose sca check has an SBOM that failed to process is walked past", async () => {
  const { found, kept } = await baseScanPast("FAILURE", true);
  assert.equal(found, kept);
});

test("a base run's scan in an sca check that stored nothing (NEUTRAL) is walked past", async () => {
  const { found, kept } = await baseScanPast("NEUTRAL", false);
  assert.equal(found, kept);
});
