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
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { dataOf, gql, type TestServer } from "./helpers/server.ts";
import { startUploaderScene, uploadProcessed } from "./helpers/uploads.ts";

/**
 * A report whose tool could not analyze some files is judged on the rest (docs/ingestion.md
 * "Status"), with GCC's whole-build output on versions of the c-gcc project, made by
 * scripts/make-fixtures.sh (`gcc` and `gcc-history`): `base.json`, where every file compiles;
 * the gcc fixture's `gcc.json`, where src/legacy.c does not compile and src/discount.c is gone;
 * `fixed.json`, where src/legacy.c compiles again with one of its two warnings fixed;
 * `rounding.json`, where src/receipt.c uses its label after freeing it, and the same sources
 * built with -DPRICING_ROUNDING (`rounding-broken.json`), where src/pricing.h does not compile;
 * `shard-plain.json` and `shard-rounding.json`, the two builds of a commit that fixed receipt.c.
 * The figures come from the tool's own text output (`gcc-history.summary.json`, `gcc.summary.json`).
 * And ESLint's SARIF over the js-shards project (`shards`, test/fixtures/shards/): `base.sarif`,
 * where src/badge.jsx has findings, and three lints of the commit that fixed them: the app's
 * configuration (`app.sarif`, which lists badge.jsx and finds nothing in it), the server's, which
 * cannot parse it (`server.sarif`), and the server's over files named one by one, which ignores
 * it (`server-changed.sarif`); the figures from ESLint's JSON formatter (`*.summary.json`).
 */

type Build = "base" | "fixed" | "rounding" | "rounding-broken" | "shard-plain" | "shard-rounding";
interface History {
  builds: Record<
    Build,
    { byFile: Record<string, { findings: number; notCompiled: number }>; includedFrom: string[] }
  >;
}
const HISTORY = path.join(fixtureDir("sarif"), "gcc-history");
const history = (
  JSON.parse(fs.readFileSync(path.join(HISTORY, "gcc-history.summary.json"), "utf8")) as { figures: History }
).figures.builds;
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

