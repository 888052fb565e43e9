// test-runner: execution-mode independent (the stores' SQL on the database; no GraphQL)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import type { AnalyzerRow, Database, IssueRow, RepositoryRow } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { ANALYZE_AFTER_FINDINGS } from "../src/ingestion/sarif/process.ts";
import {
  analyzeOccurrencesUnlessPlanned,
  flipOccurrenceStatesAgainstBase,
  foundInBase,
  insertOccurrenceBatch,
  type OccurrenceColumns,
  plannedRowsOfCheck,
} from "../src/modules/checks/occurrence-write-store.ts";
import { anAccount, aRepository, aRun, aUser } from "./helpers/builders.ts";
import { anArtifact } from "./helpers/builders-artifacts.ts";
import { anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import { aCheck, occurrencesIn } from "./helpers/builders-checks.ts";
import { type OpenTestDatabase, openTestDatabase } from "./helpers/database.ts";
import { generatedSarifChunks } from "./helpers/generated-sarif.ts";
import { analysedPlan, rowsVisited } from "./helpers/plans.ts";
import { type Scene, sarifScenes } from "./helpers/sarif-scene.ts";

/**
 * A new check's findings are judged against its base check by fingerprint: their own, or their
 * former one (a renamed file's old path, or the base's fingerprint version). The lookup must stay
 * an index probe per finding even while the table's statistics do not know the base check yet,
 * which is the case right after a large report, before anything analyses the table: a probe that
 * walks the base check for each finding makes a report against a large base quadratic (200,000
 * findings against as many took minutes in bench/ingest.ts).
 */

const BATCH = 600;
const SMALL_CHECKS = 40;

let database: OpenTestDatabase;
let db: Kysely<Database>;
const { aScene, aNextScene, ingest } = sarifScenes(() => db);
let repository: RepositoryRow;
let analyzer: AnalyzerRow;
let issue: IssueRow;
/** The check of a large report: what the next report is compared with. */
let base: Scene;
let report: string;
let baseFingerprints: string[];

before(async () => {
  database = await openTestDatabase();
  db = database.handle.db;
  const user = await aUser(db);
  const account = await anAccount(db, {}, [{ user, role: "ADMIN" }]);
  repository = await aRepository(db, account);
  analyzer = await anAnalyzer(db);
  issue = await anIssue(db, analyzer);
  // Statistics taken while the table holds a few small checks (a new installation's first
  // reports): a check they do not know is then taken for about ten rows.
  const small = await aRun(db, repository);
  for (let n = 0; n < SMALL_CHECKS; n++) {
    await occurrencesIn(
      db,
      await aCheck(db, small, await anAnalyzer(db)),
      Array.from({ length: 10 }, (_, i) => ({ issue, beginLine: i + 1 })),
    );
  }
  await sql`ANALYZE occurrences`.execute(db);
  // A report just large enough to refresh them.
  report = [...generatedSarifChunks({ results: ANALYZE_AFTER_FINDINGS + 1000, files: 200 })].join("");
  base = await aScene();
  const { result } = await ingest(base, report);
  assert.equal(result.stored, ANALYZE_AFTER_FINDINGS + 1000);
  const rows = await db
    .selectFrom("occurrences")
    .select("fingerprint")
    .where("check_id", "=", base.check.id)
    .orderBy("fingerprint")
    .limit(2 * BATCH)
    .execute();
  baseFingerprints = rows.map((row) => row.fingerprint);
});
after(async () => {
  await database?.close();
});

/** The columns of `fingerprints.length` new findings of `issue`, with those fingerprints. */
function columns(fingerprints: readonly string[], formers: readonly (string | null)[]): OccurrenceColumns {
  return {
    keys: fingerprints.map(() => newRowKey()),
    issueIds: fingerprints.map(() => issue.id),
    paths: fingerprints.map(() => "src/main.py"),
    beginLines: fingerprints.map((_, i) => i + 1),
    beginColumns: fingerprints.map(() => 1),
    endLines: fingerprints.map((_, i) => i + 1),
    endColumns: fingerprints.map(() => 10),
    titles: fingerprints.map(() => issue.title),
    fingerprints,
    formerFingerprints: formers,
    deferredFormerFingerprints: fingerprints.map(() => null),
    suppressed: fingerprints.map(() => false),
    severities: fingerprints.map(() => "MINOR" as const),
  };
}

describe("the base looked up by a finding's fingerprints", () => {
  test("after a large report, each finding of the next probes its index rather than walking the check", async () => {
    const own = baseFingerprints.slice(0, BATCH);
    const formers: Array<string | null> = own.map((_, i) =>
      i % 2 === 0 ? null : baseFingerprints[BATCH + i]!,
    );
    const plan = await analysedPlan(
      db,
      sql`SELECT count(m.found) FROM unnest(cast(${own} as text[]), cast(${formers} as text[]))
        AS u(fingerprint, former_fingerprint)
        LEFT JOIN LATERAL (${foundInBase(base.check.id, "u")}) AS m ON true`,
    );
    // At most one index entry per fingerprint probed; the whole base check would be 6,000 a row.
    assert.ok(
      rowsVisited(plan, "occurrences") <= 2 * BATCH,
      `${rowsVisited(plan, "occurrences")} base rows visited for ${BATCH} findings`,
    );
  });

  test("the state pass's test probes the index per finding too", async () => {
    const plan = await analysedPlan(
      db,
      sql`SELECT count(*) FROM occurrences AS o
        WHERE o.check_id = ${base.check.id} AND o.fingerprint = ANY(cast(${baseFingerprints.slice(0, BATCH)} as text[]))
          AND EXISTS (${foundInBase(base.check.id, "o")})`,
    );
    assert.ok(
      rowsVisited(plan, "occurrences") <= 3 * BATCH,
      `${rowsVisited(plan, "occurrences")} rows visited for ${BATCH} findings`,
    );
  });

  test("a batch is EXISTING by its own or its former fingerprint, INTRODUCED by neither, and the state pass agrees", async () => {
    const run = await aRun(db, repository);
    const check = await aCheck(db, run, analyzer);
    const artifact = await anArtifact(db, run, check);
    const fingerprints = [baseFingerprints[0]!, "renamed-a", "new-b", baseFingerprints[1]!];
    const formers = [null, baseFingerprints[2]!, null, "not-in-base"];
    await db.transaction().execute(async (tx) => {
      await insertOccurrenceBatch(
        tx,
        { checkId: check.id, artifactId: artifact.id, baseCheckId: base.check.id },
        columns(fingerprints, formers),
      );
    });
    const states = async () =>
      (
        await db
          .selectFrom("occurrences")
          .select(["fingerprint", "state"])
          .where("check_id", "=", check.id)
          .execute()
      )
        .map((row) => `${row.fingerprint} ${row.state}`)
        .sort();
    const expected = [
      `${baseFingerprints[0]} EXISTING`,
      `${baseFingerprints[1]} EXISTING`,
      "new-b INTRODUCED",
      "renamed-a EXISTING",
    ].sort();
    assert.deepEqual(await states(), expected);
    // Every state flipped by hand is flipped back by the pass, and the rest are left alone.
    await db
      .updateTable("occurrences")
      .set({ state: sql`CASE WHEN state = 'EXISTING' THEN 'INTRODUCED' ELSE 'EXISTING' END` })
      .where("check_id", "=", check.id)
      .execute();
    await db
      .transaction()
      .execute((tx) => flipOccurrenceStatesAgainstBase(tx, check.id, base.check.id, null));
    assert.deepEqual(await states(), expected);
    await db.transaction().execute((tx) => flipOccurrenceStatesAgainstBase(tx, check.id, null, null));
    assert.deepEqual(
      await states(),
      expected.map((line) => line.replace("EXISTING", "INTRODUCED")),
    );
  });
});

test("the same large report once more is EXISTING throughout, with nothing resolved", async () => {
  const next = await aNextScene(base);
  const { result } = await ingest(next, report, { baseCheckId: base.check.id });
  assert.deepEqual(result.counts, {
    ...result.counts,
    introduced: 0,
    existing: ANALYZE_AFTER_FINDINGS + 1000,
    resolved: 0,
  });
});

describe("the table's statistics sampled again only while they do not count the check", () => {
  /** How many times the occurrences table was analysed by a statement (autovacuum's are not counted). */
  async function analyses(): Promise<number> {
    const { rows } = await sql<{ count: string }>`
      SELECT analyze_count::text AS count FROM pg_stat_user_tables WHERE relname = 'occurrences'`.execute(db);
    return Number(rows[0]!.count);
  }
  // Autovacuum analysing the table at the same moment would make ANALYZE (SKIP_LOCKED) skip.
  before(async () => {
    await sql`ALTER TABLE occurrences SET (autovacuum_enabled = false)`.execute(db);
  });

  test("a check the statistics do not know is sampled, and then counted; a check they count is not sampled", async () => {
    const run = await aRun(db, repository);
    const check = await aCheck(db, run, analyzer);
    await occurrencesIn(
      db,
      check,
      Array.from({ length: 1500 }, (_, i) => ({ issue, beginLine: i + 1 })),
    );
    // Taken for a check of the table's average size, about ten rows.
    assert.ok((await plannedRowsOfCheck(db, check.id)) < 750);
    const before = await analyses();
    assert.equal(
      await db.transaction().execute((tx) => analyzeOccurrencesUnlessPlanned(tx, check.id, 1500)),
      true,
    );
    assert.equal(await analyses(), before + 1);
    const planned = await plannedRowsOfCheck(db, check.id);
    assert.ok(planned >= 750, `planned ${planned} rows of 1,500`);
    // Counted at more than half what it holds: no new sample.
    assert.equal(
      await db.transaction().execute((tx) => analyzeOccurrencesUnlessPlanned(tx, check.id, 2 * planned)),
      false,
    );
    assert.equal(await analyses(), before + 1);
    // Past twice what they count: sampled again.
    assert.equal(
      await db.transaction().execute((tx) => analyzeOccurrencesUnlessPlanned(tx, check.id, 2 * planned + 1)),
      true,
    );
    assert.equal(await analyses(), before + 2);
  });

  test("a large shard into a check the statistics count leaves them as they are; a large first report refreshes them", async () => {
    const scene = await aScene({ analyzer, repository });
    const before = await analyses();
    const first = await ingest(scene, report);
    assert.equal(first.result.stored, ANALYZE_AFTER_FINDINGS + 1000);
    assert.equal(await analyses(), before + 1);
    // Another shard of the same build, of more than ANALYZE_AFTER_FINDINGS other findings.
    const shard = [
      ...generatedSarifChunks({
        results: ANALYZE_AFTER_FINDINGS + 200,
        files: 100,
        first: ANALYZE_AFTER_FINDINGS + 1000,
      }),
    ].join("");
    const second = await ingest(scene, shard);
    assert.equal(second.result.stored, ANALYZE_AFTER_FINDINGS + 200);
    assert.equal(await analyses(), before + 1);
  });
});
