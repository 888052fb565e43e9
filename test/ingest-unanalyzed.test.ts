import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { fixtureDir, toolFixture } from "../src/formats/fixtures.ts";
import { decodeGlobalId, encodeGlobalId } from "../src/graphql/global-id.ts";
import { findingsGateFailures } from "../src/ingestion/run-lifecycle.ts";
import { aRepository } from "./helpers/builders.ts";
import { dataOf, gql, type TestServer } from "./helpers/server.ts";
import { startUploaderScene, uploadProcessed } from "./helpers/uploads.ts";

/**
 * A report whose tool could not analyze some files is judged on the rest (docs/ingestion.md
 * "Status"), with GCC's whole-build output on three versions of the c-gcc project, made by
 * scripts/make-fixtures.sh (`gcc` and `gcc-history`): `base.json`, where every file compiles;
 * the gcc fixture's `gcc.json`, where src/legacy.c does not compile and src/discount.c is gone;
 * `fixed.json`, where src/legacy.c compiles again with one of its two warnings fixed. The
 * figures come from the tool's own text output (`gcc-history.summary.json`, `gcc.summary.json`).
 */

interface History {
  byFile: Record<"base" | "fixed", Record<string, { findings: number; notCompiled: number }>>;
}
const HISTORY = path.join(fixtureDir("sarif"), "gcc-history");
const history = (
  JSON.parse(fs.readFileSync(path.join(HISTORY, "gcc-history.summary.json"), "utf8")) as { figures: History }
).figures;
const failing = toolFixture("sarif", "gcc", "gcc.json");
const failingFigures = (
  JSON.parse(fs.readFileSync(path.join(fixtureDir("sarif"), failing.summary), "utf8")) as {
    figures: { warnings: number; errors: number; notCompiled: number };
  }
).figures;
const WORK_DIR = failing.workDir;

const sumOf = (byFile: Record<string, { findings: number }>, except: string[] = []) =>
  Object.entries(byFile)
    .filter(([file]) => !except.includes(file))
    .reduce((total, [, figures]) => total + figures.findings, 0);

const report = {
  base: fs.readFileSync(path.join(HISTORY, "base.json"), "utf8"),
  failing: fs.readFileSync(path.join(fixtureDir("sarif"), failing.file), "utf8"),
  fixed: fs.readFileSync(path.join(HISTORY, "fixed.json"), "utf8"),
};

let server: TestServer;
let account: AccountRow;
let token: string;
let commits = 0;

before(async () => {
  ({ server, account, token } = await startUploaderScene());
});
after(() => server?.stop());

function aCommit(): string {
  commits += 1;
  return `${commits.toString(16).padStart(8, "0")}${"ab12".repeat(8)}`;
}

interface CheckAnswer {
  id: string;
  status: string;
  summary: { occurrencesIntroduced: number; occurrencesResolved: number };
}

/** Uploads GCC's report for a new commit on main; answers its run's status, its check and its artifact's warnings. */
async function uploadGcc(
  repository: RepositoryRow,
  data: string,
): Promise<{ runStatus: string; check: CheckAnswer; warnings: string[] }> {
  const commit = aCommit();
  const { artifactId } = await uploadProcessed(server, token, {
    repositoryId: encodeGlobalId("Repository", repository.key),
    commitOid: commit,
    branch: "main",
    analyzer: "gcc",
    analyzerType: "community",
    workDir: WORK_DIR,
    data,
  });
  const answer = dataOf(
    await gql(
      server.endpoint,
      token,
      `query($id: ID!) { node(id: $id) { ... on Artifact { status warnings
        run { status checks { edges { node { id status summary { occurrencesIntroduced occurrencesResolved } } } } } } } }`,
      { id: artifactId },
    ),
  ).node as {
    status: string;
    warnings: string[];
    run: { status: string; checks: { edges: Array<{ node: CheckAnswer }> } };
  };
  assert.equal(answer.status, "PROCESSED");
  return { runStatus: answer.run.status, check: answer.run.checks.edges[0]!.node, warnings: answer.warnings };
}

/** The repository's current findings (`Repository.issueOccurrences`), counted per file. */
async function currentFindingsByFile(repository: RepositoryRow): Promise<Record<string, number>> {
  const answer = dataOf(
    await gql(
      server.endpoint,
      token,
      `query($id: ID!) { node(id: $id) { ... on Repository { issueOccurrences(first: 500) { totalCount edges { node { path } } } } } }`,
      { id: encodeGlobalId("Repository", repository.key) },
    ),
  ).node as { issueOccurrences: { edges: Array<{ node: { path: string } }> } };
  const byFile: Record<string, number> = {};
  for (const { node } of answer.issueOccurrences.edges) byFile[node.path] = (byFile[node.path] ?? 0) + 1;
  return byFile;
}

