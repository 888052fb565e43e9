import type { MetricKey } from "../../db/types.ts";
import { globMatches, TEST_GLOBS } from "./findings.ts";
import type { CoverageCounts, PlannedCoverageFile } from "./plan-types.ts";
import type { Random } from "./random.ts";
import { type SourceFile, sourceFiles } from "./vocabulary.ts";

/**
 * The files of the demo's coverage checks: each check's planned counts of one language (lines,
 * branch and condition outcomes, overall and on the changed lines) split over that language's
 * source files, so that the files add up exactly to the counts and therefore to the metric values
 * computed from them, as a real report's files do (docs/ingestion-coverage.md "Per-file coverage").
 * Each file keeps its share of the code, how well tested it is and how branchy it is from run to
 * run, so its figures drift as the totals drift.
 */

/** A file of one language as every coverage check of the repository counts it. */
export interface CoverageSourceFile {
  path: string;
  /** Its length in lines, which weighs its share of the language's executable lines. */
  lines: number;
  /** How much of it the tests miss, relative to the other files. */
  miss: number;
  /** How many branch outcomes it has per line, relative to the other files. */
  branchiness: number;
}

/** The counts of one language in one check, as coverage-plan.ts plans them. */
export interface LanguageCounts {
  key: MetricKey;
  lines: CoverageCounts;
  branches: CoverageCounts;
  /** The branch outcomes again, as every format that has conditions counts them; null without. */
  conditions: CoverageCounts | null;
}

const sumOf = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/**
 * Splits `total` into integers `x[i]` with `low[i] <= x[i] <= high[i]`, as nearly proportional to
 * `weights` as the bounds allow: items whose share would pass their bound are filled to it first,
 * the rest is shared by weight, largest remainders (then the earlier index) taking the units left.
 * Items of weight 0 get more than their lower bound only when the others are full, in proportion
 * to their room. Null when no split exists.
 */
export function apportion(
  total: number,
  weights: readonly number[],
  high: readonly number[],
  low: readonly number[] = weights.map(() => 0),
): number[] | null {
  const x = [...low];
  let rest = total - sumOf(x);
  if (rest < 0 || rest > sumOf(high) - sumOf(x)) return null;
  let active = x.map((_, i) => i).filter((i) => x[i]! < high[i]!);
  let byRoom = false;
  while (rest > 0) {
    const weightOf = (i: number) => (byRoom ? high[i]! - x[i]! : weights[i]!);
    const sum = active.reduce((s, i) => s + weightOf(i), 0);
    if (sum === 0) {
      byRoom = true;
      continue;
    }
    const full = active.filter((i) => (rest * weightOf(i)) / sum >= high[i]! - x[i]!);
    if (full.length > 0) {
      for (const i of full) {
        rest -= high[i]! - x[i]!;
        x[i] = high[i]!;
      }
      active = active.filter((i) => x[i]! < high[i]!);
      continue;
    }
    const share = rest;
    const remainders: Array<[number, number]> = [];
    for (const i of active) {
      const exact = (share * weightOf(i)) / sum;
      const given = Math.floor(exact);
      x[i]! += given;
      rest -= given;
      if (weightOf(i) > 0) remainders.push([exact - given, i]);
    }
    remainders.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    for (const [, i] of remainders) {
      if (rest === 0) break;
      x[i]! += 1;
      rest -= 1;
    }
    active = active.filter((i) => x[i]! < high[i]!);
  }
  return x;
}

/** Executable lines per file the demo aims at: fewer, longer files keep the large seed's rows down. */
const LINES_PER_FILE = 300;

/**
 * The files of `analyzer`'s language that coverage reports count, sorted by path: the source
 * files its findings name (tests left out, as coverage tools leave them out), and as many more of
 * the same shapes as `lines` executable lines need, as far as the language's shapes go.
 */
export function coverageSourceFiles(
  rand: Random,
  analyzer: string,
  project: string,
  named: readonly SourceFile[],
  lines: number,
): CoverageSourceFile[] {
  const testGlob = TEST_GLOBS[analyzer];
  const isSource = (file: SourceFile) => testGlob === undefined || !globMatches(testGlob, file.path);
  const chosen = named.filter(isSource);
  const need = Math.ceil(lines / LINES_PER_FILE) - chosen.length;
  if (need > 0) {
    const taken = new Set(chosen.map((file) => file.path));
    const more = sourceFiles(rand, analyzer, project, 2 * (need + chosen.length)).filter(
      (file) => isSource(file) && !taken.has(file.path),
    );
    chosen.push(...rand.sample(more, need));
  }
  return chosen
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((file) => ({
      path: file.path,
      lines: file.lines,
      miss: rand.chance(0.15) ? 0.05 : rand.between(0.2, 1.8),
      branchiness: rand.chance(0.1) ? 0 : rand.between(0.4, 1.6),
    }));
}

const times = (a: readonly number[], b: readonly number[]) => a.map((value, i) => value * b[i]!);

