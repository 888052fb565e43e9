import { type Kysely, sql } from "kysely";
import { arrayParameter } from "../../db/array-parameter.ts";
import type { Database, IssueSeverity } from "../../db/types.ts";
import { newOrderedRowKey } from "../../graphql/global-id.ts";
import { type IssueCountGroup, type IssueCountGroupRow, toIssueCountGroup } from "./issue-count-store.ts";
import { isPublished } from "./occurrence-store.ts";

/**
 * The writes SARIF processing makes to a check's occurrences (docs/ingestion.md "Fingerprints" and
 * "States against the base"): batches of new rows with their state decided against the base
 * check, the state pass over the rest of the check, and the base's findings the check lacks,
 * copied as RESOLVED. Each runs in the caller's transaction.
 */

/** New occurrence rows as one array per column (index i of each array is row i): what `unnest` takes. */
export interface OccurrenceColumns {
  readonly keys: readonly string[];
  readonly issueIds: readonly string[];
  readonly paths: readonly string[];
  readonly beginLines: readonly number[];
  readonly beginColumns: readonly number[];
  readonly endLines: readonly number[];
  readonly endColumns: readonly number[];
  readonly titles: readonly string[];
  readonly fingerprints: readonly string[];
  /** The fingerprint at a renamed file's old path (docs/ingestion.md "Renamed files"), else null. */
  readonly formerFingerprints: readonly (string | null)[];
  /**
   * The fingerprint at the old path of a file renamed against a commit that is not the run's base
   * yet: compared with nothing until a rebase makes it the former one; else null.
   */
  readonly deferredFormerFingerprints: readonly (string | null)[];
  readonly suppressed: readonly boolean[];
  readonly severities: readonly IssueSeverity[];
  /**
   * Whether the base check has a non-RESOLVED finding of each row's fingerprint or former one, as
   * the writer knows from the base it read; absent: PostgreSQL looks each row up
   * ({@link foundInBase}).
   */
  readonly inBase?: readonly boolean[] | undefined;
}

/** Where a batch goes: the check and artifact, and the base check its states are judged against. */
export interface BatchTarget {
  checkId: string;
  artifactId: string;
  baseCheckId: string | null;
  /**
   * True when the check already shows findings of other artifacts that the writer did not read
   * into memory: each row is then looked up among them, and not written when one has its
   * fingerprint (docs/ingestion.md "The same findings reported twice"). Absent or false: no
   * lookup, as for a check's first report or one whose held findings the writer knows.
   */
  checkHoldsFindings?: boolean;
}

/**
 * Findings of an artifact that were not written, or were deleted, because another published
 * finding of the check has their fingerprint: how many, how many of them suppressed, and the
 * artifact that holds them (null for findings of no artifact, such as the demo's).
 */
export interface ReportedElsewhere {
  artifactId: string | null;
  artifactKey: string | null;
  findings: number;
  suppressed: number;
}

/**
 * A lateral probe, for the row `alias`, of the check's published non-RESOLVED findings of other
 * artifacts with the same fingerprint: one row (`held`, and the holder's `artifact_id`) or none.
 * It walks the (check, fingerprint) index and stops at the first match.
 */
function heldElsewhere(checkId: string, artifactId: string, alias: string) {
  return sql`SELECT true AS held, h.artifact_id FROM occurrences AS h
    WHERE h.check_id = ${checkId} AND h.fingerprint = ${sql.ref(`${alias}.fingerprint`)}
      AND h.state <> 'RESOLVED' AND NOT h.is_carried AND h.artifact_id IS DISTINCT FROM ${artifactId}::bigint
      AND ${isPublished("h")}
    LIMIT 1`;
}

/**
 * A lateral probe, for the row `alias`, of the base check's non-RESOLVED findings with the row's
 * fingerprint or its former one (a renamed file's old path, or the base's fingerprint version):
 * one row (`found`) or none. Each fingerprint is its own equality probe of the (check,
 * fingerprint) index that stops at the first match, and a null former fingerprint matches nothing.
 * Written as `fingerprint IN (own, former)`, the probe let PostgreSQL walk the whole base check
 * through another index of the check for every row whenever its statistics took the base check
 * for a few rows, as they do until the table is analysed after a large report: 200,000 findings
 * against a base of as many then took minutes instead of seconds (docs/benchmarks.md
 * "The base looked up by two fingerprints"; test/occurrence-base-lookup.test.ts). With `formers`
 * false (no row of the batch has a former fingerprint) only the first probe is asked: about 3 µs
 * of PostgreSQL's time a row less against a base (docs/benchmarks.md "Occurrence keys in creation
 * order").
 */
