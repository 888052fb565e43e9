// test-runner: execution-mode independent (one upload flow per test; the read queries are ordinary and covered elsewhere in both modes)
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { readToolFixture, readToolSummary, toolFixture } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import { aCommitOid, anIssuePrioritySetting } from "./helpers/builders-metrics.ts";
import { waitFor } from "./helpers/instance.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Severity and category through the real server (docs/ingestion.md "Severity of a finding"):
 * real tools' reports go up through `uploadArtifact`, and `Check.issues` answers each finding's
 * severity and category as the tool meant them; the quality gate reads the finding's own
 * severity, so the same rules fail a check at `error` and pass it at `warn`.
 */

const UPLOAD = `mutation Upload($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error }
}`;

const RUN = `query Run($commit: String!) {
  run(commitOid: $commit) {
    status
    checks { edges { node {
      status analyzer { shortcode }
      all: issues(first: 100) { totalCount edges { node { shortcode category severity path issue { severity } } } }
      major: issues(severity: MAJOR) { totalCount }
      minor: issues(severity: MINOR) { totalCount }
      critical: issues(severity: CRITICAL) { totalCount }
      summary { occurrencesIntroduced occurrenceDistributionBySeverity { severity introduced } }
    } } }
  }
}`;

interface IssueNode {
  shortcode: string;
  category: string;
  severity: string;
  path: string;
  issue: { severity: string };
}
interface CheckNode {
  status: string;
  analyzer: { shortcode: string };
  all: { totalCount: number; edges: Array<{ node: IssueNode }> };
  major: { totalCount: number };
  minor: { totalCount: number };
  critical: { totalCount: number };
  summary: {
    occurrencesIntroduced: number;
    occurrenceDistributionBySeverity: Array<{ severity: string; introduced: number }>;
  };
}

let server: TestServer;
let account: AccountRow;
let token: string;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

/** Uploads `report` for `commit` as `analyzer`'s SARIF (a community analyzer unless `core`). */
async function upload(
  repository: RepositoryRow,
  commit: string,
  analyzer: string,
  report: string,
  workDir: string,
  core = false,
): Promise<void> {
  const answer = dataOf(
    await gql(server.endpoint, token, UPLOAD, {
      input: {
        repositoryId: encodeGlobalId("Repository", repository.key),
        commitOid: commit,
        branch: repository.default_branch,
        analyzer,
        analyzerType: core ? null : "community",
        data: report,
        workDir,
      },
    }),
  );
  assert.deepEqual(answer.uploadArtifact, { ok: true, error: "" });
}

/** The run's checks once it is no longer PENDING, by analyzer shortcode. */
async function checksOf(commit: string, expected: number): Promise<Map<string, CheckNode>> {
  let checks: CheckNode[] = [];
  await waitFor(
    `the run of ${commit} to settle`,
    async () => {
      const response = await gql<{ run: { status: string; checks: { edges: Array<{ node: CheckNode }> } } }>(
        server.endpoint,
        token,
        RUN,
        { commit },
      );
      const run = response.body.data?.run;
      checks = run?.checks.edges.map((edge) => edge.node) ?? [];
      return run !== undefined && run.status !== "PENDING" && checks.length === expected;
    },
    30_000,
  );
  return new Map(checks.map((check) => [check.analyzer.shortcode, check]));
}

