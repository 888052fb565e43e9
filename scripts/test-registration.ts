/**
 * Which test files registered no test. node:test reports a file that calls `test()` nowhere as
 * a passing test named after the file itself, so a file whose tests were lost (an import that
 * came to nothing, a forgotten call) would pass the run silently. `npm test` fails on such a file.
 */
import fs from "node:fs";
import path from "node:path";

/** One finished test as the runner's reporter stream describes it. */
export interface FinishedTest {
  /** The test file, absolute or relative to the working directory; unset for the runner's own entries. */
  file: string | undefined;
  name: string;
  /** True for a `describe` block: a suite is not a test, and an empty one registers nothing. */
  isSuite: boolean;
  /** 0 for a test or suite at the top of its file. */
  nesting?: number;
  /** How long it ran, in milliseconds. */
  durationMs?: number;
}

/** What the reporter wrote for one run: its finished tests, and its totals by name (`pass`, `fail`, ...). */
export interface RunReport {
  finished: FinishedTest[];
  totals: Map<string, number>;
}

/** Reads the reporter's lines (scripts/registered-tests-reporter.mjs). */
export function readRunReport(text: string): RunReport {
  const report: RunReport = { finished: [], totals: new Map() };
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const entry = JSON.parse(line) as FinishedTest | { total: string; count: number };
    if ("total" in entry) report.totals.set(entry.total, entry.count);
    else report.finished.push(entry);
  }
  return report;
}

/** One file's share of a run: the sum of its top-level tests' and suites' durations. */
export interface FileDuration {
  file: string;
  ms: number;
}

/**
 * The `limit` files whose top-level tests took longest, slowest first. Tests of one file run one
 * after another, so the sum is the file's time less its loading: where a run's minutes go.
 */
export function slowestFiles(finished: Iterable<FinishedTest>, limit: number): FileDuration[] {
  const totals = new Map<string, number>();
  for (const test of finished) {
    if (test.file === undefined || (test.nesting ?? 0) !== 0) continue;
    const file = path.resolve(test.file);
    totals.set(file, (totals.get(file) ?? 0) + (test.durationMs ?? 0));
  }
  return [...totals]
    .map(([file, ms]) => ({ file, ms }))
    .sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file))
    .slice(0, limit);
}

/**
 * The files of `files` for which no real test finished: neither passed nor failed (a file that
 * fails to load is already a failure; it is reported under its own name, and counted here as
 * having no test, which does not change the verdict). Paths are compared resolved.
 */
export function filesWithoutTests(files: readonly string[], finished: Iterable<FinishedTest>): string[] {
  const withTests = new Set<string>();
  for (const test of finished) {
    if (test.file === undefined || test.isSuite) continue;
    const file = path.resolve(test.file);
    // The runner's stand-in for a file that registered nothing carries the file's own path as its name.
    if (path.resolve(test.name) === file) continue;
    withTests.add(file);
  }
  return files.filter((file) => !withTests.has(path.resolve(file)));
}

/** The line `npm test` prints for files that registered no test. */
export function noTestsMessage(files: readonly string[]): string {
  return `${files.length} test file(s) registered no test, which counts as a failure (an import that came to nothing, or a forgotten test() call?):\n${files.map((file) => `  ${file}\n`).join("")}`;
}

/**
 * The files and folders named on the command line that are not there: a mistyped path would
 * otherwise be an empty set of tests, and the run green without it.
 */
export function missingTargets(targets: readonly string[]): string[] {
  return targets.filter((target) => !fs.existsSync(target));
}
