import type { CoverageCounts } from "../../formats/coverage/index.ts";
import type { CoverageTotalsRow, StoredCoverageFile } from "../../modules/coverage/coverage-report-store.ts";

/**
 * Coverage counts and how they add up: per file, per language and for the whole check, and the
 * rows of one file several reports name merged into one.
 */

/** Covered / total line, branch and condition counts; `conditions` null when the format has none. */
export interface CoverageTally {
  lines: CoverageCounts;
  branches: CoverageCounts;
  conditions: CoverageCounts | null;
}

/** A language's (or the whole check's) coverage: overall, and on changed lines when they are known. */
export interface CoverageSummary {
  overall: CoverageTally;
  /** Null when the run has no CHANGES artifact. */
  changed: CoverageTally | null;
}

/**
 * Each (language, path) once, or each path once whatever its languages (`across` "languages", for
 * the AGGREGATE, where a file reported under two language keys is still one file): rows of one
 * file from several artifacts merged by {@link mergeFiles}, with how many reports named it.
 */
export function mergedFiles(
  rows: readonly StoredCoverageFile[],
  across: "artifacts" | "languages" = "artifacts",
): Array<{ file: StoredCoverageFile; reports: number }> {
  const groups = new Map<string, StoredCoverageFile[]>();
  for (const row of rows) {
    const id = across === "languages" ? row.path : `${row.language_key}\u0000${row.path}`;
    groups.set(id, [...(groups.get(id) ?? []), row]);
  }
  return [...groups.values()].map((group) => ({
    file: group.length === 1 ? group[0]! : mergeFiles(group),
    reports: group.length,
  }));
}

/**
 * One file as several reports saw it: a line is covered when any report ran it. A branch line's
 * outcomes are a union when every report told them apart the same way (see {@link mergeBranches});
 * otherwise the line keeps the most outcomes and the most taken of any report. A report that gave
 * totals without line detail (LCOV `LF`/`LH` only) cannot be merged line by line: then the file
 * keeps the larger covered and total counts.
 */
function mergeFiles(rows: readonly StoredCoverageFile[]): StoredCoverageFile {
  const covered = new Set(rows.flatMap((r) => r.covered_lines));
  const uncovered = new Set(rows.flatMap((r) => r.uncovered_lines).filter((line) => !covered.has(line)));
  const branchesByLine = mergeBranches(rows);
  const branchLines = [...branchesByLine.keys()].sort((a, b) => a - b);
  const entries = branchLines.flatMap((line) =>
    branchesByLine.get(line)!.map((entry) => ({ line, ...entry })),
  );
  const lineDetail = rows.every((r) => r.lines_total === r.covered_lines.length + r.uncovered_lines.length);
  const branchDetail = rows.every((r) => r.branches_total === r.branch_totals.reduce((sum, n) => sum + n, 0));
  const largest = (pick: (r: StoredCoverageFile) => number) => Math.max(...rows.map(pick));
  const lines = lineDetail
    ? { covered: covered.size, total: covered.size + uncovered.size }
    : { covered: largest((r) => r.lines_covered), total: largest((r) => r.lines_total) };
  const branches = branchDetail
    ? sumCounts(entries)
    : { covered: largest((r) => r.branches_covered), total: largest((r) => r.branches_total) };
  const hasConditions = rows.some((r) => r.conditions_total !== null);
  return {
    language_key: rows[0]!.language_key,
    path: rows[0]!.path,
    lines_total: lines.total,
    lines_covered: lines.covered,
    branches_total: branches.total,
    branches_covered: branches.covered,
    conditions_total: hasConditions ? branches.total : null,
    conditions_covered: hasConditions ? branches.covered : null,
    covered_lines: [...covered].sort((a, b) => a - b),
    uncovered_lines: [...uncovered].sort((a, b) => a - b),
    branch_lines: entries.map((entry) => entry.line),
    branch_totals: entries.map((entry) => entry.total),
    branch_taken: entries.map((entry) => entry.covered),
  };
}

