/**
 * Which test files registered no test. node:test reports a file that calls `test()` nowhere as
 * a passing test named after the file itself, so a file whose tests were lost (an import that
 * came to nothing, a forgotten call) would pass the run silently. `npm test` fails on such a file.
 */
import path from "node:path";

/** One finished test as the runner's reporter stream describes it. */
export interface FinishedTest {
  /** The test file, absolute or relative to the working directory; unset for the runner's own entries. */
  file: string | undefined;
  name: string;
  /** True for a `describe` block: a suite is not a test, and an empty one registers nothing. */
  isSuite: boolean;
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