/** Overall figures of every file: [total, covered] of one measure, split by weight and by miss. */
function splitOverall(
  counts: CoverageCounts,
  weights: readonly number[],
  miss: readonly number[],
): { total: number[]; uncovered: number[] } {
  const unbounded = weights.map(() => counts[0]);
  const total = apportion(counts[0], weights, unbounded)!;
  const uncovered = apportion(counts[0] - counts[1], times(total, miss), total);
  if (uncovered === null) throw new Error(`cannot leave ${counts[0] - counts[1]} of ${counts[0]} uncovered`);
  return { total, uncovered };
}

/** One measure's figures on the changed lines of the files in `changed`; null when they do not fit. */
function splitChanged(
  counts: CoverageCounts,
  overall: { total: number[]; uncovered: number[] },
  changed: readonly boolean[],
  jitter: readonly number[],
): { fresh: number[]; freshCovered: number[] } | null {
  const uncoveredRoom = overall.uncovered.map((u, i) => (changed[i] ? u : 0));
  const coveredRoom = overall.total.map((t, i) => (changed[i] ? t - overall.uncovered[i]! : 0));
  const freshUncovered = apportion(counts[2] - counts[3], times(uncoveredRoom, jitter), uncoveredRoom);
  const freshCovered = apportion(counts[3], times(coveredRoom, jitter), coveredRoom);
  if (freshUncovered === null || freshCovered === null) return null;
  return { fresh: freshUncovered.map((u, i) => u + freshCovered[i]!), freshCovered };
}

/**
 * The executable lines no test ran, ascending: a file of `total` executable lines spread over at
 * least `length` lines, `uncovered` of them in runs of consecutive executable lines (a function or
 * branch no test reaches), between runs of covered ones.
 */
export function uncoveredLinesOf(rand: Random, length: number, total: number, uncovered: number): number[] {
  const lines = new Array<number>(uncovered);
  if (uncovered === 0) return lines;
  // A file grown past its length keeps some lines that are not executable (blank, declarations).
  const span = Math.max(length, Math.ceil(total * 1.3));
  let covered = total - uncovered;
  let left = uncovered;
  let index = 0;
  let n = 0;
  while (left > 0) {
    // Covered lines before this run: about as many as are left per run still to come.
    const runs = Math.max(1, Math.min(left, Math.round(left / 8)));
    const gap = Math.min(covered, rand.int(0, Math.floor((2 * covered) / (runs + 1))));
    covered -= gap;
    index += gap;
    const size = left <= 2 ? left : Math.min(left, rand.int(1, Math.ceil((2 * left) / runs)));
    for (let j = 0; j < size; j++) lines[n++] = Math.floor(((index + j) * span) / total) + 1;
    index += size;
    left -= size;
  }
  return lines;
}

/**
 * The files of one language in one check: `counts` split over `files`, the run's changed lines
 * in a few of them, drawn from `rand`. Throws when the counts cannot be split (more changed lines
 * uncovered than uncovered lines, say).
 */
export function planCoverageFiles(
  rand: Random,
  files: readonly CoverageSourceFile[],
  counts: LanguageCounts,
): PlannedCoverageFile[] {
  if (files.length === 0) throw new Error(`there are no ${counts.key} files to split coverage over`);
  const miss = files.map((f) => f.miss);
  const lines = splitOverall(
    counts.lines,
    files.map((f) => f.lines),
    miss,
  );
  const branches = splitOverall(
    counts.branches,
    times(
      lines.total,
      files.map((f) => f.branchiness),
    ),
    miss,
  );

  // The run changed a few files; more of them when the change does not fit in those.
  const order = rand.sample(
    files.map((_, i) => i).filter((i) => lines.total[i]! > 0),
    files.length,
  );
  const jitter = files.map(() => rand.between(0.5, 1.5));
  let size = Math.min(order.length, rand.int(1, 3 + Math.floor(counts.lines[2] / 40)));
  for (;;) {
    const changed = files.map(() => false);
    for (const i of order.slice(0, size)) changed[i] = true;
    const freshLines = splitChanged(counts.lines, lines, changed, jitter);
    const touched = freshLines ? freshLines.fresh.map((n) => n > 0) : changed;
    const freshBranches = freshLines && splitChanged(counts.branches, branches, touched, jitter);
    if (freshLines && freshBranches) {
      return files.map((file, i) => {
        const total = lines.total[i]!;
        const uncovered = lines.uncovered[i]!;
        const measure = (
          overall: { total: number[]; uncovered: number[] },
          fresh: { fresh: number[]; freshCovered: number[] },
        ): CoverageCounts => [
          overall.total[i]!,
          overall.total[i]! - overall.uncovered[i]!,
          fresh.fresh[i]!,
          fresh.freshCovered[i]!,
        ];
        return {
          metricKey: counts.key,
          path: file.path,
          lines: measure(lines, freshLines),
          branches: measure(branches, freshBranches),
          // A format's condition outcomes are its branch outcomes (coverage-plan.ts).
          conditions: counts.conditions && measure(branches, freshBranches),
          uncoveredLines: uncoveredLinesOf(rand, file.lines, total, uncovered),
        };
      });
    }
    if (size >= order.length) {
      throw new Error(
        `the ${counts.key} coverage counts cannot be split over ${files.length} files: ${JSON.stringify(counts)}`,
      );
    }
    size = Math.min(order.length, size * 2);
  }
}
