import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database, MetricKey } from "../../db/types.ts";
import type { CoverageCheckFileRow } from "../../db/types-ingestion.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { escapeLike } from "../catalog/catalog-store.ts";
import { latestShownValueOf } from "../metrics/metric-store.ts";

/**
 * SQL of per-file coverage (docs/ingestion-coverage.md "Per-file coverage"): the rows of
 * `coverage_check_files`, one per (language, file) of a coverage check as its totals count it,
 * written when the check's coverage is recomputed and paged by `Check.coverageFiles` and
 * `Repository.coverageFiles`.
 */

/** A file several reports of one language name, merged the way the check's totals merge it. */
export interface MergedCoverageFile {
  metricKey: MetricKey;
  path: string;
  reports: number;
  linesTotal: number;
  linesCovered: number;
  branchesTotal: number;
  branchesCovered: number;
  conditionsTotal: number | null;
  conditionsCovered: number | null;
  uncoveredLines: readonly number[];
}

/** A file's coverage on the run's changed lines. */
export interface ChangedCoverageFile {
  metricKey: MetricKey;
  path: string;
  linesTotal: number;
  linesCovered: number;
  branchesTotal: number;
  branchesCovered: number;
}

/**
 * Replaces the check's per-file rows: each file only one report of its language names is copied
 * from `coverage_files` in SQL (its line arrays never leave the database), and `merged` holds
 * the files several reports name. `metricKeyOf` maps each stored language key to its metric key.
 */
export async function replaceCoverageCheckFiles(
  tx: Kysely<Database>,
  checkId: string,
  metricKeyOf: Readonly<Record<string, MetricKey>>,
  merged: readonly MergedCoverageFile[],
): Promise<void> {
  await tx.deleteFrom("coverage_check_files").where("check_id", "=", checkId).execute();
  const languages = Object.entries(metricKeyOf);
  await sql`
    INSERT INTO coverage_check_files (check_id, metric_key, path, reports, lines_total, lines_covered,
      branches_total, branches_covered, conditions_total, conditions_covered, uncovered_lines)
    SELECT f.check_id, k.metric_key, f.path, 1, f.lines_total, f.lines_covered, f.branches_total,
      f.branches_covered, f.conditions_total, f.conditions_covered, f.uncovered_lines
    FROM (
      SELECT cf.*, count(*) OVER (PARTITION BY cf.language_key, cf.path) AS copies
      FROM coverage_files AS cf WHERE cf.check_id = ${checkId}
    ) AS f
    JOIN unnest(${languages.map(([language]) => language)}::text[], ${languages.map(([, key]) => key)}::text[])
      AS k(language_key, metric_key) ON k.language_key = f.language_key
    WHERE f.copies = 1`.execute(tx);
  if (merged.length === 0) return;
  const column = <T>(pick: (file: MergedCoverageFile) => T) => merged.map(pick);
  await sql`
    INSERT INTO coverage_check_files (check_id, metric_key, path, reports, lines_total, lines_covered,
      branches_total, branches_covered, conditions_total, conditions_covered, uncovered_lines)
    SELECT ${checkId}, u.metric_key, u.path, u.reports, u.lines_total, u.lines_covered, u.branches_total,
      u.branches_covered, u.conditions_total, u.conditions_covered, u.uncovered_lines::integer[]
    FROM unnest(${column((f) => f.metricKey)}::text[], ${column((f) => f.path)}::text[],
      ${column((f) => f.reports)}::integer[], ${column((f) => f.linesTotal)}::integer[],
      ${column((f) => f.linesCovered)}::integer[], ${column((f) => f.branchesTotal)}::integer[],
      ${column((f) => f.branchesCovered)}::integer[], ${column((f) => f.conditionsTotal)}::integer[],
      ${column((f) => f.conditionsCovered)}::integer[], ${column((f) => `{${f.uncoveredLines.join(",")}}`)}::text[])
      AS u(metric_key, path, reports, lines_total, lines_covered, branches_total, branches_covered,
        conditions_total, conditions_covered, uncovered_lines)`.execute(tx);
}

/**
 * Sets the check's per-file figures on the run's changed lines: zero for every file, then
 * `changed` for the files that have changed lines. Conditions on changed lines are the branch
 * outcomes there, in files that report conditions (every such format counts them alike).
 */
export async function setChangedCoverageOfCheckFiles(
  tx: Kysely<Database>,
  checkId: string,
  changed: readonly ChangedCoverageFile[],
): Promise<void> {
  await sql`
    UPDATE coverage_check_files SET lines_new = 0, lines_new_covered = 0, branches_new = 0,
      branches_new_covered = 0,
      conditions_new = CASE WHEN conditions_total IS NULL THEN NULL ELSE 0 END,
      conditions_new_covered = CASE WHEN conditions_total IS NULL THEN NULL ELSE 0 END
    WHERE check_id = ${checkId}`.execute(tx);
  if (changed.length === 0) return;
  const column = <T>(pick: (file: ChangedCoverageFile) => T) => changed.map(pick);
  await sql`
    UPDATE coverage_check_files AS f SET lines_new = u.lines_new, lines_new_covered = u.lines_new_covered,
      branches_new = u.branches_new, branches_new_covered = u.branches_new_covered,
      conditions_new = CASE WHEN f.conditions_total IS NULL THEN NULL ELSE u.branches_new END,
      conditions_new_covered = CASE WHEN f.conditions_total IS NULL THEN NULL ELSE u.branches_new_covered END
    FROM unnest(${column((f) => f.metricKey)}::text[], ${column((f) => f.path)}::text[],
      ${column((f) => f.linesTotal)}::integer[], ${column((f) => f.linesCovered)}::integer[],
      ${column((f) => f.branchesTotal)}::integer[], ${column((f) => f.branchesCovered)}::integer[])
      AS u(metric_key, path, lines_new, lines_new_covered, branches_new, branches_new_covered)
    WHERE f.check_id = ${checkId} AND f.metric_key = u.metric_key AND f.path = u.path`.execute(tx);
}