describe("severity through the API", () => {
  it("answers each finding of real ESLint and secretlint reports with the severity and category the tool meant", async () => {
    const repository = await aRepository(server.db, account);
    const commit = aCommitOid();
    const eslint = toolFixture("sarif", "eslint", "eslint.sarif");
    const secretlint = toolFixture("sarif", "secretlint", "secretlint.sarif");
    await upload(
      repository,
      commit,
      "eslint",
      readToolFixture("sarif", "eslint", "eslint.sarif"),
      eslint.workDir,
    );
    await upload(
      repository,
      commit,
      "secretlint",
      readToolFixture("sarif", "secretlint", "secretlint.sarif"),
      secretlint.workDir,
    );
    const checks = await checksOf(commit, 2);

    const lint = checks.get("eslint")!;
    const summary = readToolSummary("sarif", "eslint", "eslint.sarif").figures as {
      errors: number;
      warnings: number;
      withoutRule: Array<{ level: string }>;
    };
    // ESLint counts its problems of no rule (an unused directive) among its errors: not findings.
    const without = (level: string) => summary.withoutRule.filter((notice) => notice.level === level).length;
    const figures = {
      errors: summary.errors - without("error"),
      warnings: summary.warnings - without("warning"),
    };
    assert.equal(lint.all.totalCount, figures.errors + figures.warnings);
    assert.equal(lint.major.totalCount, figures.errors, "ESLint's errors are MAJOR");
    assert.equal(lint.minor.totalCount, figures.warnings, "ESLint's warnings are MINOR");
    const byRule = new Map(
      lint.all.edges.map(({ node }) => [node.shortcode, `${node.category} ${node.severity}`]),
    );
    assert.equal(byRule.get("no-undef"), "BUG_RISK MAJOR");
    assert.equal(byRule.get("no-eval"), "SECURITY MAJOR");
    assert.equal(byRule.get("eqeqeq"), "ANTI_PATTERN MINOR");
    assert.equal(lint.status, "FAILURE", "MAJOR bug risks can fail the check by default");
    // Everything is new in a first run: the summary's severity split is the tool's error/warning split.
    assert.deepEqual(lint.summary.occurrenceDistributionBySeverity, [
      { severity: "MAJOR", introduced: figures.errors },
      { severity: "MINOR", introduced: figures.warnings },
    ]);

    const secrets = checks.get("secretlint")!;
    assert.equal(secrets.all.totalCount, 7);
    assert.equal(secrets.critical.totalCount, 7);
    assert.deepEqual(secrets.summary.occurrenceDistributionBySeverity, [
      { severity: "CRITICAL", introduced: 7 },
    ]);
    assert.ok(
      secrets.all.edges.every(({ node }) => node.category === "SECRETS" && node.severity === "CRITICAL"),
    );
    assert.ok(secrets.all.edges.some(({ node }) => node.path === "config/settings.py"));
  });

  describe("the quality gate", () => {
    const require = createRequire(import.meta.url);
    const { ESLint } = require("eslint") as {
      ESLint: new (
        options: Record<string, unknown>,
      ) => {
        lintFiles(patterns: string[]): Promise<unknown[]>;
        getRulesMetaForResults(results: unknown[]): unknown;
      };
    };
    const formatSarif = require("@microsoft/eslint-formatter-sarif") as (
      results: unknown[],
      data: { cwd: string; rulesMeta: unknown },
    ) => string;
    const RULES = ["no-unused-vars", "no-undef", "use-isnan", "no-self-assign"];
    let workDir = "";

    before(async () => {
      // The fixtures' lint project, linted now by the ESLint installed here.
      workDir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "assay-severity-")));
      await fs.cp(
        path.resolve(import.meta.dirname, "fixtures/tools/js-lint/src"),
        path.join(workDir, "src"),
        {
          recursive: true,
        },
      );
    });
    after(() => fs.rm(workDir, { recursive: true, force: true }));

    /** ESLint over the project's JavaScript with the correctness rules at `level`. */
    async function lint(level: "error" | "warn"): Promise<string> {
      const eslint = new ESLint({
        cwd: workDir,
        useEslintrc: false,
        overrideConfig: {
          parserOptions: { ecmaVersion: 2022, sourceType: "module" },
          globals: { console: "readonly" },
          rules: Object.fromEntries(RULES.map((rule) => [rule, level])),
        },
      });
      const results = await eslint.lintFiles(["src"]);
      return formatSarif(results, { cwd: workDir, rulesMeta: eslint.getRulesMetaForResults(results) });
    }

    it("fails on MAJOR findings of a category that can fail checks and passes when MINOR ones alone are introduced", async () => {
      // A core analyzer whose catalog rates the rules MAJOR: uploads do not regrade its existing
      // issues, so only the findings' own severities tell the two runs apart.
      const analyzer = await anAnalyzer(server.db, { type: "CORE" });
      for (const shortcode of RULES) await anIssue(server.db, analyzer, { shortcode, severity: "MAJOR" });
      const outcomes: Record<string, { status: string; major: number; minor: number }> = {};
      for (const level of ["warn", "error"] as const) {
        // A repository of its own per level, so every finding is introduced; LOW priority (MINOR)
        // cannot fail its checks, BUG_RISK keeps its default (it can).
        const repository = await aRepository(server.db, account);
        await anIssuePrioritySetting(server.db, repository, "LOW", { isReported: true, canFailCheck: false });
        const commit = aCommitOid();
        await upload(repository, commit, analyzer.shortcode, await lint(level), workDir, true);
        const check = (await checksOf(commit, 1)).get(analyzer.shortcode)!;
        assert.ok(
          check.all.edges.every(
            ({ node }) => node.category === "BUG_RISK" && node.issue.severity === "MAJOR",
          ),
        );
        outcomes[level] = {
          status: check.status,
          major: check.major.totalCount,
          minor: check.minor.totalCount,
        };
      }
      const found = outcomes.warn!.minor;
      assert.ok(found > 0, "the project has findings");
      assert.deepEqual(outcomes, {
        warn: { status: "SUCCESS", major: 0, minor: found },
        error: { status: "FAILURE", major: found, minor: 0 },
      });
    });
  });
});

it("every check's issue counts equal its published findings after the tests above", () =>
  assertIssueCountsMatchFindings(server.db, "the tests above"));