export function foundInBase(baseCheckId: string, alias: "u" | "o", formers = true) {
  const probe = (column: "fingerprint" | "former_fingerprint") =>
    sql`(SELECT true AS found FROM occurrences AS b WHERE b.check_id = ${baseCheckId}::bigint
      AND b.fingerprint = ${sql.ref(`${alias}.${column}`)} AND b.state <> 'RESOLVED' LIMIT 1)`;
  if (!formers) return probe("fingerprint");
  return sql`${probe("fingerprint")} UNION ALL ${probe("former_fingerprint")} LIMIT 1`;
}

/** Rows counted by the artifact holding them, from a relation `r` of `holder` and `is_suppressed`. */
const BY_HOLDER = sql`SELECT r.holder::text AS "artifactId", a.key AS "artifactKey",
    count(*)::int AS findings, (count(*) FILTER (WHERE r.is_suppressed))::int AS suppressed
  FROM r LEFT JOIN artifacts AS a ON a.id = r.holder
  GROUP BY r.holder, a.key ORDER BY r.holder NULLS FIRST`;

/**
 * Deletes up to `limit` of the occurrences an artifact wrote (before it is processed again, or
 * when it fails); answers how many it deleted.
 */
export async function deleteOccurrenceBatchOfArtifact(
  tx: Kysely<Database>,
  artifactId: string,
  limit: number,
): Promise<number> {
  const result = await sql`
    DELETE FROM occurrences WHERE id IN (
      SELECT id FROM occurrences WHERE artifact_id = ${artifactId} LIMIT ${sql.lit(limit)})
  `.execute(tx);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Writes one batch in one statement. The state is decided here already (EXISTING when the base
 * check has a non-RESOLVED occurrence with the fingerprint or the former one), so the check-wide
 * state pass after processing only tests the check's other artifacts' rows. The writer says so
 * for each row when it holds the base in memory (`batch.inBase`); otherwise the base is looked up
 * row by row (a lateral index probe that stops at the first match, {@link foundInBase}): an
 * EXISTS would let PostgreSQL hash the whole base check for every batch when its statistics think
 * that check small, which they do while it is fresh. When the check already shows findings
 * (`checkHoldsFindings`), rows another of its published findings has the fingerprint of are not
 * written; answers those, by the artifact holding them.
 */
export async function insertOccurrenceBatch(
  tx: Kysely<Database>,
  target: BatchTarget,
  batch: OccurrenceColumns,
): Promise<ReportedElsewhere[]> {
  const formers = orNull(batch.formerFingerprints);
  const known = target.baseCheckId === null ? undefined : batch.inBase;
  const state =
    target.baseCheckId === null
      ? sql`'INTRODUCED'`
      : sql`CASE WHEN ${sql.ref(known ? "u.found" : "m.found")} THEN 'EXISTING' ELSE 'INTRODUCED' END`;
  const probe =
    target.baseCheckId === null || known
      ? sql``
      : sql`LEFT JOIN LATERAL (${foundInBase(target.baseCheckId, "u", formers !== null)}) AS m ON true`;
  const a = arrayParameter;
  const deferred = orNull(batch.deferredFormerFingerprints);
  const rows = sql`unnest(${a(batch.keys)}::text[], ${a(batch.issueIds)}::bigint[], ${a(batch.paths)}::text[],
      ${a(batch.beginLines)}::int[], ${a(batch.beginColumns)}::int[], ${a(batch.endLines)}::int[],
      ${a(batch.endColumns)}::int[], ${a(batch.titles)}::text[], ${a(batch.fingerprints)}::text[],
      ${formers && a(formers)}::text[], ${deferred && a(deferred)}::text[],
      ${a(batch.suppressed)}::boolean[], ${a(batch.severities)}::text[], ${known ? a(known) : null}::boolean[])
    AS u(key, issue_id, path, begin_line, begin_column, end_line, end_column, title, fingerprint,
      former_fingerprint, deferred_former_fingerprint, is_suppressed, severity, found)`;
  const insert = sql`INSERT INTO occurrences (key, check_id, issue_id, artifact_id, path, begin_line,
      begin_column, end_line, end_column, title, fingerprint, former_fingerprint,
      deferred_former_fingerprint, state, is_suppressed, severity)
    SELECT u.key, ${target.checkId}, u.issue_id, ${target.artifactId}, u.path, u.begin_line, u.begin_column,
      u.end_line, u.end_column, u.title, u.fingerprint, u.former_fingerprint,
      u.deferred_former_fingerprint, ${state}, u.is_suppressed, u.severity`;
  if (!target.checkHoldsFindings) {
    await sql`${insert} FROM ${rows} ${probe}`.execute(tx);
    return [];
  }
  const { rows: held } = await sql<ReportedElsewhere>`
    WITH u AS MATERIALIZED (
      SELECT u.*, e.held, e.artifact_id AS holder
      FROM ${rows}
      LEFT JOIN LATERAL (${heldElsewhere(target.checkId, target.artifactId, "u")}) AS e ON true
    ), written AS (
      ${insert} FROM u ${probe} WHERE u.held IS NULL
    ), r AS (SELECT holder, is_suppressed FROM u WHERE u.held)
    ${BY_HOLDER}
  `.execute(tx);
  return held;
}

/**
 * `values`, or null when every one of them is null: `unnest` pads a null array with nulls, so the
 * column of a batch without renames is not sent as thousands of NULLs to serialize and parse.
 */
function orNull(values: readonly (string | null)[]): readonly (string | null)[] | null {
  return values.some((value) => value !== null) ? values : null;
}

/**
 * Deletes the rows of `artifactId` that another published non-RESOLVED finding of the check has
 * the fingerprint of (at an artifact's publication, when the check gained a report while it was
 * staged); answers them by the artifact holding them.
 */
export async function deleteOccurrencesReportedElsewhere(
  tx: Kysely<Database>,
  checkId: string,
  artifactId: string,
): Promise<ReportedElsewhere[]> {
  const { rows } = await sql<ReportedElsewhere>`
    WITH dropped AS (
      DELETE FROM occurrences AS o
      WHERE o.artifact_id = ${artifactId} AND EXISTS (${heldElsewhere(checkId, artifactId, "o")})
      RETURNING o.fingerprint, o.is_suppressed
    ), r AS (
      SELECT e.artifact_id AS holder, d.is_suppressed
      FROM dropped AS d CROSS JOIN LATERAL (${heldElsewhere(checkId, artifactId, "d")}) AS e
    )
    ${BY_HOLDER}
  `.execute(tx);
  return rows;
}

/**
 * Deletes the rows `artifactId` wrote of these issues (at its publication, for rules graded into a
 * category the repository does not report); answers how many went, and how many of those were
 * suppressed.
 */
export async function deleteOccurrencesOfIssuesOfArtifact(
  tx: Kysely<Database>,
  artifactId: string,
  issueIds: readonly string[],
): Promise<{ findings: number; suppressed: number }> {
  if (issueIds.length === 0) return { findings: 0, suppressed: 0 };
  const { rows } = await sql<{ findings: number; suppressed: number }>`
    WITH dropped AS (
      DELETE FROM occurrences
      WHERE artifact_id = ${artifactId} AND issue_id = ANY(cast(${issueIds} as bigint[]))
      RETURNING is_suppressed
    )
    SELECT count(*)::int AS findings, (count(*) FILTER (WHERE is_suppressed))::int AS suppressed FROM dropped
  `.execute(tx);
  return rows[0] ?? { findings: 0, suppressed: 0 };
}

/**
 * Flips exactly the check's non-RESOLVED rows whose state disagrees with `baseCheckId`: EXISTING
 * without a base occurrence of the fingerprint (the row's own, or its former one in a renamed
 * file), INTRODUCED with one (every row INTRODUCED without a base). Rows already right are not
 * rewritten; rows of `skipArtifactId` are not tested.
 */
export async function flipOccurrenceStatesAgainstBase(
  tx: Kysely<Database>,
  checkId: string,
  baseCheckId: string | null,
  skipArtifactId: string | null,
): Promise<void> {
  const others =
    skipArtifactId === null ? sql`` : sql`AND (o.artifact_id IS NULL OR o.artifact_id <> ${skipArtifactId})`;
  await sql`
    UPDATE occurrences AS o
    SET state = CASE WHEN o.state = 'EXISTING' THEN 'INTRODUCED' ELSE 'EXISTING' END
    WHERE o.check_id = ${checkId} AND o.state <> 'RESOLVED' AND ${isPublished("o")} ${others}
      AND (o.state = 'EXISTING') <> ${
        baseCheckId === null ? sql`false` : sql`EXISTS (${foundInBase(baseCheckId, "o")})`
      }
  `.execute(tx);
}

/**
 * Refreshes the planner's statistics of the occurrences table from a small sample (a tenth of the
 * default): what the planner needs after a large ingestion is the table's new size and rough
 * distributions, and the full sample would hold the embedded database's one session for a fifth
 * of a second.
 */
export async function analyzeOccurrences(tx: Kysely<Database>): Promise<void> {
  await sql`SET LOCAL default_statistics_target = 10`.execute(tx);
  // Skipped rather than waited for while autovacuum holds the table, which may take minutes.
  await sql`ANALYZE (SKIP_LOCKED) occurrences`.execute(tx);
}

/** How many rows of `checkId` the planner expects in the occurrences table, from its statistics. */
export async function plannedRowsOfCheck(tx: Kysely<Database>, checkId: string): Promise<number> {
  const { rows } = await sql<{ "QUERY PLAN": unknown }>`
    EXPLAIN (FORMAT JSON) SELECT 1 FROM occurrences WHERE check_id = ${checkId}::bigint
  `.execute(tx);
  const plan = rows[0]?.["QUERY PLAN"];
  const parsed = (typeof plan === "string" ? JSON.parse(plan) : plan) as Array<{
    Plan: { "Plan Rows": number };
  }>;
  return parsed[0]!.Plan["Plan Rows"];
}

/**
 * Analyzes the occurrences table (as {@link analyzeOccurrences}) when the planner expects fewer
 * than half of the `rows` `checkId` now holds: a check the statistics do not know yet is taken for
 * as few rows as the table's average check. A report into a check they already count is not worth
 * a new sample: about 40 ms of PostgreSQL's time on a table of 600,000 findings, an eighth of what
 * a shard of 2,000 findings took in all (docs/benchmarks.md "What a small shard still cost").
 * Answers whether it analyzed.
 */
export async function analyzeOccurrencesUnlessPlanned(
  tx: Kysely<Database>,
  checkId: string,
  rows: number,
): Promise<boolean> {
  if ((await plannedRowsOfCheck(tx, checkId)) * 2 >= rows) return false;
  await analyzeOccurrences(tx);
  return true;
}

/**
 * Copies the base's occurrences whose fingerprint `checkId` lacks (as a row's own, or as its former
 * one in a renamed file) as RESOLVED rows (new key, no artifact), `batchSize` at a time. One cursor walks the base's rows once, each with whether the
 * check has its fingerprint; the absent ones are copied a page at a time. The test is a per-row
 * lookup in the SELECT list (never planned as a join), so a fresh check that the table's
 * statistics do not know yet cannot make it quadratic.
 */
export async function insertResolvedCopiesOfBase(
  tx: Kysely<Database>,
  checkId: string,
  baseCheckId: string,
  batchSize: number,
): Promise<void> {
  await sql`
    DECLARE assay_resolved_candidates NO SCROLL CURSOR FOR
    SELECT b.id, EXISTS (SELECT 1 FROM occurrences AS o WHERE o.check_id = ${checkId}
        AND o.fingerprint = b.fingerprint AND o.state <> 'RESOLVED' AND ${isPublished("o")})
      OR EXISTS (SELECT 1 FROM occurrences AS o WHERE o.check_id = ${checkId}
        AND o.former_fingerprint = b.fingerprint AND o.state <> 'RESOLVED' AND ${isPublished("o")}) AS present
    FROM occurrences AS b WHERE b.check_id = ${baseCheckId} AND b.state <> 'RESOLVED'
  `.execute(tx);
  // On an error the transaction is rolled back, which closes the cursor too.
  for (;;) {
    const { rows } = await sql<{ id: string; present: boolean }>`
      FETCH ${sql.lit(batchSize)} FROM assay_resolved_candidates
    `.execute(tx);
    const ids = rows.filter((row) => !row.present).map((row) => row.id);
    if (ids.length > 0) await copyAsResolved(tx, checkId, ids);
    if (rows.length < batchSize) break;
  }
  await sql`CLOSE assay_resolved_candidates`.execute(tx);
}

/** Where a page of a check's occurrences ended, in the (path, line, key) order of its index. */
export interface OccurrencePosition {
  path: string;
  beginLine: number;
  key: string;
}

/**
 * A page of `limit` of a check's non-RESOLVED occurrences after `after`, in the order of the
 * (check, path, line, key) index: their ids, fingerprints and artifacts, and where the page ended
 * (null when it was the last). With `heldApartFrom`, only the findings that hold a fingerprint
 * against that artifact's rows, as {@link heldElsewhere} finds them one at a time: published, not
 * carried, and of another artifact.
 */
export async function findOccurrenceFingerprintPage(
  tx: Kysely<Database>,
  checkId: string,
  after: OccurrencePosition | null,
  limit: number,
  heldApartFrom?: string,
): Promise<{
  rows: Array<{ id: string; fingerprint: string; artifactId: string | null }>;
  next: OccurrencePosition | null;
}> {
  const from =
    after === null
      ? sql``
      : sql`AND (o.path, o.begin_line, o.key) > (${after.path}::text, ${after.beginLine}::int, ${after.key}::text)`;
  const held =
    heldApartFrom === undefined
      ? sql``
      : sql`AND NOT o.is_carried AND o.artifact_id IS DISTINCT FROM ${heldApartFrom}::bigint AND ${isPublished("o")}`;
  const { rows } = await sql<{
    id: string;
    fingerprint: string;
    artifact_id: string | null;
    path: string;
    begin_line: number;
    key: string;
  }>`
    SELECT o.id, o.fingerprint, o.artifact_id, o.path, o.begin_line, o.key
    FROM occurrences AS o
    WHERE o.check_id = ${checkId} AND o.state <> 'RESOLVED' ${from} ${held}
    ORDER BY o.path, o.begin_line, o.key
    LIMIT ${sql.lit(limit)}
  `.execute(tx);
  const last = rows.at(-1);
  return {
    rows: rows.map((row) => ({
      id: String(row.id),
      fingerprint: row.fingerprint,
      artifactId: row.artifact_id === null ? null : String(row.artifact_id),
    })),
    next:
      rows.length < limit || last === undefined
        ? null
        : { path: last.path, beginLine: last.begin_line, key: last.key },
  };
}

/**
 * Inserts a RESOLVED copy (new key, no artifact) of each base occurrence in `ids` into `checkId`,
 * `batchSize` at a time.
 */
export async function insertResolvedCopies(
  tx: Kysely<Database>,
  checkId: string,
  ids: readonly string[],
  batchSize: number,
): Promise<void> {
  for (let start = 0; start < ids.length; start += batchSize)
    await copyAsResolved(tx, checkId, ids.slice(start, start + batchSize));
}

/** Inserts a RESOLVED copy (new key, no artifact) of each base occurrence in `ids` into `checkId`. */
async function copyAsResolved(tx: Kysely<Database>, checkId: string, ids: readonly string[]): Promise<void> {
  const keys = ids.map(() => newOrderedRowKey());
  await sql`
    INSERT INTO occurrences (key, check_id, issue_id, artifact_id, path, begin_line, begin_column,
      end_line, end_column, title, fingerprint, state, is_suppressed, severity)
    SELECT n.key, ${checkId}, b.issue_id, NULL, b.path, b.begin_line, b.begin_column,
      b.end_line, b.end_column, b.title, b.fingerprint, 'RESOLVED', b.is_suppressed, b.severity
    FROM unnest(${ids}::bigint[], ${keys}::text[]) AS n(id, key)
    JOIN occurrences AS b ON b.id = n.id
  `.execute(tx);
}

/**
 * Turns the check's RESOLVED copies of base findings that lie in paths its tool could not analyze
 * into carried EXISTING rows (docs/ingestion.md "Status"): what the tool did not see is as the
 * base had it, not fixed. `paths` holds files, and directories written with a trailing `/` (`./`
 * for the root), which hold the files directly in them (a Go package). Answers how many rows were
 * carried.
 */
export async function carryBaseFindingsInPaths(
  tx: Kysely<Database>,
  checkId: string,
  paths: readonly string[],
): Promise<number> {
  if (paths.length === 0) return 0;
  const files = paths.filter((p) => !p.endsWith("/"));
  const directories = paths.filter((p) => p.endsWith("/"));
  const result = await sql`
    UPDATE occurrences AS o SET state = 'EXISTING', is_carried = true
    WHERE o.check_id = ${checkId} AND o.state = 'RESOLVED' AND o.artifact_id IS NULL
      AND (o.path = ANY(${files}::text[])
        OR (CASE WHEN strpos(o.path, '/') = 0 THEN './' ELSE regexp_replace(o.path, '[^/]*$', '') END)
          = ANY(${directories}::text[]))
  `.execute(tx);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Turns the check's carried rows back into the RESOLVED copies they were
 * ({@link carryBaseFindingsInPaths}), for the places its tool could not analyze to be found
 * again.
 */
export async function uncarryOccurrencesOfCheck(tx: Kysely<Database>, checkId: string): Promise<void> {
  await sql`UPDATE occurrences SET state = 'RESOLVED', is_carried = false
    WHERE check_id = ${checkId} AND is_carried`.execute(tx);
}

/**
 * Deletes the check's RESOLVED copies of base findings that the rows of `artifactId` now have, by
 * their fingerprint or their former one: the findings are there again, as those rows. Answers the
 * deleted rows counted as the check's issue counts count them, for those to be lowered.
 */
export async function deleteResolvedCopiesFoundIn(
  tx: Kysely<Database>,
  checkId: string,
  artifactId: string,
): Promise<IssueCountGroup[]> {
  const { rows } = await sql<IssueCountGroupRow>`
    WITH deleted AS (
      DELETE FROM occurrences AS r
      WHERE r.check_id = ${checkId} AND r.state = 'RESOLVED' AND r.fingerprint IN (
        SELECT o.fingerprint FROM occurrences AS o WHERE o.artifact_id = ${artifactId}
        UNION
        SELECT o.former_fingerprint FROM occurrences AS o
        WHERE o.artifact_id = ${artifactId} AND o.former_fingerprint IS NOT NULL)
      RETURNING r.issue_id, r.severity, r.state, r.is_suppressed)
    SELECT issue_id, severity, state, is_suppressed, count(*)::int AS occurrences
    FROM deleted GROUP BY issue_id, severity, state, is_suppressed
  `.execute(tx);
  return rows.map(toIssueCountGroup);
}

/**
 * Makes the deferred former fingerprints of run `runId`'s findings their former fingerprints, now
 * that the run is compared with the commit their renames are against (docs/ingestion.md "Renamed
 * files"); answers how many rows changed. The checks they changed in forget the base they were
 * judged against (`checks.settled_against`), so the next setting of their states judges every
 * row; the caller sets them again.
 */
export async function adoptDeferredFormerFingerprints(tx: Kysely<Database>, runId: string): Promise<number> {
  const result = await sql`UPDATE occurrences AS o
    SET former_fingerprint = o.deferred_former_fingerprint, deferred_former_fingerprint = NULL
    FROM checks AS c
    WHERE c.run_id = ${runId} AND o.check_id = c.id AND o.deferred_former_fingerprint IS NOT NULL`.execute(
    tx,
  );
  const changed = Number(result.numAffectedRows ?? 0);
  // Their states were judged with the fingerprints they had: the next setting judges them all.
  if (changed > 0)
    await sql`UPDATE checks SET settled_against = NULL
      WHERE run_id = ${runId} AND settled_against IS NOT NULL`.execute(tx);
  return changed;
}
