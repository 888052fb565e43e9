import { type Insertable, type Kysely, sql } from "kysely";
import type { CoverageReportsTable, Database } from "../../db/types.ts";

/**
 * SQL of coverage processing (docs/ingestion-coverage.md "Coverage metrics and new-code
 * coverage"): each coverage artifact's per-file rows (`coverage_files`), read back to recompute
 * the check, and the check's totals (`coverage_reports`). Each runs in the caller's transaction.
 */

/** A `coverage_files` row as the recomputation reads it. */
export interface StoredCoverageFile {
  language_key: string;
  path: string;
  lines_total: number;
  lines_covered: number;
  branches_total: number;
  branches_covered: number;
  conditions_total: number | null;
  conditions_covered: number | null;
  covered_lines: number[];
  uncovered_lines: number[];
  branch_lines: number[];
  branch_totals: number[];
  branch_taken: number[];
}

/** A language's totals over some of a check's files. */
export type CoverageTotalsRow = Omit<
  StoredCoverageFile,
  "path" | "covered_lines" | "uncovered_lines" | "branch_lines" | "branch_totals" | "branch_taken"
>;

/** A file's new row; the line arrays as PostgreSQL array literals (`{1,2,3}`), cast on insert. */
export interface CoverageFileValues {
  path: string;
  linesTotal: number;
  linesCovered: number;
  branchesTotal: number;
  branchesCovered: number;
  conditionsTotal: number | null;
  conditionsCovered: number | null;
  coveredLines: string;
  uncoveredLines: string;
  branchLines: string;
  branchTotals: string;
  branchTaken: string;
}

/** The `coverage_reports` columns a recomputation writes. */
export type CoverageReportValues = Omit<Insertable<CoverageReportsTable>, "check_id">;

/** Deletes the rows an artifact wrote (before it is processed again). */
export async function deleteCoverageFilesOfArtifact(tx: Kysely<Database>, artifactId: string): Promise<void> {
  await tx.deleteFrom("coverage_files").where("artifact_id", "=", artifactId).execute();
}

/** Inserts one row per file in one statement (one array per column through unnest). */
export async function insertCoverageFiles(
  tx: Kysely<Database>,
  owner: { checkId: string; artifactId: string; languageKey: string },
  batch: readonly CoverageFileValues[],
): Promise<void> {
  const column = <T>(pick: (row: CoverageFileValues) => T) => batch.map(pick);
  await sql`
    INSERT INTO coverage_files (check_id, artifact_id, language_key, path, lines_total, lines_covered,
      branches_total, branches_covered, conditions_total, conditions_covered, covered_lines, uncovered_lines,
      branch_lines, branch_totals, branch_taken)
    SELECT ${owner.checkId}, ${owner.artifactId}, ${owner.languageKey}, u.path, u.lines_total, u.lines_covered,
      u.branches_total, u.branches_covered, u.conditions_total, u.conditions_covered,
      u.covered_lines::integer[], u.uncovered_lines::integer[], u.branch_lines::integer[],
      u.branch_totals::integer[], u.branch_taken::integer[]
    FROM unnest(${column((r) => r.path)}::text[], ${column((r) => r.linesTotal)}::integer[],
      ${column((r) => r.linesCovered)}::integer[], ${column((r) => r.branchesTotal)}::integer[],
      ${column((r) => r.branchesCovered)}::integer[], ${column((r) => r.conditionsTotal)}::integer[],
      ${column((r) => r.conditionsCovered)}::integer[], ${column((r) => r.coveredLines)}::text[],
      ${column((r) => r.uncoveredLines)}::text[], ${column((r) => r.branchLines)}::text[],
      ${column((r) => r.branchTotals)}::text[], ${column((r) => r.branchTaken)}::text[])
      AS u(path, lines_total, lines_covered, branches_total, branches_covered, conditions_total,
        conditions_covered, covered_lines, uncovered_lines, branch_lines, branch_totals, branch_taken)`.execute(
    tx,
  );
}

/** Gives the check an (empty) report unless it has one. */
export async function ensureCoverageReport(tx: Kysely<Database>, checkId: string): Promise<void> {
  await tx
    .insertInto("coverage_reports")
    .values({ check_id: checkId })
    .onConflict((oc) => oc.column("check_id").doNothing())
    .execute();
}

/** Writes the check's report, created or replaced. */
export async function upsertCoverageReport(
  tx: Kysely<Database>,
  checkId: string,
  row: CoverageReportValues,
): Promise<void> {
  await tx
    .insertInto("coverage_reports")
    .values({ check_id: checkId, ...row })
    .onConflict((oc) => oc.column("check_id").doUpdateSet(row))
    .execute();
}

