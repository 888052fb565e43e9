import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Kysely } from "kysely";
import type {
  AccountRow,
  AnalysisRunRow,
  AnalyzerRow,
  CheckRow,
  Database,
  RepositoryRow,
} from "../src/db/types.ts";
import type { ArtifactKind, ArtifactRow } from "../src/db/types-ingestion.ts";
import { CoverageFormatError, detectCoverageFormat } from "../src/formats/coverage/index.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { ChangedLinesFormatError } from "../src/ingestion/changes.ts";
import { coverageGateFailures } from "../src/ingestion/coverage/metrics.ts";
import { processChanges, processCoverage } from "../src/ingestion/coverage/process.ts";
import { validateChanges, validateCoverage } from "../src/ingestion/coverage/validate.ts";
import { UploadError } from "../src/ingestion/errors.ts";
import { COVERAGE_FORMAT_NAMES, changesFormatName } from "../src/ingestion/intake-report.ts";
import { processInputOf } from "../src/ingestion/process-job.ts";
import type { ProcessResult } from "../src/ingestion/types.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { aCheck } from "./helpers/builders-checks.ts";
import { aMetricItem, aMetricSetting } from "./helpers/builders-metrics.ts";
import { startInstance, type TestInstance } from "./helpers/instance.ts";
import { gql } from "./helpers/server.ts";

const MAX_BYTES = 10 * 1024 * 1024;
const FIXTURES = path.resolve(import.meta.dirname, "fixtures/coverage");

function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), "utf8");
}

/**
 * A JavaScript LCOV report written in /ci/repo: src/cart.ts lines 1, 2, 5 covered and 3, 4, 6
 * not (branches 1/2 on line 2, 2/2 on line 5); src/other.ts line 1 covered, 2 not.
 * Lines 4/8 (LCV 50), branches 3/4 (BCV 75), composite 7/12 (CPCV 58.33).
 */
const CART_LCOV = `TN:
SF:/ci/repo/src/cart.ts
DA:1,1
DA:2,1
DA:3,0
DA:4,0
DA:5,1
DA:6,0
BRDA:2,0,0,1
BRDA:2,0,1,0
BRDA:5,1,0,1
BRDA:5,1,1,3
end_of_record
SF:/ci/repo/src/other.ts
DA:1,1
DA:2,0
end_of_record
`;

/**
 * Lines 2, 3, 4 and 6 of src/cart.ts changed, and README.md (not covered). On CART_LCOV: 4 new
 * lines, 1 covered (NLCV 25); branches on line 2: 1/2 (NBCV 50); composite 2/6 (NCPCV 33.33).
 */
const CART_DIFF = `diff --git a/src/cart.ts b/src/cart.ts
index 1111111..2222222 100644
--- a/src/cart.ts
+++ b/src/cart.ts
@@ -1,3 +1,6 @@
 line1
+line2
+line3
+line4
 line5
-old6
+line6
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -0,0 +1 @@
+hello
`;

/** CART_DIFF's lines as JSON ranges, plus lines 8-11 of the JaCoCo fixture's Cart.java. */
const CART_JSON = JSON.stringify({
  files: {
    "/ci/repo/src/cart.ts": [
      [6, 6],
      [2, 4],
    ],
    "/ci/repo/README.md": [[1, 1]],
    "/ci/repo/com/example/shop/Cart.java": [[8, 11]],
  },
});

interface MetricOut {
  shortcode: string;
  items: Array<{
    key: string;
    latestValue: number | null;
    latestValueDisplay: string | null;
    threshold: number | null;
    thresholdStatus: string | null;
  }>;
}

