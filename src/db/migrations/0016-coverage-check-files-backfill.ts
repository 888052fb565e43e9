import { type Kysely, sql } from "kysely";

/**
 * Per-file coverage for checks processed before 0011. Migration 0011 created
 * `coverage_check_files` empty, and rows are written only when a check's coverage is recomputed,
 * so a coverage check uploaded earlier kept its `coverage_files` rows (and its totals and metric
 * values) but answered no files in `Check.coverageFiles` and `Repository.coverageFiles` after the
 * upgrade. This writes the rows such a check would have got: one per (language, file), a file
 * several reports of one language name merged as the recomputation merges it (any report running
 * a line covers it; a branch line keeps the most outcomes and the most taken of any report;
 * reports without line or branch detail keep the larger counts). The figures on changed lines
 * stay null, as for a run without changed lines; the next recomputation of the check fills them.
 *
 * Self-contained on purpose: the language map and the merge rule are copied as they stand at this
 * migration, so later changes to the code cannot change what it does.
 */

const METRIC_KEY_OF_LANGUAGE: Record<string, string> = {
  python: "PYTHON",
  go: "GO",
  javascript: "JAVASCRIPT",
  ruby: "RUBY",
  java: "JAVA",
  scala: "SCALA",
  php: "PHP",
  csharp: "CSHARP",
  cxx: "C_AND_CPP",
  rust: "RUST",
  swift: "SWIFT",
  kotlin: "KOTLIN",
};

interface StoredFile {
  check_id: string;
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

export async function up(db: Kysely<unknown>): Promise<void> {
  const languages = Object.keys(METRIC_KEY_OF_LANGUAGE);
  const metricKeys = Object.values(METRIC_KEY_OF_LANGUAGE);
  // Checks with per-artifact coverage but no per-file rows: only checks processed before 0011
  // (every recomputation since writes a row for each of the check's files).
  await sql`
    CREATE TEMPORARY TABLE backfill_checks AS
    SELECT DISTINCT cf.check_id FROM coverage_files AS cf
    WHERE NOT EXISTS (SELECT 1 FROM coverage_check_files AS ccf WHERE ccf.check_id = cf.check_id)`.execute(
    db,
  );

  // Files only one report of their language names: copied as they are.
  await sql`
    INSERT INTO coverage_check_files (check_id, metric_key, path, reports, lines_total, lines_covered,
      branches_total, branches_covered, conditions_total, conditions_covered, uncovered_lines)
    SELECT f.check_id, k.metric_key, f.path, 1, f.lines_total, f.lines_covered, f.branches_total,
      f.branches_covered, f.conditions_total, f.conditions_covered, f.uncovered_lines
    FROM (
      SELECT cf.*, count(*) OVER (PARTITION BY cf.check_id, cf.language_key, cf.path) AS copies
      FROM coverage_files AS cf JOIN backfill_checks AS b ON b.check_id = cf.check_id
    ) AS f
    JOIN unnest(${languages}::text[], ${metricKeys}::text[]) AS k(language_key, metric_key)
      ON k.language_key = f.language_key
    WHERE f.copies = 1`.execute(db);

  // Files several reports name: merged here, a check at a time.
  const { rows } = await sql<StoredFile>`
    SELECT f.check_id::text AS check_id, f.language_key, f.path, f.lines_total, f.lines_covered,
      f.branches_total, f.branches_covered, f.conditions_total, f.conditions_covered, f.covered_lines,
      f.uncovered_lines, f.branch_lines, f.branch_totals, f.branch_taken
    FROM (
      SELECT cf.*, count(*) OVER (PARTITION BY cf.check_id, cf.language_key, cf.path) AS copies
      FROM coverage_files AS cf JOIN backfill_checks AS b ON b.check_id = cf.check_id
    ) AS f
    WHERE f.copies > 1
    ORDER BY f.check_id, f.language_key, f.path, f.id`.execute(db);
  const groups = new Map<string, StoredFile[]>();
  for (const row of rows) {
    if (METRIC_KEY_OF_LANGUAGE[row.language_key] === undefined) continue;
    const id = `${row.check_id}\u0000${row.language_key}\u0000${row.path}`;
    groups.set(id, [...(groups.get(id) ?? []), row]);
  }
  for (const group of groups.values()) {
    const file = mergeFiles(group);
    await sql`
      INSERT INTO coverage_check_files (check_id, metric_key, path, reports, lines_total, lines_covered,
        branches_total, branches_covered, conditions_total, conditions_covered, uncovered_lines)
      VALUES (${file.check_id}, ${METRIC_KEY_OF_LANGUAGE[file.language_key]}, ${file.path}, ${group.length},
        ${file.lines_total}, ${file.lines_covered}, ${file.branches_total}, ${file.branches_covered},
        ${file.conditions_total}, ${file.conditions_covered}, ${file.uncovered_lines}::integer[])`.execute(
      db,
    );
  }
  await sql`DROP TABLE backfill_checks`.execute(db);
}

/** The rows {@link up} wrote are what a recomputation writes; nothing to undo. */
export async function down(_db: Kysely<unknown>): Promise<void> {}

function mergeFiles(rows: readonly StoredFile[]): StoredFile {
  const covered = new Set(rows.flatMap((r) => r.covered_lines));
  const uncovered = new Set(rows.flatMap((r) => r.uncovered_lines).filter((line) => !covered.has(line)));
  const branchesByLine = new Map<number, { total: number; covered: number }>();
  for (const row of rows) {
    row.branch_lines.forEach((line, i) => {
      const seen = branchesByLine.get(line);
      branchesByLine.set(line, {
        total: Math.max(seen?.total ?? 0, row.branch_totals[i] ?? 0),
        covered: Math.max(seen?.covered ?? 0, row.branch_taken[i] ?? 0),
      });
    });
  }
  const lineDetail = rows.every((r) => r.lines_total === r.covered_lines.length + r.uncovered_lines.length);
  const branchDetail = rows.every((r) => r.branches_total === r.branch_totals.reduce((sum, n) => sum + n, 0));
  const largest = (pick: (r: StoredFile) => number) => Math.max(...rows.map(pick));
  const lines = lineDetail
    ? { covered: covered.size, total: covered.size + uncovered.size }
    : { covered: largest((r) => r.lines_covered), total: largest((r) => r.lines_total) };
  const branchCounts = [...branchesByLine.values()];
  const branches = branchDetail
    ? {
        covered: branchCounts.reduce((sum, b) => sum + b.covered, 0),
        total: branchCounts.reduce((sum, b) => sum + b.total, 0),
      }
    : { covered: largest((r) => r.branches_covered), total: largest((r) => r.branches_total) };
  const hasConditions = rows.some((r) => r.conditions_total !== null);
  const first = rows[0]!;
  return {
    ...first,
    lines_total: lines.total,
    lines_covered: lines.covered,
    branches_total: branches.total,
    branches_covered: branches.covered,
    conditions_total: hasConditions ? branches.total : null,
    conditions_covered: hasConditions ? branches.covered : null,
    covered_lines: [...covered].sort((a, b) => a - b),
    uncovered_lines: [...uncovered].sort((a, b) => a - b),
  };
}