/** Whether the check has a report to compute: a report row, coverage files, or a processed coverage artifact. */
export async function hasCoverageReport(tx: Kysely<Database>, checkId: string): Promise<boolean> {
  const result = await sql<{ present: boolean }>`
    SELECT EXISTS (SELECT 1 FROM coverage_reports WHERE check_id = ${checkId})
      OR EXISTS (SELECT 1 FROM coverage_files WHERE check_id = ${checkId})
      OR EXISTS (SELECT 1 FROM artifacts WHERE check_id = ${checkId} AND kind = 'COVERAGE' AND status = 'PROCESSED')
      AS present`.execute(tx);
  return result.rows[0]?.present === true;
}

/** Totals per language over the files only one artifact of the check names. */
export async function findSingleFileTotals(
  tx: Kysely<Database>,
  checkId: string,
): Promise<CoverageTotalsRow[]> {
  const result = await sql<CoverageTotalsRow>`
    SELECT language_key, sum(lines_total)::int AS lines_total, sum(lines_covered)::int AS lines_covered,
      sum(branches_total)::int AS branches_total, sum(branches_covered)::int AS branches_covered,
      sum(conditions_total)::int AS conditions_total, sum(conditions_covered)::int AS conditions_covered
    FROM (
      SELECT cf.*, count(*) OVER (PARTITION BY language_key, path) AS copies
      FROM (SELECT language_key, path, lines_total, lines_covered, branches_total, branches_covered,
              conditions_total, conditions_covered
            FROM coverage_files WHERE check_id = ${checkId}) AS cf
    ) AS f
    WHERE copies = 1
    GROUP BY language_key`.execute(tx);
  return result.rows;
}

const STORED_FILE_COLUMNS = `language_key, path, lines_total, lines_covered, branches_total, branches_covered,
  conditions_total, conditions_covered, covered_lines, uncovered_lines, branch_lines, branch_totals, branch_taken`;

/** The rows of files several artifacts of one language name. */
export async function findRepeatedFiles(
  tx: Kysely<Database>,
  checkId: string,
): Promise<StoredCoverageFile[]> {
  const result = await sql<StoredCoverageFile>`
    SELECT ${sql.raw(STORED_FILE_COLUMNS)} FROM coverage_files
    WHERE check_id = ${checkId} AND (language_key, path) IN (
      SELECT language_key, path FROM coverage_files WHERE check_id = ${checkId}
      GROUP BY language_key, path HAVING count(*) > 1)`.execute(tx);
  return result.rows;
}

/** The rows of files the check holds under more than one language key (every artifact's). */
export async function findFilesOfSeveralLanguages(
  tx: Kysely<Database>,
  checkId: string,
): Promise<StoredCoverageFile[]> {
  const result = await sql<StoredCoverageFile>`
    SELECT ${sql.raw(STORED_FILE_COLUMNS)} FROM coverage_files
    WHERE check_id = ${checkId} AND path IN (
      SELECT path FROM coverage_files WHERE check_id = ${checkId}
      GROUP BY path HAVING count(DISTINCT language_key) > 1)`.execute(tx);
  return result.rows;
}

/** The check's rows of files with these paths (every artifact's, every language's). */
export async function findCoverageFilesByPaths(
  tx: Kysely<Database>,
  checkId: string,
  paths: readonly string[],
): Promise<StoredCoverageFile[]> {
  const result = await sql<StoredCoverageFile>`
    SELECT ${sql.raw(STORED_FILE_COLUMNS)} FROM coverage_files
    WHERE check_id = ${checkId} AND path = ANY(${paths}::text[])`.execute(tx);
  return result.rows;
}

/**
 * The paths of the check's files that artifacts recorded as `format` (the name the intake gave
 * the report, `JaCoCo`...) hold, each with the artifact that holds it; only those starting with
 * `prefix` when given.
 */
export async function findCoverageFilePathsOfFormat(
  tx: Kysely<Database>,
  checkId: string,
  format: string,
  prefix = "",
): Promise<Array<{ path: string; artifact_id: string }>> {
  const result = await sql<{ path: string; artifact_id: string }>`
    SELECT cf.path, cf.artifact_id::text AS artifact_id
    FROM coverage_files AS cf JOIN artifacts AS a ON a.id = cf.artifact_id
    WHERE cf.check_id = ${checkId} AND a.format = ${format}
      AND left(cf.path, ${prefix.length}) = ${prefix}`.execute(tx);
  return result.rows;
}