describe("coverage processing", () => {
  let server: TestInstance;
  let db: Kysely<Database>;
  let team: AccountRow;
  let token: string;
  let coverageAnalyzer: AnalyzerRow;

  before(async () => {
    server = await startInstance();
    db = server.db;
    const alice = await aUser(db);
    team = await anAccount(db, {}, [{ user: alice, role: "MEMBER" }]);
    token = await aToken(db, server.config.tokenPepper, alice);
    coverageAnalyzer = await db
      .selectFrom("analyzers")
      .selectAll()
      .where("shortcode", "=", "test-coverage")
      .executeTakeFirstOrThrow();
  });
  after(() => server.stop());

  /** A run of a fresh repository (or of `repository`) with a PENDING test-coverage check. */
  /**
   * Ends `runs` SUCCESS, as the run's lifecycle does once its checks are done: the tests process
   * artifacts without it, and a repository's metrics show only what analysed runs measured.
   */
  async function ended(...runs: AnalysisRunRow[]): Promise<void> {
    await db
      .updateTable("analysis_runs")
      .set({ status: "SUCCESS", finished_at: new Date() })
      .where(
        "id",
        "in",
        runs.map((run) => run.id),
      )
      .execute();
  }

  async function aCoverageRun(repository?: RepositoryRow) {
    const repo = repository ?? (await aRepository(db, team));
    const run = await aRun(db, repo, { status: "PENDING" });
    const check = await aCheck(db, run, coverageAnalyzer, { status: "PENDING", finishedAt: null });
    return { repo, run, check };
  }

  /** The format the intake records for a report of this kind, as it names it. */
  function formatOf(kind: ArtifactKind, text: string): string | null {
    if (kind === "CHANGES") return changesFormatName(text);
    const format = detectCoverageFormat(text);
    return format === null ? null : COVERAGE_FORMAT_NAMES[format];
  }

  /** Stores an artifact of `run` with `text` as its only chunk, QUEUED, with the format the intake records. */
  async function anArtifact(
    run: AnalysisRunRow,
    check: CheckRow | null,
    spec: { kind: ArtifactKind; text: string; languageKey?: string; workDir?: string },
  ): Promise<ArtifactRow> {
    const bytes = Buffer.from(spec.text, "utf8");
    const artifact = await db
      .insertInto("artifacts")
      .values({
        key: newRowKey(),
        repository_id: run.repository_id,
        run_id: run.id,
        check_id: check?.id ?? null,
        kind: spec.kind,
        analyzer: spec.kind === "CHANGES" ? "changes" : "test-coverage",
        analyzer_type: null,
        language_key: spec.languageKey ?? null,
        reporter: "test",
        reporter_version: null,
        work_dir: spec.workDir ?? null,
        compression: "NONE",
        stored_bytes: bytes.length,
        format: formatOf(spec.kind, spec.text),
        content_sha256: createHash("sha256").update(bytes).digest(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await db
      .insertInto("artifact_chunks")
      .values({ artifact_id: artifact.id, seq: 0, data: bytes })
      .execute();
    return artifact;
  }

  /** Processes an artifact in one transaction, as the job does, and marks it PROCESSED. */
  async function processArtifact(artifact: ArtifactRow): Promise<ProcessResult> {
    return db.transaction().execute(async (tx) => {
      const input = await processInputOf(tx, artifact, MAX_BYTES);
      const result =
        artifact.kind === "COVERAGE"
          ? await processCoverage(input, MAX_BYTES)
          : await processChanges(input, MAX_BYTES);
      await tx.updateTable("artifacts").set({ status: "PROCESSED" }).where("id", "=", artifact.id).execute();
      return result;
    });
  }

  /** Stores and processes a coverage artifact of the run's check. */
  async function coverage(
    run: AnalysisRunRow,
    check: CheckRow,
    languageKey: string,
    text: string,
    workDir?: string,
  ): Promise<ArtifactRow> {
    const artifact = await anArtifact(run, check, { kind: "COVERAGE", text, languageKey, workDir });
    await processArtifact(artifact);
    return artifact;
  }

  /** Stores and processes a CHANGES artifact of the run. */
  async function changes(run: AnalysisRunRow, text: string, workDir?: string): Promise<ArtifactRow> {
    const artifact = await anArtifact(run, null, { kind: "CHANGES", text, workDir });
    await processArtifact(artifact);
    return artifact;
  }

  /** The check's metric values as `SHORTCODE KEY value`, sorted. */
  async function valuesOf(check: CheckRow): Promise<string[]> {
    const rows = await db
      .selectFrom("metric_values as v")
      .innerJoin("repository_metric_items as i", "i.id", "v.item_id")
      .select(["i.metric_shortcode", "i.metric_key", "v.value"])
      .where("v.check_id", "=", check.id)
      .execute();
    return rows.map((r) => `${r.metric_shortcode} ${r.metric_key} ${r.value}`).sort();
  }

  async function reportOf(check: CheckRow) {
    const { check_id: _id, ...counts } = await db
      .selectFrom("coverage_reports")
      .selectAll()
      .where("check_id", "=", check.id)
      .executeTakeFirstOrThrow();
    return counts;
  }

  async function filesOf(artifact: ArtifactRow) {
    const rows = await db
      .selectFrom("coverage_files")
      .selectAll()
      .where("artifact_id", "=", artifact.id)
      .orderBy("path")
      .execute();
    return rows.map(({ id: _id, check_id: _check, artifact_id: _artifact, ...row }) => row);
  }

  const NO_NEW = {
    lines_new: null,
    lines_new_covered: null,
    branches_new: null,
    branches_new_covered: null,
    conditions_new: null,
    conditions_new_covered: null,
  };

  describe("each format becomes coverage files, a coverage report and metric values", () => {
    test("LCOV", async () => {
      const { run, check } = await aCoverageRun();
      const artifact = await coverage(run, check, "javascript", fixture("node-test-runner.lcov"));
      assert.deepEqual(await filesOf(artifact), [
        {
          language_key: "javascript",
          path: "m.mjs",
          lines_total: 6,
          lines_covered: 6,
          branches_total: 6,
          branches_covered: 5,
          conditions_total: null,
          conditions_covered: null,
          covered_lines: [1, 2, 3, 4, 5, 6],
          uncovered_lines: [],
          // One entry per outcome, in the order of its block,branch id.
          branch_lines: [1, 1, 2, 2, 5, 5],
          branch_totals: [1, 1, 1, 1, 1, 1],
          branch_taken: [1, 1, 1, 1, 0, 1],
        },
        {
          language_key: "javascript",
          path: "m.test.mjs",
          lines_total: 3,
          lines_covered: 3,
          branches_total: 2,
          branches_covered: 2,
          conditions_total: null,
          conditions_covered: null,
          covered_lines: [1, 2, 3],
          uncovered_lines: [],
          branch_lines: [1, 3],
          branch_totals: [1, 1],
          branch_taken: [1, 1],
        },
      ]);
      assert.deepEqual(await reportOf(check), {
        lines_total: 9,
        lines_covered: 9,
        branches_total: 8,
        branches_covered: 7,
        conditions_total: null,
        conditions_covered: null,
        ...NO_NEW,
      });
      assert.deepEqual(await valuesOf(check), [
        "BCV AGGREGATE 87.5",
        "BCV JAVASCRIPT 87.5",
        "CPCV AGGREGATE 94.12",
        "CPCV JAVASCRIPT 94.12",
        "LCV AGGREGATE 100",
        "LCV JAVASCRIPT 100",
      ]);
    });

    test("Cobertura (coverage.py), paths made relative to workDir, conditions counted", async () => {
      const { run, check } = await aCoverageRun();
      const artifact = await coverage(
        run,
        check,
        "python",
        fixture("coverage-py.cobertura.xml"),
        "/home/runner/work/shop/shop",
      );
      const files = await filesOf(artifact);
      assert.deepEqual(
        files.map((f) => [f.path, f.lines_covered, f.lines_total, f.conditions_covered, f.conditions_total]),
        [
          ["src/shop/__init__.py", 0, 0, null, null],
          ["src/shop/cart.py", 7, 9, 3, 4],
        ],
      );
      assert.deepEqual(files[1]!.uncovered_lines, [11, 12]);
      assert.deepEqual(files[1]!.branch_lines, [5, 10]);
      assert.deepEqual(await reportOf(check), {
        lines_total: 9,
        lines_covered: 7,
        branches_total: 4,
        branches_covered: 3,
        conditions_total: 4,
        conditions_covered: 3,
        ...NO_NEW,
      });
      assert.deepEqual(await valuesOf(check), [
        "BCV AGGREGATE 75",
        "BCV PYTHON 75",
        "CCV AGGREGATE 75",
        "CCV PYTHON 75",
        "CPCV AGGREGATE 76.92",
        "CPCV PYTHON 76.92",
        "LCV AGGREGATE 77.78",
        "LCV PYTHON 77.78",
      ]);
    });

    test("Clover (OpenClover)", async () => {
      const { run, check } = await aCoverageRun();
      const artifact = await coverage(
        run,
        check,
        "java",
        fixture("openclover.clover.xml"),
        "/home/runner/work/shop/shop",
      );
      assert.deepEqual(
        (await filesOf(artifact)).map((f) => f.path),
        ["src/main/java/com/example/shop/Cart.java", "src/main/java/com/example/shop/Empty.java"],
      );
      // Lines are the stmt elements (3 of 4 run); method entries and the decision are not lines.
      assert.deepEqual(await valuesOf(check), [
        "BCV AGGREGATE 50",
        "BCV JAVA 50",
        "CCV AGGREGATE 50",
        "CCV JAVA 50",
        "CPCV AGGREGATE 66.67",
        "CPCV JAVA 66.67",
        "LCV AGGREGATE 75",
        "LCV JAVA 75",
      ]);
    });

    test("JaCoCo", async () => {
      const { run, check } = await aCoverageRun();
      const artifact = await coverage(run, check, "java", fixture("jacoco.xml"));
      const [cart] = await filesOf(artifact);
      assert.deepEqual(
        [
          cart!.path,
          cart!.covered_lines,
          cart!.uncovered_lines,
          cart!.branch_lines,
          cart!.branch_totals,
          cart!.branch_taken,
        ],
        ["com/example/shop/Cart.java", [5, 8, 9], [11], [8], [4], [3]],
      );
      assert.deepEqual(await reportOf(check), {
        lines_total: 4,
        lines_covered: 3,
        branches_total: 4,
        branches_covered: 3,
        conditions_total: 4,
        conditions_covered: 3,
        ...NO_NEW,
      });
      assert.deepEqual(await valuesOf(check), [
        "BCV AGGREGATE 75",
        "BCV JAVA 75",
        "CCV AGGREGATE 75",
        "CCV JAVA 75",
        "CPCV AGGREGATE 75",
        "CPCV JAVA 75",
        "LCV AGGREGATE 75",
        "LCV JAVA 75",
      ]);
    });

    test("Go profile: the repository's module path is stripped from import paths", async () => {
      const repo = await aRepository(db, team);
      await db
        .updateTable("repositories")
        .set({ vcs_url: "https://example.com/shop.git" })
        .where("id", "=", repo.id)
        .execute();
      const { run, check } = await aCoverageRun({ ...repo, vcs_url: "https://example.com/shop.git" });
      const artifact = await coverage(run, check, "go", fixture("coverpkg.go.out"));
      const files = await filesOf(artifact);
      assert.deepEqual(
        files.map((f) => [f.path, f.covered_lines, f.uncovered_lines]),
        [
          ["cart/cart.go", [11, 12, 13, 15], [19]],
          ["cart/doc.go", [], []],
          ["internal/money/money.go", [6], []],
        ],
      );
      // No branches in a Go profile: no BCV.
      assert.deepEqual(await valuesOf(check), [
        "CPCV AGGREGATE 83.33",
        "CPCV GO 83.33",
        "LCV AGGREGATE 83.33",
        "LCV GO 83.33",
      ]);
    });
  });

  test("two languages in one run: a value per language and AGGREGATE over both", async () => {
    const { run, check } = await aCoverageRun();
    await coverage(run, check, "javascript", fixture("node-test-runner.lcov"));
    await coverage(run, check, "python", fixture("coverage-py.cobertura.xml"), "/home/runner/work/shop/shop");
    assert.deepEqual(await reportOf(check), {
      lines_total: 18,
      lines_covered: 16,
      branches_total: 12,
      branches_covered: 10,
      conditions_total: 4,
      conditions_covered: 3,
      ...NO_NEW,
    });
    assert.deepEqual(await valuesOf(check), [
      "BCV AGGREGATE 83.33",
      "BCV JAVASCRIPT 87.5",
      "BCV PYTHON 75",
      "CCV AGGREGATE 75",
      "CCV PYTHON 75",
      "CPCV AGGREGATE 86.67",
      "CPCV JAVASCRIPT 94.12",
      "CPCV PYTHON 76.92",
      "LCV AGGREGATE 88.89",
      "LCV JAVASCRIPT 100",
      "LCV PYTHON 77.78",
    ]);
  });

  test("one report uploaded under two language keys counts in full under each, and each file once in AGGREGATE", async () => {
    // As a Java and Kotlin project uploads its one report under both keys.
    const once = await aCoverageRun();
    await coverage(once.run, once.check, "java", CART_LCOV, "/ci/repo");
    await changes(once.run, CART_DIFF);
    const twice = await aCoverageRun();
    await coverage(twice.run, twice.check, "java", CART_LCOV, "/ci/repo");
    await coverage(twice.run, twice.check, "kotlin", CART_LCOV, "/ci/repo");
    await changes(twice.run, CART_DIFF);
    assert.deepEqual(await reportOf(twice.check), await reportOf(once.check));
    const values = await valuesOf(twice.check);
    const aggregate = values.filter((v) => v.includes(" AGGREGATE "));
    assert.deepEqual(
      aggregate,
      (await valuesOf(once.check)).filter((v) => v.includes(" AGGREGATE ")),
      "the AGGREGATE of the report once",
    );
    assert.ok(
      aggregate.includes("LCV AGGREGATE 50") && aggregate.includes("NLCV AGGREGATE 25"),
      aggregate.join(),
    );
    for (const key of ["JAVA", "KOTLIN"]) {
      assert.deepEqual(
        values.filter((v) => v.includes(` ${key} `)).map((v) => v.replace(key, "LANGUAGE")),
        aggregate.map((v) => v.replace("AGGREGATE", "LANGUAGE")),
        `${key} in full`,
      );
    }
  });

  test("a run's coverage that arrives after a newer run's keeps its run's place: the newer run's value stays the latest", async () => {
    const repository = await aRepository(db, team, { defaultBranch: "main" });
    const older = await aRun(db, repository, {
      status: "PENDING",
      createdAt: new Date(Date.now() - 3_600_000),
    });
    const olderCheck = await aCheck(db, older, coverageAnalyzer, { status: "PENDING", finishedAt: null });
    const newer = await aRun(db, repository, { status: "PENDING" });
    const newerCheck = await aCheck(db, newer, coverageAnalyzer, { status: "PENDING", finishedAt: null });
    await coverage(newer, newerCheck, "javascript", fixture("node-test-runner.lcov"));
    // The older run's slower job reports last.
    await coverage(
      older,
      olderCheck,
      "python",
      fixture("coverage-py.cobertura.xml"),
      "/home/runner/work/shop/shop",
    );
    await ended(older, newer);
    const answer = await gql<{
      repository: {
        metrics: Array<{
          shortcode: string;
          items: Array<{
            key: string;
            latestValue: number;
            values: { edges: Array<{ node: { value: number } }> };
          }>;
        }>;
      };
    }>(
      server.endpoint,
      token,
      `query($login: String!, $name: String!) { repository(login: $login, name: $name, vcsProvider: GITHUB) {
        metrics(shortcodeIn: [LCV]) { shortcode items { key latestValue values(first: 5) { edges { node { value } } } } } } }`,
      { login: team.login, name: repository.name },
    );
    const aggregate = answer.body.data?.repository.metrics[0]?.items.find((item) => item.key === "AGGREGATE");
    assert.equal(aggregate?.latestValue, 100, "the newer run's line coverage");
    assert.deepEqual(
      aggregate?.values.edges.map((edge) => edge.node.value),
      [100, 77.78],
      "newest run first",
    );
  });

  test("new-code coverage from a unified diff that arrives after the coverage, read through the API", async () => {
    const { repo, run, check } = await aCoverageRun();
    await coverage(run, check, "javascript", CART_LCOV, "/ci/repo");
    assert.deepEqual((await reportOf(check)).lines_new, null);
    const result = await processArtifact(await anArtifact(run, null, { kind: "CHANGES", text: CART_DIFF }));
    assert.deepEqual(result, { read: 2, stored: 2, skipped: {}, warnings: [], counts: { changedLines: 5 } });
    assert.deepEqual(await reportOf(check), {
      lines_total: 8,
      lines_covered: 4,
      lines_new: 4,
      lines_new_covered: 1,
      branches_total: 4,
      branches_covered: 3,
      branches_new: 2,
      branches_new_covered: 1,
      conditions_total: null,
      conditions_covered: null,
      conditions_new: null,
      conditions_new_covered: null,
    });
    await ended(run);

    const res = await gql<{ node: { metrics: MetricOut[] }; run: { changesetStats: unknown } }>(
      server.endpoint,
      token,
      `query($id: ID!, $uid: UUID!) {
        node(id: $id) { ... on Check { metrics { shortcode items { key latestValue latestValueDisplay threshold thresholdStatus } } } }
        run(runUid: $uid) { changesetStats { lines { overall overallCovered new newCovered } branches { overall overallCovered new newCovered } conditions { overall overallCovered new newCovered } } }
      }`,
      { id: encodeGlobalId("Check", check.key), uid: run.run_uid },
    );
    assert.deepEqual(res.body.errors, undefined);
    const item = (value: number, display: string) => ({
      latestValue: value,
      latestValueDisplay: display,
      threshold: null,
      thresholdStatus: null,
    });
    assert.deepEqual(res.body.data!.node.metrics, [
      {
        shortcode: "BCV",
        items: [
          { key: "AGGREGATE", ...item(75, "75.0%") },
          { key: "JAVASCRIPT", ...item(75, "75.0%") },
        ],
      },
      {
        shortcode: "LCV",
        items: [
          { key: "AGGREGATE", ...item(50, "50.0%") },
          { key: "JAVASCRIPT", ...item(50, "50.0%") },
        ],
      },
      {
        shortcode: "CPCV",
        items: [
          { key: "AGGREGATE", ...item(58.33, "58.33%") },
          { key: "JAVASCRIPT", ...item(58.33, "58.33%") },
        ],
      },
      {
        shortcode: "NLCV",
        items: [
          { key: "AGGREGATE", ...item(25, "25.0%") },
          { key: "JAVASCRIPT", ...item(25, "25.0%") },
        ],
      },
      {
        shortcode: "NBCV",
        items: [
          { key: "AGGREGATE", ...item(50, "50.0%") },
          { key: "JAVASCRIPT", ...item(50, "50.0%") },
        ],
      },
      {
        shortcode: "NCPCV",
        items: [
          { key: "AGGREGATE", ...item(33.33, "33.33%") },
          { key: "JAVASCRIPT", ...item(33.33, "33.33%") },
        ],
      },
    ]);
    assert.deepEqual(res.body.data!.run.changesetStats, {
      lines: { overall: 8, overallCovered: 4, new: 4, newCovered: 1 },
      branches: { overall: 4, overallCovered: 3, new: 2, newCovered: 1 },
      conditions: { overall: null, overallCovered: null, new: null, newCovered: null },
    });

    // The repository's metric items were created, and read the values.
    const repoRes = await gql<{ repository: { metrics: MetricOut[] } }>(
      server.endpoint,
      token,
      `query($name: String!, $login: String!) {
        repository(name: $name, login: $login, vcsProvider: GITHUB) { metrics(shortcodeIn: [NLCV]) { shortcode items { key latestValue latestValueDisplay threshold thresholdStatus } } }
      }`,
      { name: repo.name, login: team.login },
    );
    assert.deepEqual(repoRes.body.errors, undefined);
    assert.deepEqual(repoRes.body.data!.repository.metrics, [
      {
        shortcode: "NLCV",
        items: [
          { key: "AGGREGATE", ...item(25, "25.0%") },
          { key: "JAVASCRIPT", ...item(25, "25.0%") },
        ],
      },
    ]);
  });

  test("new-code coverage from JSON ranges that arrive before the coverage, with conditions", async () => {
    const { run, check } = await aCoverageRun();
    await changes(run, CART_JSON, "/ci/repo");
    // No coverage yet: nothing to report.
    assert.equal(
      await db
        .selectFrom("coverage_reports")
        .select("check_id")
        .where("check_id", "=", check.id)
        .executeTakeFirst(),
      undefined,
    );
    await coverage(run, check, "javascript", CART_LCOV, "/ci/repo");
    await coverage(run, check, "java", fixture("jacoco.xml"));
    // Cart.java lines 8, 9 covered and 11 not; line 8 has 3 of 4 branch (and condition) outcomes.
    assert.deepEqual(await reportOf(check), {
      lines_total: 12,
      lines_covered: 7,
      lines_new: 7,
      lines_new_covered: 3,
      branches_total: 8,
      branches_covered: 6,
      branches_new: 6,
      branches_new_covered: 4,
      conditions_total: 4,
      conditions_covered: 3,
      conditions_new: 4,
      conditions_new_covered: 3,
    });
    const newValues = (await valuesOf(check)).filter((v) => v.startsWith("N"));
    assert.deepEqual(newValues, [
      "NBCV AGGREGATE 66.67",
      "NBCV JAVA 75",
      "NBCV JAVASCRIPT 50",
      "NCCV AGGREGATE 75",
      "NCCV JAVA 75",
      "NCPCV AGGREGATE 53.85",
      "NCPCV JAVA 71.43",
      "NCPCV JAVASCRIPT 33.33",
      "NLCV AGGREGATE 42.86",
      "NLCV JAVA 66.67",
      "NLCV JAVASCRIPT 25",
    ]);
  });

  describe("report paths that are not repository paths, paired with the diff's", () => {
    /** A JaCoCo report of com/acme/Cart.java (lines 3, 4 run, 5 not) and com/acme/Util.java (line 2 run). */
    const JACOCO = `<?xml version="1.0" encoding="UTF-8"?><report name="shop">
<package name="com/acme">
<sourcefile name="Cart.java"><line nr="3" mi="0" ci="2" mb="0" cb="0"/><line nr="4" mi="0" ci="3" mb="1" cb="1"/><line nr="5" mi="2" ci="0" mb="0" cb="0"/></sourcefile>
<sourcefile name="Util.java"><line nr="2" mi="0" ci="1" mb="0" cb="0"/></sourcefile>
</package></report>`;
    /** Cart.java under the one module's source root; Util.java in two modules. */
    const DIFF = JSON.stringify({
      files: {
        "core/src/main/java/com/acme/Cart.java": [[3, 5]],
        "core/src/main/java/com/acme/Util.java": [[1, 3]],
        "web/src/main/java/com/acme/Util.java": [[1, 3]],
        "core/src/main/java/acme/Cart.java": [[1, 9]],
      },
    });
    const UTIL_WARNING =
      "com/acme/Util.java could be any of 2 changed files (core/src/main/java/com/acme/Util.java, web/src/main/java/com/acme/Util.java); the report does not say which, so none of its lines counts as changed.";

    /** Stores and processes an artifact, answering what processing found. */
    async function processed(
      run: AnalysisRunRow,
      check: CheckRow | null,
      text: string,
      languageKey?: string,
    ) {
      const kind: ArtifactKind = check === null ? "CHANGES" : "COVERAGE";
      return processArtifact(
        await anArtifact(run, check, {
          kind,
          text,
          workDir: "/ci/repo",
          ...(languageKey && { languageKey }),
        }),
      );
    }

    test("a package path counts the changed lines of the one changed file under a source root that ends in it", async () => {
      const { run, check } = await aCoverageRun();
      const report = await processed(run, check, JACOCO, "java");
      const diff = await processed(run, null, DIFF);
      const row = await reportOf(check);
      // Cart.java's lines 3, 4 and 5: two run; the branch line 4, 1 of 2. Util.java counts none.
      assert.deepEqual(
        [row.lines_new, row.lines_new_covered, row.branches_new, row.branches_new_covered],
        [3, 2, 2, 1],
      );
      assert.deepEqual(await checkFilesOf(check), [
        "com/acme/Cart.java JAVA x1 lines 2/3 branches 1/2 new 2/3 1/2 uncovered [5]",
        "com/acme/Util.java JAVA x1 lines 1/1 branches 0/0 new 0/0 0/0 uncovered []",
      ]);
      // The file two changed files could be is said on the changes, which made it known.
      assert.deepEqual(diff.warnings, [UTIL_WARNING]);
      assert.deepEqual(report.warnings, []);
    });

    test("the report processed after the changes says which of its files could be several changed files", async () => {
      const { run, check } = await aCoverageRun();
      await processed(run, null, DIFF);
      const report = await processed(run, check, JACOCO, "java");
      assert.deepEqual(report.warnings, [UTIL_WARNING]);
      // Another language's report processed later does not repeat it.
      const other = await processed(run, check, "SF:src/a.ts\nDA:1,1\nend_of_record\n", "javascript");
      assert.deepEqual(other.warnings, []);
      assert.deepEqual(
        [(await reportOf(check)).lines_new, (await reportOf(check)).lines_new_covered],
        [3, 2],
      );
    });

    /** coverage.py's Cobertura with two sources: totals.py (lines 1-3, 3 not run) and helpers.py. */
    const SOURCES = `<?xml version="1.0" ?><coverage lines-valid="4" lines-covered="3"><sources><source>/ci/repo/app</source><source>/ci/repo/tests</source></sources><packages><package name="."><classes>
<class name="totals.py" filename="totals.py"><lines><line number="1" hits="1"/><line number="2" hits="1"/><line number="3" hits="0"/></lines></class>
<class name="helpers.py" filename="helpers.py"><lines><line number="1" hits="1"/></lines></class>
</classes></package></packages></coverage>`;

    test("a Cobertura file under one of several sources counts the changes of the one of its places that changed", async () => {
      const { run, check } = await aCoverageRun();
      const report = await processed(run, check, SOURCES, "python");
      assert.deepEqual(report.warnings, [
        "2 file(s) lie in one of the report's <source> directories (app, tests) and the report does not say which: they are listed with their places in braces ({app,tests}/helpers.py, {app,tests}/totals.py), and a file's changed lines count only when one of its places, and only one, changed. Reports that name files from the repository root (coverage.py's LCOV report, or a single source) avoid this.",
      ]);
      const diff = await processed(
        run,
        null,
        JSON.stringify({
          files: { "app/totals.py": [[2, 3]], "app/helpers.py": [[1, 1]], "tests/helpers.py": [[1, 1]] },
        }),
      );
      const row = await reportOf(check);
      assert.deepEqual([row.lines_new, row.lines_new_covered], [2, 1]);
      assert.deepEqual(await checkFilesOf(check), [
        "{app,tests}/helpers.py PYTHON x1 lines 1/1 branches 0/0 new 0/0 0/0 uncovered []",
        "{app,tests}/totals.py PYTHON x1 lines 2/3 branches 0/0 new 1/2 0/0 uncovered [3]",
      ]);
      assert.deepEqual(diff.warnings, [
        "{app,tests}/helpers.py could be any of 2 changed files (app/helpers.py, tests/helpers.py); the report does not say which, so none of its lines counts as changed.",
      ]);
    });

    test("only JaCoCo's paths stand for the changed files that end in them: an LCOV path must match whole", async () => {
      const { run, check } = await aCoverageRun();
      await coverage(run, check, "java", "SF:com/acme/Cart.java\nDA:3,1\nend_of_record\n");
      await changes(run, DIFF);
      assert.deepEqual(
        [(await reportOf(check)).lines_new, (await reportOf(check)).lines_new_covered],
        [0, 0],
      );
    });
  });

  test("changed lines that touch no coverable line give zero new lines and no new-code metrics", async () => {
    const { run, check } = await aCoverageRun();
    await coverage(run, check, "javascript", CART_LCOV, "/ci/repo");
    await changes(run, '{"files": {"docs/guide.md": [[1, 40]]}}');
    const report = await reportOf(check);
    assert.deepEqual([report.lines_new, report.lines_new_covered, report.branches_new], [0, 0, 0]);
    assert.deepEqual(
      (await valuesOf(check)).filter((v) => v.startsWith("N")),
      [],
    );
  });

  test("several CHANGES artifacts add up; a FAILED one is left out", async () => {
    const { run, check } = await aCoverageRun();
    await coverage(run, check, "javascript", CART_LCOV, "/ci/repo");
    const failed = await anArtifact(run, null, {
      kind: "CHANGES",
      text: '{"files": {"src/other.ts": [[1, 2]]}}',
    });
    await db.updateTable("artifacts").set({ status: "FAILED" }).where("id", "=", failed.id).execute();
    await changes(run, '{"files": {"src/cart.ts": [[1, 1]]}}');
    await changes(run, '{"files": {"src/cart.ts": [[3, 3]]}}');
    const report = await reportOf(check);
    assert.deepEqual([report.lines_new, report.lines_new_covered], [2, 1]);
  });

  test("a file several reports of one language name counts once, merged line by line", async () => {
    const { run, check } = await aCoverageRun();
    await coverage(
      run,
      check,
      "javascript",
      "SF:src/a.ts\nDA:1,1\nDA:2,0\nDA:3,0\nBRDA:2,0,0,0\nBRDA:2,0,1,1\nend_of_record\n",
    );
    await coverage(
      run,
      check,
      "javascript",
      "SF:src/a.ts\nDA:1,0\nDA:2,4\nDA:4,0\nBRDA:2,0,0,1\nBRDA:2,0,1,0\nend_of_record\nSF:src/b.ts\nDA:1,1\nend_of_record\n",
    );
    // a.ts: lines 1, 2 covered, 3, 4 not; b.ts: 1 covered. On a.ts line 2 each report took the
    // outcome the other did not: both are taken, as `lcov -a` of the two says.
    const report = await reportOf(check);
    assert.deepEqual(
      [report.lines_covered, report.lines_total, report.branches_covered, report.branches_total],
      [3, 5, 2, 2],
    );
    await changes(run, '{"files": {"src/a.ts": [[2, 4]]}}');
    const withChanges = await reportOf(check);
    assert.deepEqual(
      [
        withChanges.lines_new_covered,
        withChanges.lines_new,
        withChanges.branches_new_covered,
        withChanges.branches_new,
      ],
      [1, 3, 2, 2],
    );
  });

  test("a line two reports take different outcomes of merges them one by one only where the format tells them apart", async () => {
    const { run, check } = await aCoverageRun();
    const cobertura = (conditionCoverage: string) =>
      `<coverage><sources><source>/ci/repo</source></sources><packages><package><classes><class filename="src/c.py"><lines><line number="4" hits="1" branch="true" condition-coverage="${conditionCoverage}"/></lines></class></classes></package></packages></coverage>`;
    const jacoco = (missed: number, covered: number) =>
      `<report name="r"><package name="com/acme"><sourcefile name="J.java"><line nr="4" mi="0" ci="1" mb="${missed}" cb="${covered}"/></sourcefile></package></report>`;
    const openclover = (whenTrue: number, whenFalse: number) =>
      `<coverage clover="4.5.2"><project><file path="/ci/repo/src/O.java"><line num="4" count="1" type="stmt"/><line num="4" truecount="${whenTrue}" falsecount="${whenFalse}" type="cond"/></file></project></coverage>`;
    // Each pair: the first report takes one outcome of the line, the second the other.
    // (A space tells the second upload's bytes apart: the same bytes are the same artifact.)
    await coverage(run, check, "python", cobertura("50% (1/2)"), "/ci/repo");
    await coverage(run, check, "python", `${cobertura("50% (1/2)")} `, "/ci/repo");
    await coverage(run, check, "java", jacoco(1, 1));
    await coverage(run, check, "java", `${jacoco(1, 1)} `);
    await coverage(run, check, "java", openclover(3, 0), "/ci/repo");
    await coverage(run, check, "java", openclover(0, 2), "/ci/repo");
    await coverage(
      run,
      check,
      "python",
      "SF:src/c.py\nDA:4,1\nBRDA:4,0,0,1\nBRDA:4,0,1,0\nend_of_record\n",
      "/ci/repo",
    );
    // Cobertura and JaCoCo count the line's outcomes but do not say which: the line keeps the
    // most known to have run, 1 of 2 (the LCOV of c.py takes one outcome too, but which of
    // Cobertura's is unknown). OpenClover says true and false: both were taken.
    assert.deepEqual(await checkFilesOf(check), [
      "com/acme/J.java JAVA x2 lines 1/1 branches 1/2 new -/- -/- uncovered []",
      "src/O.java JAVA x2 lines 1/1 branches 2/2 new -/- -/- uncovered []",
      "src/c.py PYTHON x3 lines 1/1 branches 1/2 new -/- -/- uncovered []",
    ]);
  });

  /** The check's per-file rows (`coverage_check_files`) as `path key reports lines branches new`. */
  async function checkFilesOf(check: CheckRow): Promise<string[]> {
    const rows = await db
      .selectFrom("coverage_check_files")
      .selectAll()
      .where("check_id", "=", check.id)
      .orderBy("path")
      .orderBy("metric_key")
      .execute();
    const pair = (covered: number | null, total: number | null) => `${covered ?? "-"}/${total ?? "-"}`;
    return rows.map(
      (r) =>
        `${r.path} ${r.metric_key} x${r.reports} lines ${pair(r.lines_covered, r.lines_total)} branches ${pair(r.branches_covered, r.branches_total)} new ${pair(r.lines_new_covered, r.lines_new)} ${pair(r.branches_new_covered, r.branches_new)} uncovered [${r.uncovered_lines.join(",")}]`,
    );
  }

  test("a file outside the repository is skipped, named in a warning, and left out of every total and row", async () => {
    const { run, check } = await aCoverageRun();
    const outside =
      "SF:/usr/lib/node_modules/lib/index.js\nDA:1,0\nDA:2,0\nDA:3,0\nBRDA:1,0,0,0\nBRDA:1,0,1,0\nend_of_record\n";
    const artifact = await anArtifact(run, check, {
      kind: "COVERAGE",
      text: CART_LCOV + outside,
      languageKey: "javascript",
      workDir: "/ci/repo",
    });
    const result = await processArtifact(artifact);
    assert.deepEqual(result, {
      read: 3,
      stored: 2,
      skipped: { OUTSIDE_REPOSITORY: 1 },
      warnings: [
        '1 file(s) lie outside the repository and were not counted (/usr/lib/node_modules/lib/index.js); paths are made relative to the upload\'s workDir "/ci/repo".',
      ],
      counts: { linesTotal: 8, linesCovered: 4, branchesTotal: 4, branchesCovered: 3 },
    });
    // The same figures as CART_LCOV alone: LCV 50, BCV 75, on the changed lines too.
    await changes(
      run,
      '{"files": {"src/cart.ts": [[1, 3]], "/usr/lib/node_modules/lib/index.js": [[1, 3]]}}',
      "/ci/repo",
    );
    const report = await reportOf(check);
    assert.deepEqual(
      [report.lines_covered, report.lines_total, report.branches_covered, report.branches_total],
      [4, 8, 3, 4],
    );
    assert.deepEqual([report.lines_new_covered, report.lines_new], [2, 3]);
    assert.deepEqual(
      (await valuesOf(check)).filter((v) => v.startsWith("LCV") || v.startsWith("NLCV")),
      ["LCV AGGREGATE 50", "LCV JAVASCRIPT 50", "NLCV AGGREGATE 66.67", "NLCV JAVASCRIPT 66.67"],
    );
    assert.deepEqual(await checkFilesOf(check), [
      "src/cart.ts JAVASCRIPT x1 lines 3/6 branches 3/4 new 2/3 1/2 uncovered [3,4,6]",
      "src/other.ts JAVASCRIPT x1 lines 1/2 branches 0/0 new 0/0 0/0 uncovered [2]",
    ]);
  });

  test("declared totals that disagree with the detail become warnings; the figures come from the detail", async () => {
    const { run, check } = await aCoverageRun();
    const artifact = await anArtifact(run, check, {
      kind: "COVERAGE",
      text: "SF:src/a.ts\nDA:1,1\nDA:2,0\nLF:3\nLH:2\nBRDA:1,0,0,1\nBRDA:1,0,1,0\nBRF:2\nBRH:1\nend_of_record\n",
      languageKey: "javascript",
    });
    const result = await processArtifact(artifact);
    assert.deepEqual(result.warnings, [
      "src/a.ts: LF/LH declares 2 of 3 lines covered, but its detail holds 1 of 2; the figures come from the detail.",
    ]);
    assert.deepEqual(result.counts, { linesTotal: 2, linesCovered: 1, branchesTotal: 2, branchesCovered: 1 });
  });

  test("the per-file rows merge a file several reports name, count the reports, and carry new-code figures", async () => {
    const { run, check } = await aCoverageRun();
    await coverage(
      run,
      check,
      "javascript",
      "SF:src/a.ts\nDA:1,1\nDA:2,0\nDA:3,0\nBRDA:2,0,0,0\nBRDA:2,0,1,1\nend_of_record\n",
    );
    await coverage(
      run,
      check,
      "javascript",
      "SF:src/a.ts\nDA:1,0\nDA:2,4\nDA:4,0\nBRDA:2,0,0,1\nBRDA:2,0,1,0\nend_of_record\nSF:src/b.ts\nDA:1,1\nend_of_record\n",
    );
    await coverage(run, check, "python", fixture("coverage-py.cobertura.xml"), "/home/runner/work/shop/shop");
    assert.deepEqual(await checkFilesOf(check), [
      "src/a.ts JAVASCRIPT x2 lines 2/4 branches 2/2 new -/- -/- uncovered [3,4]",
      "src/b.ts JAVASCRIPT x1 lines 1/1 branches 0/0 new -/- -/- uncovered []",
      "src/shop/__init__.py PYTHON x1 lines 0/0 branches 0/0 new -/- -/- uncovered []",
      "src/shop/cart.py PYTHON x1 lines 7/9 branches 3/4 new -/- -/- uncovered [11,12]",
    ]);
    await changes(run, '{"files": {"src/a.ts": [[2, 4]], "src/shop/cart.py": [[10, 12]]}}');
    assert.deepEqual(await checkFilesOf(check), [
      "src/a.ts JAVASCRIPT x2 lines 2/4 branches 2/2 new 1/3 2/2 uncovered [3,4]",
      "src/b.ts JAVASCRIPT x1 lines 1/1 branches 0/0 new 0/0 0/0 uncovered []",
      "src/shop/__init__.py PYTHON x1 lines 0/0 branches 0/0 new 0/0 0/0 uncovered []",
      "src/shop/cart.py PYTHON x1 lines 7/9 branches 3/4 new 1/3 1/2 uncovered [11,12]",
    ]);
    // The rows add up to the check's report.
    const report = await reportOf(check);
    assert.deepEqual(
      [report.lines_covered, report.lines_total, report.lines_new_covered, report.lines_new],
      [10, 14, 2, 6],
    );
  });

  test("processing the same artifacts twice gives the same rows as once", async () => {
    const { run, check } = await aCoverageRun();
    const first = await coverage(run, check, "javascript", CART_LCOV, "/ci/repo");
    const diff = await changes(run, CART_DIFF);
    const snapshot = async () => ({
      files: await filesOf(first),
      report: await reportOf(check),
      values: await valuesOf(check),
      checkFiles: await checkFilesOf(check),
      items: await db
        .selectFrom("repository_metric_items")
        .select(["metric_shortcode", "metric_key"])
        .where("repository_id", "=", run.repository_id)
        .orderBy("metric_shortcode")
        .orderBy("metric_key")
        .execute(),
    });
    const once = await snapshot();
    await processArtifact(first);
    await processArtifact(diff);
    await processArtifact(first);
    assert.deepEqual(await snapshot(), once);
    assert.equal(once.values.length, 12);
  });

  test("CHANGES in a run without a coverage check only validate", async () => {
    const repo = await aRepository(db, team);
    const run = await aRun(db, repo, { status: "PENDING" });
    const result = await processArtifact(await anArtifact(run, null, { kind: "CHANGES", text: CART_DIFF }));
    assert.deepEqual(result, { read: 2, stored: 2, skipped: {}, warnings: [], counts: { changedLines: 5 } });
    const values = await db
      .selectFrom("repository_metric_items")
      .select("id")
      .where("repository_id", "=", repo.id)
      .execute();
    assert.deepEqual(values, []);
  });

  describe("the coverage gate", () => {
    test("an enforced threshold that is missed fails the check with a reason naming it", async () => {
      const repo = await aRepository(db, team);
      await aMetricItem(db, repo, "LCV", { key: "JAVASCRIPT", threshold: 80 });
      await aMetricItem(db, repo, "LCV", { threshold: 40 });
      await aMetricItem(db, repo, "BCV", { threshold: 90 });
      await aMetricItem(db, repo, "NLCV", { threshold: 30 });
      await aMetricSetting(db, repo, "LCV", { isReported: true, isThresholdEnforced: true });
      await aMetricSetting(db, repo, "NLCV", { isReported: true, isThresholdEnforced: true });
      await aMetricSetting(db, repo, "BCV", { isReported: true, isThresholdEnforced: false });
      const { run, check } = await aCoverageRun(repo);
      await coverage(run, check, "javascript", CART_LCOV, "/ci/repo");
      // LCV AGGREGATE 50 passes 40; BCV 75 misses 90 but is not enforced.
      assert.deepEqual(await coverageGateFailures(db, check.id), [
        "LCV JAVASCRIPT 50.0% is below the threshold 80%",
      ]);
      // The values keep the thresholds in force when they were recorded.
      const thresholds = await db
        .selectFrom("metric_values as v")
        .innerJoin("repository_metric_items as i", "i.id", "v.item_id")
        .select(["i.metric_shortcode", "i.metric_key", "v.threshold"])
        .where("v.check_id", "=", check.id)
        .where("v.threshold", "is not", null)
        .orderBy("i.metric_shortcode")
        .orderBy("i.metric_key")
        .execute();
      assert.deepEqual(
        thresholds.map((t) => `${t.metric_shortcode} ${t.metric_key} ${t.threshold}`),
        ["BCV AGGREGATE 90", "LCV AGGREGATE 40", "LCV JAVASCRIPT 80"],
      );
      // New code at 25% misses the enforced NLCV threshold too, listed in shortcode order.
      await changes(run, CART_DIFF);
      assert.deepEqual(await coverageGateFailures(db, check.id), [
        "LCV JAVASCRIPT 50.0% is below the threshold 80%",
        "NLCV AGGREGATE 25.0% is below the threshold 30%",
      ]);
    });

    test("thresholds that are not enforced (the default) never fail the check", async () => {
      const repo = await aRepository(db, team);
      await aMetricItem(db, repo, "LCV", { threshold: 99 });
      const { run, check } = await aCoverageRun(repo);
      await coverage(run, check, "javascript", CART_LCOV, "/ci/repo");
      assert.deepEqual(await coverageGateFailures(db, check.id), []);
    });
  });

  describe("validation for the intake", () => {
    test("a coverage report parses whole; an unknown language or a broken report is refused", () => {
      assert.equal(
        validateCoverage(fixture("jacoco.xml"), "java", { root: null, directory: null }).files.length,
        2,
      );
      assert.equal(
        validateCoverage(CART_LCOV, "javascript", { root: "/ci/repo", directory: null }).files[0]!.path,
        "src/cart.ts",
      );
      assert.throws(
        () => validateCoverage(CART_LCOV, "cobol", { root: null, directory: null }),
        (error: unknown) =>
          error instanceof UploadError && error.problem === "UNKNOWN_LANGUAGE" && /cobol/.test(error.message),
      );
      assert.throws(
        () =>
          validateCoverage("SF:a.ts\nDA:1,-1\nend_of_record\n", "javascript", {
            root: null,
            directory: null,
          }),
        (error: unknown) => error instanceof CoverageFormatError && /negative/.test(error.message),
      );
    });

    test("changed lines parse; garbage is refused", () => {
      assert.deepEqual(
        [...validateChanges(CART_JSON, "/ci/repo").keys()],
        ["src/cart.ts", "README.md", "com/example/shop/Cart.java"],
      );
      assert.throws(() => validateChanges("not a diff", null), ChangedLinesFormatError);
    });
  });
});