// --- Reading ----------------------------------------------------------------------------------------

/** The orders of a coverage-file connection. */
export type CoverageFileSortKey =
  | "PATH"
  | "LCV_ASCENDING"
  | "LCV_DESCENDING"
  | "BCV_ASCENDING"
  | "BCV_DESCENDING"
  | "UNCOVERED_LINES_DESCENDING";

// A percentage in millionths, negated for a descending order so that every order runs ascending
// and ties fall back to the path in reading order; files with nothing to measure sort last.
const NOTHING_TO_MEASURE = "9000000000000000000";
const rate = (covered: string, total: string, sign: "" | "-") =>
  sql.raw(
    `coalesce(${sign}round(${covered} * 100000000.0 / nullif(${total}, 0))::bigint, ${NOTHING_TO_MEASURE}::bigint)`,
  );

const FILE_ROWS = sql`(
  SELECT f.*,
    ${rate("f.lines_covered", "f.lines_total", "")} AS lcv_ascending,
    ${rate("f.lines_covered", "f.lines_total", "-")} AS lcv_descending,
    ${rate("f.branches_covered", "f.branches_total", "")} AS bcv_ascending,
    ${rate("f.branches_covered", "f.branches_total", "-")} AS bcv_descending,
    (f.lines_covered - f.lines_total)::bigint AS uncovered_lines_descending
  FROM coverage_check_files AS f
)`;

function fileSource(sortKey: CoverageFileSortKey): ConnectionSource {
  const tail = [
    { column: "path", kind: "text" },
    { column: "metric_key", kind: "text" },
  ] as const;
  return {
    name: `coverageFilesOfCheck:${sortKey}`,
    from: FILE_ROWS,
    parentColumn: "check_id",
    order: sortKey === "PATH" ? tail : [{ column: sortKey.toLowerCase(), kind: "bigint" }, ...tail],
    direction: "asc",
  };
}

/** A check's per-file rows in each order (built once, so each order has one loader). Parent: the check id. */
export const COVERAGE_FILE_SOURCES: Readonly<Record<CoverageFileSortKey, ConnectionSource>> = {
  PATH: fileSource("PATH"),
  LCV_ASCENDING: fileSource("LCV_ASCENDING"),
  LCV_DESCENDING: fileSource("LCV_DESCENDING"),
  BCV_ASCENDING: fileSource("BCV_ASCENDING"),
  BCV_DESCENDING: fileSource("BCV_DESCENDING"),
  UNCOVERED_LINES_DESCENDING: fileSource("UNCOVERED_LINES_DESCENDING"),
};

/**
 * The filter of a coverage-file connection, as `ConnectionLoaders.load` takes it: `q` a
 * case-insensitive substring of the path (empty: no filter), `key` the language (null or
 * AGGREGATE, which stands for every language: no filter).
 */
export function coverageFileFilter(
  q: string,
  key: MetricKey | null,
): { key: string; condition: RawBuilder<boolean> } | undefined {
  const conditions: RawBuilder<boolean>[] = [];
  if (q !== "") conditions.push(sql<boolean>`s.path ILIKE ${`%${escapeLike(q)}%`} ESCAPE '\\'`);
  const language = key === null || key === "AGGREGATE" ? null : key;
  if (language !== null) conditions.push(sql<boolean>`s.metric_key = ${language}`);
  if (conditions.length === 0) return undefined;
  return {
    key: JSON.stringify(["coverageFiles", q, language]),
    condition: sql<boolean>`(${sql.join(conditions, sql` AND `)})`,
  };
}

/** A row of a coverage-file connection. */
export type CoverageFileRow = CoverageCheckFileRow;

/**
 * For each of these repositories that has one, the coverage check whose values the repository's
 * metrics show: the check of its newest AGGREGATE line coverage (LCV) value on the default branch,
 * found as the coverage report's latest value is (src/modules/reports/coverage-store.ts).
 */
export async function findCurrentCoverageChecks(
  db: Kysely<Database>,
  repositoryIds: readonly string[],
): Promise<Array<{ repository_id: string; check_id: string }>> {
  const result = await sql<{ repository_id: string; check_id: string }>`
    SELECT it.repository_id::text AS repository_id, v.check_id::text AS check_id
    FROM repository_metric_items AS it
    CROSS JOIN LATERAL ${latestShownValueOf(sql.ref("it.id"))} AS v
    WHERE it.repository_id = ANY(cast(${repositoryIds} as bigint[])) AND it.metric_shortcode = 'LCV'
      AND it.metric_key = 'AGGREGATE' AND v.check_id IS NOT NULL`.execute(db);
  return result.rows;
}