const built = (build: Build) => fs.readFileSync(path.join(HISTORY, `${build}.json`), "utf8");
const report = {
  base: built("base"),
  failing: fs.readFileSync(path.join(fixtureDir("sarif"), failing.file), "utf8"),
  fixed: built("fixed"),
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
function uploadGcc(
  repository: RepositoryRow,
  data: string,
  commit = aCommit(),
): Promise<{ runStatus: string; check: CheckAnswer; warnings: string[] }> {
  return uploadReport(repository, { analyzer: "gcc", workDir: WORK_DIR, data }, commit);
}

/** Uploads a report (analyzer, workDir, data) for `commit` on main, as {@link uploadGcc}. */
async function uploadReport(
  repository: RepositoryRow,
  report: { analyzer: string; workDir: string; data: string },
  commit: string,
): Promise<{ runStatus: string; check: CheckAnswer; warnings: string[] }> {
  const { artifactId } = await uploadProcessed(server, token, {
    repositoryId: encodeGlobalId("Repository", repository.key),
    commitOid: commit,
    branch: "main",
    analyzerType: "community",
    ...report,
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

/** How many of a check's findings are carried from its base (kept EXISTING where the tool did not look). */
async function carriedIn(check: CheckAnswer): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM occurrences AS o JOIN checks AS c ON c.id = o.check_id
    WHERE c.key = ${checkKeyOf(check)} AND o.is_carried`.execute(server.db);
  return rows[0]!.n;
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
      Object.entries(history.base.byFile).map(([f, v]) => [f, v.findings]),
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
    const compiledInBoth = sumOf(history.base.byFile, ["src/legacy.c", "src/discount.c"]);
    assert.equal(
      failingFindings,
      compiledInBoth + 1,
      "GCC's own count: the other files' findings and one in legacy.c",
    );
    assert.deepEqual(broken.check.summary, {
      occurrencesIntroduced: 1,
      occurrencesResolved: history.base.byFile["src/discount.c"]!.findings,
    });
    assert.equal(broken.check.status, "FAILURE");
    assert.equal(broken.runStatus, "FAILURE");
    assert.deepEqual(await findingsGateFailures(server.db, repository.id, await checkRowId(broken.check)), [
      "1 introduced BUG_RISK occurrence can fail the check",
    ]);
    assert.deepEqual(await statesIn(checkKeyOf(broken.check), "src/legacy.c"), {
      EXISTING: history.base.byFile["src/legacy.c"]!.findings,
      INTRODUCED: 1,
    });
    // The repository's findings: the base's in legacy.c, GCC's elsewhere, and the new one.
    const { "src/discount.c": _gone, ...kept } = baseFindings;
    assert.deepEqual(await currentFindingsByFile(repository), {
      ...kept,
      "src/legacy.c": history.base.byFile["src/legacy.c"]!.findings + 1,
    });

    // legacy.c compiles again, with one of its two warnings fixed: compared with the check that
    // kept them, the fixed one and the missing return are resolved, the other is still there.
    const fixed = await uploadGcc(repository, report.fixed);
    assert.deepEqual(fixed.warnings.filter(aboutUnanalyzedCode), []);
    assert.deepEqual(fixed.check.summary, {
      occurrencesIntroduced: 0,
      occurrencesResolved:
        history.base.byFile["src/legacy.c"]!.findings - history.fixed.byFile["src/legacy.c"]!.findings + 1,
    });
    assert.equal(fixed.check.status, "SUCCESS");
    assert.deepEqual(await statesIn(checkKeyOf(fixed.check), "src/legacy.c"), {
      EXISTING: history.fixed.byFile["src/legacy.c"]!.findings,
      RESOLVED: 2,
    });
    assert.deepEqual(
      await currentFindingsByFile(repository),
      Object.fromEntries(Object.entries(history.fixed.byFile).map(([f, v]) => [f, v.findings])),
    );
  });

  test("GCC's error in a header leaves the file being compiled unanalyzed too, when its list names that file: the base's findings there that the failed build no longer gives stay EXISTING", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    const receipt = (build: Build) => history[build].byFile["src/receipt.c"]!.findings;
    const base = await uploadGcc(repository, built("rounding"));
    // GCC 12 writes the note of its use-after-free warning ("call to ‘free’ here") as a list item
    // of its own, which is read as a finding: the count is the base check's, not the text's.
    const inReceipt = (await statesIn(checkKeyOf(base.check), "src/receipt.c")).INTRODUCED!;
    assert.ok(inReceipt >= receipt("rounding"));

    // Built with -DPRICING_ROUNDING, pricing.h does not compile: GCC's text says the two
    // compilations that stop there are receipt.c's and invoice.c's. receipt.c's use of its label
    // after freeing it is a warning GCC gives only when the file compiles.
    assert.deepEqual(history["rounding-broken"].includedFrom, ["src/invoice.c", "src/receipt.c"]);
    assert.equal(receipt("rounding-broken"), receipt("rounding") - 1);
    const broken = await uploadGcc(repository, built("rounding-broken"));
    // receipt.c's list names it (an unused parameter, found before the compilation stopped);
    // invoice.c's names only the header, so nothing in it says which file was being compiled.
    assert.ok(
      broken.warnings.includes(
        "Not analyzed by the tool: src/pricing.h, src/receipt.c. The base's findings there are kept as EXISTING (not resolved), and the check is judged on the rest of the report.",
      ),
      broken.warnings.join("\n"),
    );
    assert.deepEqual(await statesIn(checkKeyOf(broken.check), "src/receipt.c"), { EXISTING: inReceipt });
    assert.equal(broken.check.summary.occurrencesResolved, 0);
    assert.equal((await currentFindingsByFile(repository))["src/receipt.c"], inReceipt);
  });

  for (const order of [
    ["shard-rounding", "shard-plain"],
    ["shard-plain", "shard-rounding"],
  ] as const) {
    test(`in a check of two shards (${order.join(" then ")}), a file one shard could not compile is judged by the shard that compiled it`, async () => {
      const repository = await aRepository(server.db, account, { defaultBranch: "main" });
      const base = await uploadGcc(repository, built("rounding"));
      const inReceipt = (await statesIn(checkKeyOf(base.check), "src/receipt.c")).INTRODUCED!;
      const stillThere = history["shard-plain"].byFile["src/receipt.c"]!.findings;

      // One commit, built twice: with -DPRICING_ROUNDING receipt.c does not compile; without, it
      // does, and its use after free is fixed.
      const commit = aCommit();
      const answers = [];
      for (const build of order)
        answers.push({ build, ...(await uploadGcc(repository, built(build), commit)) });
      const rounding = answers.find((answer) => answer.build === "shard-rounding")!;
      assert.ok(
        rounding.warnings.includes(
          "Not analyzed by the tool: src/pricing.h, src/receipt.c. The base's findings there are kept as EXISTING (not resolved), and the check is judged on the rest of the report.",
        ),
        rounding.warnings.join("\n"),
      );
      const check = answers[1]!.check;
      assert.equal(answers[0]!.check.id, check.id, "both shards are one check");
      // The use after free (and its note) is fixed; the unused parameter is still there.
      assert.deepEqual(await statesIn(checkKeyOf(check), "src/receipt.c"), {
        EXISTING: stillThere,
        RESOLVED: inReceipt - stillThere,
      });
      assert.equal(check.summary.occurrencesResolved, inReceipt - stillThere);
      assert.equal(
        await carriedIn(check),
        0,
        "the plain shard analyzed pricing.h and receipt.c: nothing is carried",
      );
    });
  }
});

/** The summary a fixture script wrote beside a recorded report (`<name>.summary.json` in `folder`). */
function summaryOf<T extends { workDir: string }>(folder: string, name: string): T {
  return JSON.parse(fs.readFileSync(path.join(folder, `${name}.summary.json`), "utf8")) as T;
}

/**
 * Uploads the recorded report `<name>.<extension>` of `folder` (its SARIF, unless told) under
 * `analyzer` for `commit` on main, from the directory its summary says the tool ran in.
 */
function uploadRecorded(
  repository: RepositoryRow,
  analyzer: string,
  folder: string,
  name: string,
  commit = aCommit(),
  extension = "sarif",
) {
  return uploadReport(
    repository,
    {
      analyzer,
      workDir: summaryOf(folder, name).workDir,
      data: fs.readFileSync(path.join(folder, `${name}.${extension}`), "utf8"),
    },
    commit,
  );
}

type Shard = "base" | "app" | "server" | "server-changed";
interface ShardSummary {
  workDir: string;
  figures: {
    files: Array<{
      path: string;
      findings: number;
      others: Array<{ message: string; fatal: boolean; severity: number }>;
    }>;
  };
}
const SHARDS = path.join(import.meta.dirname, "fixtures", "shards");
const shardSummary = (shard: Shard) => summaryOf<ShardSummary>(SHARDS, shard);
const BADGE = "src/badge.jsx";
/** What ESLint's JSON formatter said of src/badge.jsx in a lint. */
const badgeIn = (shard: Shard) => shardSummary(shard).figures.files.find((file) => file.path === BADGE)!;

const UNPARSED_BADGE = `Not analyzed by the tool: ${BADGE}. The base's findings there are kept as EXISTING (not resolved), and the check is judged on the rest of the report.`;

// The SARIF formatter's report of each lint, and ESLint's own JSON output of the same lint.
for (const [extension, reports] of [
  ["sarif", "SARIF"],
  ["json", "JSON output"],
] as const) {
  /** Uploads ESLint's report of a lint of js-shards for `commit` on main. */
  const uploadShard = (repository: RepositoryRow, shard: Shard, commit = aCommit()) =>
    uploadRecorded(repository, "eslint", SHARDS, shard, commit, extension);

  /**
   * Uploads the lints in `order` for one new commit; checks the server's lint warned that it
   * could not parse badge.jsx and both went to one check, and answers that check as the last left it.
   */
  const uploadLints = async (repository: RepositoryRow, order: readonly Shard[]) => {
    const commit = aCommit();
    const answers = [];
    for (const shard of order) answers.push({ shard, ...(await uploadShard(repository, shard, commit)) });
    const unparsed = answers.find((answer) => answer.shard === "server")!;
    assert.ok(unparsed.warnings.includes(UNPARSED_BADGE), unparsed.warnings.join("\n"));
    const check = answers[1]!.check;
    assert.equal(answers[0]!.check.id, check.id, "both lints are one check");
    return check;
  };

  describe(`ESLint's shards (its ${reports}), whose reports list the files they were given`, () => {
    for (const order of [
      ["server", "app"],
      ["app", "server"],
    ] as const) {
      test(`in a check of two lints (${order.join(" then ")}), a file one could not parse and the other linted and found nothing in has its base findings resolved`, async () => {
        const repository = await aRepository(server.db, account, { defaultBranch: "main" });
        const base = await uploadShard(repository, "base");
        const inBadge = badgeIn("base").findings;
        assert.ok(inBadge > 0);
        assert.deepEqual(await statesIn(checkKeyOf(base.check), BADGE), { INTRODUCED: inBadge });

        // The commit fixed them: the app's lint finds nothing in badge.jsx, the server's cannot parse it.
        assert.deepEqual(badgeIn("app"), { path: BADGE, findings: 0, others: [] });
        assert.deepEqual(
          badgeIn("server").others.map((other) => other.fatal),
          [true],
        );
        const check = await uploadLints(repository, order);
        assert.deepEqual(await statesIn(checkKeyOf(check), BADGE), { RESOLVED: inBadge });
        assert.equal(check.summary.occurrencesResolved, inBadge);
        assert.equal(await carriedIn(check), 0, "the app's lint analyzed badge.jsx: nothing is carried");
        assert.equal(check.status, "SUCCESS", "judged by its gate: cart.js's findings are not new");
        assert.equal((await currentFindingsByFile(repository))[BADGE], undefined);
      });
    }

    for (const order of [
      ["server", "server-changed"],
      ["server-changed", "server"],
    ] as const) {
      test(`a file a lint was given and ignored (listed, with a warning) is not one it analyzed: where the other lint could not parse it, the base's findings stay EXISTING (${order.join(" then ")})`, async () => {
        const repository = await aRepository(server.db, account, { defaultBranch: "main" });
        const base = await uploadShard(repository, "base");
        const inBadge = (await statesIn(checkKeyOf(base.check), BADGE)).INTRODUCED!;

        assert.deepEqual(
          badgeIn("server-changed").others.map(({ fatal, severity, message }) => ({
            fatal,
            severity,
            ignored: message.startsWith("File ignored"),
          })),
          [{ fatal: false, severity: 1, ignored: true }],
        );
        const check = await uploadLints(repository, order);
        assert.deepEqual(await statesIn(checkKeyOf(check), BADGE), { EXISTING: inBadge });
        assert.equal(check.summary.occurrencesResolved, 0);
        assert.equal(await carriedIn(check), inBadge);
        assert.equal((await currentFindingsByFile(repository))[BADGE], inBadge);
        await assertIssueCountsMatchFindings(server.db, `the lints ${order.join(" then ")}`);
      });
    }
  });
}

interface OxlintSummary {
  workDir: string;
  figures: {
    errors: number;
    warnings: number;
    findings: Array<{ rule: string; path: string; line: number }>;
    ownErrors: Array<{ message: string; path: string; line: number }>;
  };
}
const OXLINT = path.join(path.dirname(SHARDS), "oxlint-parse");
const oxlintSummary = (version: "base" | "broken") => summaryOf<OxlintSummary>(OXLINT, version);

/** Uploads oxlint's report of a version of oxlint-parse for `commit` on main. */
const uploadOxlint = (repository: RepositoryRow, version: "base" | "broken", commit = aCommit()) =>
  uploadRecorded(repository, "oxlint", OXLINT, version, commit);

describe("oxlint's error about a file it could not parse, written as a result of its rule OXL0001", () => {
  test("is the tool's own error, not a finding: the file's base findings stay EXISTING while the other file's fix is counted", async () => {
    const base = oxlintSummary("base").figures;
    const broken = oxlintSummary("broken").figures;
    const BADGE_JS = "src/badge.js";
    const inBadge = base.findings.filter((finding) => finding.path === BADGE_JS).length;
    const inCart = base.findings.filter((finding) => finding.path === "src/cart.js").length;
    assert.ok(inBadge > 0 && inCart > 0);
    // oxlint's own text output: the edit half-way through does not parse, and the fix of cart.js.
    assert.deepEqual(broken.findings, []);
    assert.deepEqual(
      broken.ownErrors.map((error) => error.path),
      [BADGE_JS],
    );

    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    const first = await uploadOxlint(repository, "base");
    assert.equal(first.check.summary.occurrencesIntroduced, base.warnings + base.errors);

    const { check, warnings } = await uploadOxlint(repository, "broken");
    const [ownError] = broken.ownErrors;
    assert.ok(
      warnings.some(
        (warning) =>
          warning.startsWith("The tool reported 1 error of its own, which is not a finding") &&
          warning.includes(`${ownError!.message} (OXL0001)`) &&
          warning.includes(`${BADGE_JS}:${ownError!.line}`),
      ),
      warnings.join("\n"),
    );
    assert.ok(
      warnings.includes(
        `Not analyzed by the tool: ${BADGE_JS}. The base's findings there are kept as EXISTING (not resolved), and the check is judged on the rest of the report.`,
      ),
      warnings.join("\n"),
    );
    assert.deepEqual(await statesIn(checkKeyOf(check), BADGE_JS), { EXISTING: inBadge });
    assert.deepEqual(await statesIn(checkKeyOf(check), "src/cart.js"), { RESOLVED: inCart });
    assert.equal(check.summary.occurrencesIntroduced, 0, "the parse error is not a new finding");
    assert.equal(check.summary.occurrencesResolved, inCart);
    assert.equal(await carriedIn(check), inBadge);
    assert.equal(check.status, "SUCCESS");
    assert.deepEqual(await currentFindingsByFile(repository), { [BADGE_JS]: inBadge });
  });
});