/** A check's findings in `file`, by state. */
async function statesIn(checkKey: string, file: string): Promise<Record<string, number>> {
  const { rows } = await sql<{ state: string; n: number }>`
    SELECT o.state, count(*)::int AS n FROM occurrences AS o JOIN checks AS c ON c.id = o.check_id
    WHERE c.key = ${checkKey} AND o.path = ${file} GROUP BY o.state ORDER BY o.state`.execute(server.db);
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}

/** True for the warnings that say what the tool did not analyze. */
function aboutUnanalyzedCode(warning: string): boolean {
  return /not analyze|of its own/.test(warning);
}

function checkKeyOf(check: CheckAnswer): string {
  return decodeGlobalId(check.id)!.key;
}

async function checkRowId(check: CheckAnswer): Promise<string> {
  const row = await server.db
    .selectFrom("checks")
    .select("id")
    .where("key", "=", checkKeyOf(check))
    .executeTakeFirstOrThrow();
  return String(row.id);
}

describe("a report whose tool could not analyze some files", () => {
  test("GCC's build with one file that does not compile keeps that file's findings EXISTING, counts the other files' fixes, and is judged by its gate; compiling again resolves what was fixed", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });

    // Every file compiles: the repository's findings are the tool's, file by file.
    const base = await uploadGcc(repository, report.base);
    assert.deepEqual(base.warnings.filter(aboutUnanalyzedCode), []);
    const baseFindings = Object.fromEntries(
      Object.entries(history.byFile.base).map(([f, v]) => [f, v.findings]),
    );
    assert.deepEqual(await currentFindingsByFile(repository), baseFindings);

    // src/legacy.c no longer compiles and src/discount.c is gone.
    const broken = await uploadGcc(repository, report.failing);
    assert.ok(
      broken.warnings.includes(
        "Not analyzed by the tool: src/legacy.c. The base's findings there are kept as EXISTING (not resolved), and the check is judged on the rest of the report.",
      ),
      broken.warnings.join("\n"),
    );
    // The warning GCC gave in legacy.c before it stopped (a missing return) is the one new
    // finding, and fails the check by the gate; discount.c's finding is fixed.
    const failingFindings = failingFigures.warnings + failingFigures.errors;
    const compiledInBoth = sumOf(history.byFile.base, ["src/legacy.c", "src/discount.c"]);
    assert.equal(
      failingFindings,
      compiledInBoth + 1,
      "GCC's own count: the other files' findings and one in legacy.c",
    );
    assert.deepEqual(broken.check.summary, {
      occurrencesIntroduced: 1,
      occurrencesResolved: history.byFile.base["src/discount.c"]!.findings,
    });
    assert.equal(broken.check.status, "FAILURE");
    assert.equal(broken.runStatus, "FAILURE");
    assert.deepEqual(await findingsGateFailures(server.db, repository.id, await checkRowId(broken.check)), [
      "1 introduced BUG_RISK occurrence can fail the check",
    ]);
    assert.deepEqual(await statesIn(checkKeyOf(broken.check), "src/legacy.c"), {
      EXISTING: history.byFile.base["src/legacy.c"]!.findings,
      INTRODUCED: 1,
    });
    // The repository's findings: the base's in legacy.c, GCC's elsewhere, and the new one.
    const { "src/discount.c": _gone, ...kept } = baseFindings;
    assert.deepEqual(await currentFindingsByFile(repository), {
      ...kept,
      "src/legacy.c": history.byFile.base["src/legacy.c"]!.findings + 1,
    });

    // legacy.c compiles again, with one of its two warnings fixed: compared with the check that
    // kept them, the fixed one and the missing return are resolved, the other is still there.
    const fixed = await uploadGcc(repository, report.fixed);
    assert.deepEqual(fixed.warnings.filter(aboutUnanalyzedCode), []);
    assert.deepEqual(fixed.check.summary, {
      occurrencesIntroduced: 0,
      occurrencesResolved:
        history.byFile.base["src/legacy.c"]!.findings - history.byFile.fixed["src/legacy.c"]!.findings + 1,
    });
    assert.equal(fixed.check.status, "SUCCESS");
    assert.deepEqual(await statesIn(checkKeyOf(fixed.check), "src/legacy.c"), {
      EXISTING: history.byFile.fixed["src/legacy.c"]!.findings,
      RESOLVED: 2,
    });
    assert.deepEqual(
      await currentFindingsByFile(repository),
      Object.fromEntries(Object.entries(history.byFile.fixed).map(([f, v]) => [f, v.findings])),
    );
  });
});
