import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { fixtureDir, readToolFixture, toolFixture } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { artifactsProcessed } from "./helpers/builders-artifacts.ts";
import { aCheck } from "./helpers/builders-checks.ts";
import { type CoverageFileOut, FILE_FIELDS, type FileCounts } from "./helpers/coverage-files.ts";
import { gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Per-file coverage through the real server (docs/ingestion-coverage.md "Per-file coverage"):
 * real tools' reports go up through `uploadArtifact`, the worker processes them, and
 * `Check.coverageFiles` / `Repository.coverageFiles` list the files the coverage values count,
 * with the tool's own per-file figures. Files outside the repository are skipped and counted, and
 * a report cut short is refused at upload with nothing stored.
 */

const UPLOAD = `mutation($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error run { runUid } }
}`;

interface Page {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: Array<{ node: Pick<CoverageFileOut, "path"> & Partial<CoverageFileOut> }>;
}

let server: TestServer;
let account: AccountRow;
let token: string;
let commits = 0;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

function aCommit(): string {
  commits += 1;
  return `${commits.toString(16).padStart(6, "0")}${"c0ffee".repeat(5)}ab`;
}

/** Uploads a real tool's report (or `text`) for `commit` on the default branch; answers the payload. */
async function upload(
  repository: RepositoryRow,
  commit: string,
  spec: { tool: string; name: string; key?: string; analyzer?: string; text?: string },
) {
  const fixture = toolFixture("coverage", spec.tool, spec.name);
  const res = await gql<{ uploadArtifact: { ok: boolean; error: string; run: { runUid: string } | null } }>(
    server.endpoint,
    token,
    UPLOAD,
    {
      input: {
        repositoryId: encodeGlobalId("Repository", repository.key),
        commitOid: commit,
        branch: "main",
        analyzer: spec.analyzer ?? "test-coverage",
        key: spec.key,
        workDir: fixture.workDir,
        data: spec.text ?? readToolFixture("coverage", spec.tool, spec.name),
      },
    },
  );
  assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
  return res.body.data!.uploadArtifact;
}

/** Waits until every artifact of the repository is processed (or failed). */
function processed(repository: RepositoryRow): Promise<void> {
  return artifactsProcessed(server.db, repository.id);
}

async function query<T>(text: string, variables: Record<string, unknown>): Promise<T> {
  const res = await gql<T>(server.endpoint, token, text, variables);
  assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
  return res.body.data!;
}

/** The run's coverage check's files with `args`, and the check's id. */
async function checkFiles(runUid: string, args = "", fields = FILE_FIELDS): Promise<Page> {
  const data = await query<{
    run: { checks: { edges: Array<{ node: { analyzer: { shortcode: string }; coverageFiles: Page } }> } };
  }>(
    `query($uid: UUID!) { run(runUid: $uid) { checks { edges { node { analyzer { shortcode }
      coverageFiles${args} { totalCount pageInfo { hasNextPage endCursor } edges { node { ${fields} } } } } } } } }`,
    { uid: runUid },
  );
  const check = data.run.checks.edges.find((e) => e.node.analyzer.shortcode === "test-coverage");
  assert.ok(check, "the run has a coverage check");
  return check.node.coverageFiles;
}

describe("per-file coverage through the API", () => {
  test("coverage.py's file outside the repository is skipped: not in LCV, counted in the artifact, not listed", async () => {
    const repository = await aRepository(server.db, account);
    const accepted = await upload(repository, aCommit(), {
      tool: "coverage-py",
      name: "coverage.xml",
      key: "python",
    });
    assert.equal(accepted.ok, true, accepted.error);
    await processed(repository);

    const artifact = await server.db
      .selectFrom("artifacts")
      .select(["status", "result"])
      .where("repository_id", "=", repository.id)
      .executeTakeFirstOrThrow();
    assert.equal(artifact.status, "PROCESSED");
    const result = artifact.result as { read: number; stored: number; skipped: unknown; warnings: string[] };
    assert.deepEqual([result.read, result.stored, result.skipped], [6, 5, { OUTSIDE_REPOSITORY: 1 }]);
    assert.deepEqual(result.warnings, [
      '1 file(s) lie outside the repository and were not counted (/usr/lib/python3/dist-packages/tabulate.py); paths are made relative to the upload\'s workDir "/tmp/assay-fixtures/python-coverage".',
    ]);

    // coverage.py's own table for the project's files (`coverage report --include=<project>`).
    const output = fs.readFileSync(
      path.join(fixtureDir("coverage"), toolFixture("coverage", "coverage-py", "coverage.xml").toolOutput),
      "utf8",
    );
    const table = output.slice(output.lastIndexOf("$ python3 -m coverage report --include"));
    const tool = [...table.matchAll(/^(\S+\.py)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+%$/gm)].map((m) => ({
      path: m[1]!,
      lines: { total: Number(m[2]), covered: Number(m[2]) - Number(m[3]) },
      branches: Number(m[4]),
    }));
    const totals = /^TOTAL\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(table)!;
    const linesTotal = Number(totals[1]);
    const linesCovered = linesTotal - Number(totals[2]);

    const data = await query<{
      repository: {
        metrics: Array<{ shortcode: string; items: Array<{ key: string; latestValue: number }> }>;
        coverageFiles: Page;
      };
    }>(
      `query($login: String!, $name: String!) { repository(login: $login, name: $name, vcsProvider: GITHUB) {
        metrics(shortcodeIn: [LCV]) { shortcode items { key latestValue } }
        coverageFiles { totalCount pageInfo { hasNextPage endCursor } edges { node { ${FILE_FIELDS} } } } } }`,
      { login: account.login, name: repository.name },
    );
    const lcv = Math.round((linesCovered / linesTotal) * 10000) / 100;
    assert.deepEqual(data.repository.metrics[0]!.items, [
      { key: "AGGREGATE", latestValue: lcv },
      { key: "PYTHON", latestValue: lcv },
    ]);
    const files = data.repository.coverageFiles;
    assert.equal(files.totalCount, tool.length);
    assert.deepEqual(
      files.edges.map(({ node }) => ({
        path: node.path,
        lines: { total: node.lines!.total, covered: node.lines!.covered },
        branches: node.branches!.total,
      })),
      tool,
    );
    // The figures add up to the metric.
    const sum = files.edges.reduce(
      (acc, { node }) => ({
        covered: acc.covered + node.lines!.covered,
        total: acc.total + node.lines!.total,
      }),
      { covered: 0, total: 0 },
    );
    assert.deepEqual(sum, { covered: linesCovered, total: linesTotal });
    const totals2 = files.edges.find((e) => e.node.path === "invoices/totals.py")!.node;
    assert.equal(totals2.key, "PYTHON");
    assert.equal(totals2.reportCount, 1);
    assert.equal(
      totals2.lineCoverage,
      Math.round((totals2.lines!.covered / totals2.lines!.total) * 10000) / 100,
    );
    assert.equal(totals2.uncoveredLines!.length, totals2.lines!.total - totals2.lines!.covered);
    assert.deepEqual(totals2.conditions && { total: totals2.conditions.total, new: totals2.conditions.new }, {
      total: totals2.branches!.total,
      new: null,
    });
  });

  test("two reports of one file merge, new-code figures come from the changed lines, and the list pages, filters and sorts", async () => {
    const repository = await aRepository(server.db, account);
    const commit = aCommit();
    // One upload at a time, each processed before the next, so the order of the reports (and of
    // the recomputations) is the same on every run of the test.
    const uploads = [
      { tool: "c8", name: "lcov.info", key: "javascript" },
      { tool: "node-test", name: "lcov.info", key: "javascript" },
      { tool: "gcovr", name: "cobertura.xml", key: "cxx" },
      { tool: "git-diff", name: "changes.diff", analyzer: "changes" },
    ];
    let uid = "";
    for (const spec of uploads) {
      const answer = await upload(repository, commit, spec);
      assert.equal(answer.ok, true, `${spec.tool}: ${answer.error}`);
      uid = answer.run!.runUid;
      await processed(repository);
    }

    const all = await checkFiles(uid);
    assert.deepEqual(
      all.edges.map((e) => [e.node.path, e.node.key, e.node.reportCount]),
      [
        ["src/format.js", "JAVASCRIPT", 2],
        ["src/pricing.js", "JAVASCRIPT", 2],
        ["src/ring.c", "C_AND_CPP", 1],
        ["test/format.test.js", "JAVASCRIPT", 1],
        ["test/pricing.test.js", "JAVASCRIPT", 1],
        ["tests/test_ring.c", "C_AND_CPP", 1],
      ],
    );
    // The changed lines are in src/ of the JavaScript project: those files have new-code figures,
    // every other file zero (not null: the run has changed lines).
    for (const { node } of all.edges) {
      assert.notEqual(node.lines!.new, null, node.path);
      if (!node.path.startsWith("src/") || node.path.endsWith(".c"))
        assert.equal(node.lines!.new, 0, node.path);
    }
    assert.ok(
      all.edges.some((e) => (e.node.lines!.new ?? 0) > 0),
      "some file has changed lines",
    );
    // Per file, the rows add up to the run's coverage counts.
    const stats = await query<{
      run: {
        changesetStats: {
          lines: { overall: number; overallCovered: number; new: number; newCovered: number };
        };
      };
    }>(
      `query($uid: UUID!) { run(runUid: $uid) { changesetStats { lines { overall overallCovered new newCovered } } } }`,
      { uid },
    );
    const add = (pick: (c: FileCounts) => number) =>
      all.edges.reduce((sum, e) => sum + pick(e.node.lines!), 0);
    assert.deepEqual(stats.run.changesetStats.lines, {
      overall: add((c) => c.total),
      overallCovered: add((c) => c.covered),
      new: add((c) => c.new ?? 0),
      newCovered: add((c) => c.newCovered ?? 0),
    });

    // Filters: a language, a piece of the path (any case).
    const c = await checkFiles(uid, "(key: C_AND_CPP)", "path");
    assert.deepEqual(
      [c.totalCount, c.edges.map((e) => e.node.path)],
      [2, ["src/ring.c", "tests/test_ring.c"]],
    );
    const tests = await checkFiles(uid, '(q: "TEST")', "path");
    assert.deepEqual(
      tests.edges.map((e) => e.node.path),
      ["test/format.test.js", "test/pricing.test.js", "tests/test_ring.c"],
    );
    assert.equal((await checkFiles(uid, "(key: AGGREGATE)", "path")).totalCount, 6);

    // Orders: least line coverage first, then by path; most uncovered lines first.
    const byCoverage = await checkFiles(uid, "(sortKey: LCV_ASCENDING)", "path lineCoverage");
    const rates = byCoverage.edges.map((e) => e.node.lineCoverage!);
    assert.deepEqual(
      rates,
      [...rates].sort((a, b) => a - b),
    );
    const descending = await checkFiles(uid, "(sortKey: LCV_DESCENDING)", "path lineCoverage");
    assert.deepEqual(
      descending.edges.map((e) => e.node.lineCoverage),
      [...rates].sort((a, b) => b - a),
    );
    const uncovered = await checkFiles(uid, "(sortKey: UNCOVERED_LINES_DESCENDING)", "path uncoveredLines");
    const misses = uncovered.edges.map((e) => e.node.uncoveredLines!.length);
    assert.deepEqual(
      misses,
      [...misses].sort((a, b) => b - a),
    );

    // Pages: two at a time by path, each page after the last one's cursor.
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 5; page++) {
      const args: string = after === null ? "(first: 2)" : `(first: 2, after: ${JSON.stringify(after)})`;
      const got = await checkFiles(uid, args, "path");
      seen.push(...got.edges.map((e) => e.node.path));
      if (!got.pageInfo.hasNextPage) break;
      after = got.pageInfo.endCursor;
    }
    assert.deepEqual(
      seen,
      all.edges.map((e) => e.node.path),
    );
  });

  test("a check of another analyzer lists no files, and a repository without coverage has none", async () => {
    const repository = await aRepository(server.db, account);
    const data = await query<{ repository: { coverageFiles: Page | null } }>(
      `query($login: String!, $name: String!) { repository(login: $login, name: $name, vcsProvider: GITHUB) {
        coverageFiles { totalCount } } }`,
      { login: account.login, name: repository.name },
    );
    assert.equal(data.repository.coverageFiles, null);
    const analyzer = await server.db
      .selectFrom("analyzers")
      .selectAll()
      .where("shortcode", "=", "python")
      .executeTakeFirstOrThrow();
    const check = await aCheck(server.db, await aRun(server.db, repository), analyzer);
    const node = await query<{ node: { coverageFiles: { totalCount: number; edges: unknown[] } } }>(
      `query($id: ID!) { node(id: $id) { ... on Check { coverageFiles { totalCount edges { cursor } } } } }`,
      { id: encodeGlobalId("Check", check.key) },
    );
    assert.deepEqual(node.node.coverageFiles, { totalCount: 0, edges: [] });
  });

  test("a report cut short is refused at upload saying it looks truncated, and nothing is stored", async () => {
    const repository = await aRepository(server.db, account);
    const lcov = readToolFixture("coverage", "c8", "lcov.info");
    const clover = readToolFixture("coverage", "c8", "clover.xml");
    const cases = [
      {
        name: "lcov.info",
        text: lcov.slice(0, lcov.lastIndexOf("end_of_record") - 20),
        error:
          /^the coverage report is invalid: LCOV report: the report ends inside the record for src\/pricing\.js \(no end_of_record\): it looks truncated \(at line \d+\)$/,
      },
      {
        name: "clover.xml",
        text: clover.slice(0, Math.floor(clover.length / 2)),
        error:
          /^the coverage report is invalid: Clover report: the document ends before <coverage> is closed \(inside <\w+>\): it looks truncated \(at line \d+\)$/,
      },
    ];
    for (const { name, text, error } of cases) {
      const answer = await upload(repository, aCommit(), { tool: "c8", name, key: "javascript", text });
      assert.equal(answer.ok, false, name);
      assert.match(answer.error, error);
    }
    const stored = await server.db
      .selectFrom("analysis_runs")
      .select("id")
      .where("repository_id", "=", repository.id)
      .execute();
    assert.deepEqual(stored, []);
    const artifacts = await server.db
      .selectFrom("artifacts")
      .select("id")
      .where("repository_id", "=", repository.id)
      .execute();
    assert.deepEqual(artifacts, []);
  });
  test("a file's percentages and the metric values round alike, a half up: 23 of 160 lines is 14.38 in both", async () => {
    // 14.375%: rounded from the binary fraction it once read 14.37 as LCV but 14.38 as the file's lineCoverage.
    const repository = await aRepository(server.db, account);
    const lines = Array.from({ length: 160 }, (_, i) => `DA:${i + 1},${i < 23 ? 1 : 0}`);
    const lcov = ["TN:", "SF:src/half.js", ...lines, "LF:160", "LH:23", "end_of_record", ""].join("\n");
    const accepted = await upload(repository, aCommit(), {
      tool: "c8",
      name: "lcov.info",
      key: "javascript",
      text: lcov,
    });
    assert.equal(accepted.ok, true, accepted.error);
    await processed(repository);
    const data = await query<{
      repository: {
        metrics: Array<{ items: Array<{ key: string; latestValue: number }> }>;
        coverageFiles: { edges: Array<{ node: { path: string; lineCoverage: number } }> };
      };
    }>(
      `query($login: String!, $name: String!) { repository(login: $login, name: $name, vcsProvider: GITHUB) {
        metrics(shortcodeIn: [LCV]) { items { key latestValue } }
        coverageFiles { edges { node { path lineCoverage } } } } }`,
      { login: account.login, name: repository.name },
    );
    assert.deepEqual(data.repository.metrics[0]!.items, [
      { key: "AGGREGATE", latestValue: 14.38 },
      { key: "JAVASCRIPT", latestValue: 14.38 },
    ]);
    assert.deepEqual(data.repository.coverageFiles.edges, [
      { node: { path: "src/half.js", lineCoverage: 14.38 } },
    ]);
  });
});
