/**
 * Part of `npm run lint`: checks the module boundaries of `src/` (scripts/boundaries.ts) and
 * prints every problem with the imports that make it. Exits 1 when there is any.
 */
import path from "node:path";
import { checkBoundaries, formatProblems, readSourceTree } from "./boundaries.ts";

const started = performance.now();
const files = readSourceTree(path.resolve(import.meta.dirname, ".."));
const problems = checkBoundaries(files);
if (problems.length > 0) {
  process.stderr.write(
    `${formatProblems(problems)}\n\nModule boundaries: ${problems.length} problem(s); the rules are in docs/architecture.md "Module boundaries".\n`,
  );
  process.exit(1);
}
const took = Math.round(performance.now() - started);
process.stdout.write(`Module boundaries: ${files.size} files of src/ checked in ${took} ms, no problems.\n`);
