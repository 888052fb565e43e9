/**
 * `npm run compat`: compares the schema the code builds with the API contract in
 * test/fixtures/contract/ and prints what is covered, pending, deviating on purpose, and wrong.
 * Exits 1 when a problem is in neither list of docs/compatibility.md (or a list entry is stale).
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import {
  assessCompatibility,
  type CompatProblem,
  readContractSchema,
  readFencedList,
} from "../src/graphql/compat.ts";
import { buildAssaySchema } from "../src/schema.ts";

const root = new URL("..", import.meta.url);
const contract = readContractSchema(fileURLToPath(new URL("test/fixtures/contract/", root)));
const doc = fs.readFileSync(new URL("docs/compatibility.md", root), "utf8");
const assessment = assessCompatibility(buildAssaySchema(), contract, {
  pending: readFencedList(doc, "compat-pending"),
  deviations: readFencedList(doc, "compat-deviations"),
});

const out: string[] = [];
function section(title: string, problems: readonly CompatProblem[]): void {
  out.push(`\n${title} (${problems.length})`);
  for (const { path, problem } of problems) out.push(`  ${path}: ${problem}`);
}

section("Problems: fix these, or list them in docs/compatibility.md", assessment.problems);
section("Known deviations", assessment.deviations);
section("Pending", assessment.pending);
if (assessment.staleEntries.length > 0) {
  out.push(
    `\nStale entries in docs/compatibility.md, matching no problem (${assessment.staleEntries.length})`,
  );
  for (const entry of assessment.staleEntries) out.push(`  ${entry}`);
}
const { covered, pendingPaths, total } = assessment;
const other = total - covered.length - pendingPaths.length;
out.push(
  `\nContract paths: ${covered.length} of ${total} covered, ${pendingPaths.length} pending${other > 0 ? `, ${other} failing or deviating` : ""}.`,
);
process.stdout.write(`${out.join("\n").trimStart()}\n`);
process.exit(assessment.problems.length > 0 || assessment.staleEntries.length > 0 ? 1 : 0);