/**
 * Each branch line's merged entries. A report that tells a line's outcomes apart (LCOV,
 * OpenClover) stored one entry per outcome, in its id order (`fileRowOf` in process.ts); when
 * every report with branches on the line did so, with as many outcomes, the outcomes merge one by
 * one: taken when any report took it, as `lcov -a` merges by id. Otherwise (Cobertura, JaCoCo and
 * Istanbul's Clover count a line's outcomes without saying which was taken; reports that disagree
 * on how many there are) the line keeps the most outcomes and the most taken of any report, the
 * most that is known to have run: ReportGenerator keeps a Cobertura line's best report alike.
 */
function mergeBranches(rows: readonly StoredCoverageFile[]): Map<number, CoverageCounts[]> {
  const perLine = new Map<number, CoverageCounts[][]>();
  for (const row of rows) {
    const own = new Map<number, CoverageCounts[]>();
    row.branch_lines.forEach((line, i) => {
      own.set(line, [
        ...(own.get(line) ?? []),
        { total: row.branch_totals[i] ?? 0, covered: row.branch_taken[i] ?? 0 },
      ]);
    });
    for (const [line, entries] of own) perLine.set(line, [...(perLine.get(line) ?? []), entries]);
  }
  const merged = new Map<number, CoverageCounts[]>();
  for (const [line, reports] of perLine) {
    const count = reports[0]!.length;
    const outcomeByOutcome = reports.every(
      (entries) => entries.length === count && entries.every((e) => e.total === 1),
    );
    merged.set(
      line,
      outcomeByOutcome
        ? reports[0]!.map((_, i) => ({
            total: 1,
            covered: reports.some((entries) => entries[i]!.covered > 0) ? 1 : 0,
          }))
        : [
            {
              total: Math.max(...reports.map((entries) => sumCounts(entries).total)),
              covered: Math.max(...reports.map((entries) => sumCounts(entries).covered)),
            },
          ],
    );
  }
  return merged;
}

export function tallyOfRow(row: CoverageTotalsRow): CoverageTally {
  return {
    lines: { covered: row.lines_covered, total: row.lines_total },
    branches: { covered: row.branches_covered, total: row.branches_total },
    conditions:
      row.conditions_total === null
        ? null
        : { covered: row.conditions_covered ?? 0, total: row.conditions_total },
  };
}

export function emptyCounts(): CoverageCounts {
  return { covered: 0, total: 0 };
}

export function emptyTally(withConditions = false): CoverageTally {
  return { lines: emptyCounts(), branches: emptyCounts(), conditions: withConditions ? emptyCounts() : null };
}

function sumCounts(parts: readonly CoverageCounts[]): CoverageCounts {
  return parts.reduce((sum, c) => ({ covered: sum.covered + c.covered, total: sum.total + c.total }), {
    covered: 0,
    total: 0,
  });
}

/** Adds tallies up; conditions stay null unless some part has them. */
export function sumTallies(parts: readonly CoverageTally[]): CoverageTally {
  const withConditions = parts.filter((p) => p.conditions !== null).map((p) => p.conditions!);
  return {
    lines: sumCounts(parts.map((p) => p.lines)),
    branches: sumCounts(parts.map((p) => p.branches)),
    conditions: withConditions.length === 0 ? null : sumCounts(withConditions),
  };
}

/** `whole` without `part` (a part of it); conditions stay null unless `whole` has them. */
export function subtractTally(whole: CoverageTally, part: CoverageTally): CoverageTally {
  const minus = (a: CoverageCounts, b: CoverageCounts | null): CoverageCounts => ({
    covered: a.covered - (b?.covered ?? 0),
    total: a.total - (b?.total ?? 0),
  });
  return {
    lines: minus(whole.lines, part.lines),
    branches: minus(whole.branches, part.branches),
    conditions: whole.conditions === null ? null : minus(whole.conditions, part.conditions),
  };
}
