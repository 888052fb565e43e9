// test-runner: execution-mode independent (upgrades databases; the queries it sends are covered elsewhere in both modes)
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, describe, test } from "node:test";
import { Migrator, sql } from "kysely";
import type { RunningApp } from "../src/app.ts";
import { openDatabase } from "../src/db/database.ts";
import { migrationProvider } from "../src/db/migrations/index.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { artifactProcessingHandler } from "../src/ingestion/process-job.ts";
import { generatePat, hashPat } from "../src/modules/auth/pat.ts";
import { findBaseCheckId } from "../src/modules/checks/check-store.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { runArtifactJob } from "./helpers/builders-artifacts.ts";
import { createEmptyDatabase, type TestDatabase } from "./helpers/database.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { insert, insertOwner, insertPlain, type OldDb } from "./helpers/legacy-rows.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { gql } from "./helpers/server.ts";
import { upgradeAndStart } from "./helpers/upgrade-start.ts";

/**
 * A database an earlier version made upgrades in place and keeps every token, run and finding
 * (docs/architecture.md "Migrations"). For each earlier version, an empty database is migrated up
 * to that version's last migration only, filled with plain SQL valid at that version, then
 * upgraded the way a user upgrades: the embedded database by starting the app on its data
 * directory, PostgreSQL by `npm run migrate`'s function and then starting the app. Everything is
 * read back through the API with the token made before the upgrade.
 */

const PEPPER = "test-pepper-0123456789abcdef";

/** The earlier versions, each named by the last migration it had. */
const VERSIONS = [
  "0002-read-model",
  "0008-ingestion",
  "0011-coverage-check-files",
  "0019-queued-artifacts",
] as const;

/** What the data set written at one version holds, to compare with what the API answers. */
interface Written {
  token: string;
  email: string;
  login: string;
  repository: { name: string; key: string; dsnGeneration: number };
  headCommit: string;
  baseCommit: string;
  /** A run older than the base that ended TIMEOUT: its measured coverage is not the repository's. */
  timedOutCommit: string;
  /** Per occurrence of the head run's lint check: path, state and the severity it must read. */
  occurrences: Array<{ path: string; state: string; shortcode: string; category: string; severity: string }>;
  artifacts: Array<{ kind: string; sizeBytes: number; storedCount: number | null }>;
  coverageFiles: Array<{
    path: string;
    reportCount: number;
    lines: { total: number; covered: number };
    uncoveredLines: number[];
  }>;
  lcv: number;
  ddp: number;
  /** The open vulnerability occurrence of the head run's scan of the repository's target. */
  vulnerability: { identifier: string; package: string; version: string };
}

/** True when the database at `version` has had migration `name`. */
function has(version: string, name: string): boolean {
  return name <= version;
}

/** Writes a small, realistic data set with only the columns and tables `version` has. */
async function writeDataSet(db: OldDb, version: string): Promise<Written> {
  const { token, lastFour } = generatePat();
  const tag = version.slice(0, 4);
  const email = `owner-${tag}@example.test`;
  const login = `legacy-${tag}`;
  const repoKey = newRowKey();
  const headCommit = `${tag}${"b".repeat(36)}`;
  const baseCommit = `${tag}${"a".repeat(36)}`;
  const timedOutCommit = `${tag}${"9".repeat(36)}`;
  const written: Written = {
    token,
    email,
    login,
    repository: { name: "billing", key: repoKey, dsnGeneration: 3 },
    headCommit,
    baseCommit,
    timedOutCommit,
    occurrences: [],
    artifacts: [],
    coverageFiles: [],
    lcv: 72.5,
    ddp: 41,
    vulnerability: { identifier: `GHSA-${tag}-lega-cyv1`, package: `legacy-lib-${tag}`, version: "1.2.3" },
  };

  await db.transaction().execute(async (trx) => {
    const { userId, accountId } = await insertOwner(trx, {
      email: email,
      firstName: "Old",
      lastName: "Owner",
      login,
      tokenHash: hashPat(token, PEPPER),
      lastFour,
    });
    const repositoryId = await insert(trx, "repositories", {
      key: repoKey,
      account_id: accountId,
      name: "billing",
      default_branch: "main",
      is_activated: true,
      latest_commit_oid: headCommit,
      dsn_generation: 3,
      // A configuration set before uploads could carry one (as the demo's): kept by the upgrade.
      config_json: JSON.stringify(legacyConfig(tag)),
    });

    // A custom analyzer of this installation, so the built-in catalog the app upserts at start
    // leaves its rows alone, and the coverage analyzer.
    const lintId = await insert(trx, "analyzers", {
      key: newRowKey(),
      shortcode: `legacy-lint-${tag}`,
      name: "Legacy Lint",
      type: "CUSTOM",
    });
    const coverageId = await insert(trx, "analyzers", {
      key: newRowKey(),
      shortcode: "test-coverage",
      name: "Test Coverage",
    });
    const issue = async (shortcode: string, category: string, severity: string) => ({
      id: await insert(trx, "issues", {
        key: newRowKey(),
        analyzer_id: lintId,
        shortcode,
        title: `${shortcode} title`,
        category,
        severity,
      }),
      shortcode,
      category,
      severity,
    });
    const nullDeref = await issue("LL-001", "BUG_RISK", "CRITICAL");
    const naming = await issue("LL-002", "STYLE", "MINOR");
    const injection = await issue("LL-003", "SECURITY", "MAJOR");
    const deadCode = await issue("LL-004", "ANTI_PATTERN", "MINOR");
    // Ignore rules of every shape stored then; a TEST_PATTERN rule had to name its tests by a glob.
    for (const [issueId, type, glob] of [
      [naming.id, "TEST_PATTERN", "tests/**"],
      [deadCode.id, "PATTERN", "vendor/**"],
      [deadCode.id, "FOREVER", null],
    ] as const) {
      await insert(trx, "ignore_rules", {
        key: newRowKey(),
        repository_id: repositoryId,
        issue_id: issueId,
        level: "REPOSITORY",
        type,
        glob_pattern: glob,
        created_by: userId,
      });
    }

    const run = (commit: string, createdAt: string, baseRunId?: string, status = "SUCCESS") =>
      insert(trx, "analysis_runs", {
        key: newRowKey(),
        run_uid: randomUUID(),
        repository_id: repositoryId,
        branch_name: "main",
        commit_oid: commit,
        status,
        created_at: createdAt,
        updated_at: createdAt,
        finished_at: createdAt,
        ...(baseRunId !== undefined && has(version, "0008-ingestion") && { base_run_id: baseRunId }),
      });
    const check = (runId: string, analyzerId: string, sequence: number) =>
      insert(trx, "checks", {
        key: newRowKey(),
        run_id: runId,
        analyzer_id: analyzerId,
        sequence,
        status: "SUCCESS",
        finished_at: "2025-03-02T10:05:00Z",
      });
    const occurrence = (
      checkId: string,
      found: { id: string },
      path: string,
      state: string,
      extra: Record<string, unknown> = {},
    ) =>
      insert(trx, "occurrences", {
        key: newRowKey(),
        check_id: checkId,
        issue_id: found.id,
        path,
        begin_line: 10,
        end_line: 12,
        title: "a finding",
        fingerprint: `${path}:${found.id}`,
        state,
        ...extra,
      });

    // A pull request, so the migrations that add columns to pull requests meet a stored row.
    await insert(trx, "pull_requests", {
      key: newRowKey(),
      repository_id: repositoryId,
      number: 12,
      title: "Split invoices",
      branch: "split-invoices",
      base_branch: "main",
      ...(has(version, "0013-vcs-events") && { head_commit_oid: headCommit }),
    });

    const baseRunId = await run(baseCommit, "2025-03-01T10:00:00Z");
    const baseCheck = await check(baseRunId, lintId, 1);
    await occurrence(baseCheck, naming, "src/invoice.py", "INTRODUCED");
    await occurrence(baseCheck, deadCode, "src/legacy.py", "INTRODUCED");

    const headRunId = await run(headCommit, "2025-03-02T10:00:00Z", baseRunId);
    const headCheck = await check(headRunId, lintId, 1);
    const coverageCheck = await check(headRunId, coverageId, 2);

    let sarifArtifact: Record<string, unknown> = {};
    if (has(version, "0008-ingestion")) {
      const sarifId = await insert(trx, "artifacts", {
        key: newRowKey(),
        repository_id: repositoryId,
        run_id: headRunId,
        check_id: headCheck,
        kind: "SARIF",
        analyzer: `legacy-lint-${tag}`,
        reporter: "cli",
        compression: "NONE",
        stored_bytes: 2048,
        content_sha256: Buffer.alloc(32, 1),
        status: "PROCESSED",
        result: JSON.stringify({ read: 3, stored: 3, skipped: {}, warnings: [], counts: {} }),
        uploaded_by: userId,
        processed_at: "2025-03-02T10:04:00Z",
      });
      const coverageArtifactId = await insert(trx, "artifacts", {
        key: newRowKey(),
        repository_id: repositoryId,
        run_id: headRunId,
        check_id: coverageCheck,
        kind: "COVERAGE",
        analyzer: "test-coverage",
        language_key: "python",
        reporter: "cli",
        compression: "ZSTD",
        stored_bytes: 512,
        content_sha256: Buffer.alloc(32, 2),
        status: "PROCESSED",
        result: JSON.stringify({ read: 2, stored: 2, skipped: {}, warnings: [], counts: {} }),
        uploaded_by: userId,
        processed_at: "2025-03-02T10:04:30Z",
      });
      sarifArtifact = { artifact_id: sarifId };
      // 0010 fills report_bytes for uncompressed artifacts; a compressed one keeps its stored size.
      written.artifacts.push({ kind: "SARIF", sizeBytes: 2048, storedCount: 3 });
      written.artifacts.push({ kind: "COVERAGE", sizeBytes: 512, storedCount: 2 });
      const secondReportId = await insert(trx, "artifacts", {
        key: newRowKey(),
        repository_id: repositoryId,
        run_id: headRunId,
        check_id: coverageCheck,
        kind: "COVERAGE",
        analyzer: "test-coverage",
        language_key: "python",
        reporter: "cli",
        compression: "ZSTD",
        stored_bytes: 300,
        content_sha256: Buffer.alloc(32, 3),
        status: "PROCESSED",
        result: JSON.stringify({ read: 1, stored: 1, skipped: {}, warnings: [], counts: {} }),
        uploaded_by: userId,
        processed_at: "2025-03-02T10:04:40Z",
      });
      written.artifacts.push({ kind: "COVERAGE", sizeBytes: 300, storedCount: 1 });
      const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
      // Two reports of one language: src/tax.py is in both (covered where either ran it).
      const files = [
        {
          artifact: coverageArtifactId,
          path: "src/invoice.py",
          covered: range(1, 24),
          uncovered: range(25, 30),
        },
        { artifact: coverageArtifactId, path: "src/tax.py", covered: range(1, 5), uncovered: range(6, 10) },
        {
          artifact: secondReportId,
          path: "src/tax.py",
          covered: [...range(1, 3), ...range(6, 8)],
          uncovered: [4, 5, 9, 10],
        },
      ];
      for (const file of files) {
        await insertPlain(trx, "coverage_files", {
          check_id: coverageCheck,
          artifact_id: file.artifact,
          language_key: "python",
          path: file.path,
          lines_total: file.covered.length + file.uncovered.length,
          lines_covered: file.covered.length,
          branches_total: 0,
          branches_covered: 0,
          covered_lines: file.covered,
          uncovered_lines: file.uncovered,
        });
      }
      written.coverageFiles = [
        {
          path: "src/invoice.py",
          reportCount: 1,
          lines: { total: 30, covered: 24 },
          uncoveredLines: range(25, 30),
        },
        { path: "src/tax.py", reportCount: 2, lines: { total: 10, covered: 8 }, uncoveredLines: [9, 10] },
      ];
      if (has(version, "0011-coverage-check-files")) {
        // From 0011 the intake wrote the check's per-file rows itself.
        for (const file of written.coverageFiles) {
          await insertPlain(trx, "coverage_check_files", {
            check_id: coverageCheck,
            metric_key: "PYTHON",
            path: file.path,
            reports: file.reportCount,
            lines_total: file.lines.total,
            lines_covered: file.lines.covered,
            branches_total: 0,
            branches_covered: 0,
            uncovered_lines: file.uncoveredLines,
          });
        }
      }
    }

    // Two new findings, one still there from the base, one of the base gone.
    const perFindingSeverity = has(version, "0009-occurrence-severity");
    await occurrence(headCheck, nullDeref, "src/billing.py", "INTRODUCED", sarifArtifact);
    await occurrence(headCheck, injection, "src/db.py", "INTRODUCED", sarifArtifact);
    await occurrence(headCheck, naming, "src/invoice.py", "EXISTING", {
      ...sarifArtifact,
      // From 0009 a report may grade a finding itself; before, every finding is its issue's.
      ...(perFindingSeverity && { severity: "MAJOR" }),
    });
    await occurrence(headCheck, deadCode, "src/legacy.py", "RESOLVED");
    written.occurrences = [
      { path: "src/billing.py", state: "INTRODUCED", ...pick(nullDeref) },
      { path: "src/db.py", state: "INTRODUCED", ...pick(injection) },
      {
        path: "src/invoice.py",
        state: "EXISTING",
        ...pick(naming),
        ...(perFindingSeverity && { severity: "MAJOR" }),
      },
      { path: "src/legacy.py", state: "RESOLVED", ...pick(deadCode) },
    ];

    await insertPlain(trx, "coverage_reports", {
      check_id: coverageCheck,
      lines_total: 40,
      lines_covered: 29,
    });
    const item = (shortcode: string) =>
      insert(trx, "repository_metric_items", {
        key: newRowKey(),
        repository_id: repositoryId,
        metric_shortcode: shortcode,
        metric_key: "AGGREGATE",
      });
    const lcvItem = await item("LCV");
    const ddpItem = await item("DDP");
    await insert(trx, "metric_values", {
      key: newRowKey(),
      item_id: lcvItem,
      check_id: coverageCheck,
      commit_oid: headCommit,
      value: written.lcv,
      created_at: "2025-03-02T10:05:00Z",
    });
    // The timed-out run measured coverage before it ended: a value of a run that has not analysed
    // the code, which the repository does not show (migration 0032 marks it so on the upgrade).
    const timedOutRunId = await run(timedOutCommit, "2025-02-28T10:00:00Z", undefined, "TIMEOUT");
    await insert(trx, "metric_values", {
      key: newRowKey(),
      item_id: lcvItem,
      check_id: await check(timedOutRunId, coverageId, 1),
      commit_oid: timedOutCommit,
      value: 12.5,
      created_at: "2025-02-28T10:05:00Z",
    });
    // A dependency scan of the head run: one open vulnerability and one the base had, resolved.
    // From 0015 a scan belongs to the run's sca check; before, it stands on its run alone.
    const targetId = await insert(trx, "repository_targets", {
      key: newRowKey(),
      repository_id: repositoryId,
      ecosystem: "NPM",
      package_manager: "NPM",
      manifest_path: "package.json",
      lockfile_path: "package-lock.json",
    });
    const scaCheck = has(version, "0015-sbom-dependencies")
      ? {
          check_id: await check(
            headRunId,
            await insert(trx, "analyzers", {
              key: newRowKey(),
              shortcode: "sca",
              name: "Dependency Scanning",
            }),
            3,
          ),
        }
      : {};
    const scanId = await insert(trx, "sca_checks", {
      key: newRowKey(),
      run_id: headRunId,
      target_id: targetId,
      ...scaCheck,
    });
    const packageId = await insert(trx, "packages", {
      key: newRowKey(),
      ecosystem: "NPM",
      name: written.vulnerability.package,
    });
    const versionId = await insert(trx, "package_versions", {
      key: newRowKey(),
      package_id: packageId,
      version: written.vulnerability.version,
      version_type: "SEMVER",
    });
    for (const [identifier, state] of [
      [written.vulnerability.identifier, "INTRODUCED"],
      [`GHSA-${tag}-lega-cyv2`, "RESOLVED"],
    ] as const) {
      const vulnerabilityId = await insert(trx, "vulnerabilities", {
        key: newRowKey(),
        identifier,
        severity: "HIGH",
        published_at: "2025-01-01T00:00:00Z",
        updated_at: "2025-01-01T00:00:00Z",
      });
      await insert(trx, "vulnerability_occurrences", {
        key: newRowKey(),
        sca_check_id: scanId,
        vulnerability_id: vulnerabilityId,
        package_version_id: versionId,
        state,
      });
    }

    // DDP as it was stored before 0012 gave it its contract meaning: the value stays as written.
    await insert(trx, "metric_values", {
      key: newRowKey(),
      item_id: ddpItem,
      commit_oid: headCommit,
      value: written.ddp,
      created_at: "2025-03-02T10:05:00Z",
    });
  });
  return written;
}

function pick(issue: { shortcode: string; category: string; severity: string }) {
  return { shortcode: issue.shortcode, category: issue.category, severity: issue.severity };
}

/** Migrates the empty `database` up to `version` only, and writes the data set. */
async function buildOldDatabase(database: TestDatabase, version: string): Promise<Written> {
  const handle = await openDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    databasePoolSize: 2,
  });
  try {
    const migrator = new Migrator({ db: handle.db, provider: migrationProvider });
    const { error, results } = await migrator.migrateTo(version);
    if (error) throw error;
    assert.equal(results?.at(-1)?.migrationName, version);
    return await writeDataSet(handle.db as OldDb, version);
  } finally {
    await handle.close();
  }
}

/** The configuration the legacy repository has, listing its lint analyzer. */
function legacyConfig(tag: string): unknown {
  return { version: 1, analyzers: [{ name: `legacy-lint-${tag}`, enabled: true, meta: { strict: true } }] };
}

const REPOSITORY_QUERY = `query($login: String!, $name: String!) {
  viewer { email accounts { totalCount edges { node { login } } } }
  repository(login: $login, name: $name, vcsProvider: GITHUB) {
    id name defaultBranch dsn configJson
    ignoreRules(first: 10) { edges { node { type level globPattern issue { shortcode } } } }
    pullRequest(number: 12) { number title branch baseBranch state }
    analysisRuns(first: 5) { totalCount edges { node { commitOid status
      summary { occurrencesIntroduced occurrencesResolved occurrenceDistributionBySeverity { severity introduced } }
      checks(first: 5) { edges { node { analyzer { shortcode } status
        summary { occurrencesIntroduced occurrencesResolved }
        issues(first: 10) { totalCount edges { node { path shortcode category severity } } }
        artifacts(first: 5) { totalCount edges { node { kind format status sizeBytes readCount storedCount skippedCount skipped { reason count } warnings } } }
      } } } } } }
    issues(first: 20) { totalCount edges { node { issue { shortcode category severity } } } }
    coverageFiles(first: 20) { totalCount edges { node { path key reportCount lines { total covered } uncoveredLines } } }
    dependencyVulnerabilityOccurrences(first: 5) { totalCount edges { node {
      vulnerability { identifier } package { name } packageVersion { version } } } }
    metrics(shortcodeIn: [LCV, DDP]) { shortcode name unit maxValueAllowed
      items { key latestValue latestValueDisplay values(first: 10) { totalCount edges { node { value } } } } }
  }
}`;

interface Answer {
  viewer: { email: string; accounts: { totalCount: number; edges: Array<{ node: { login: string } }> } };
  repository: {
    id: string;
    name: string;
    defaultBranch: string;
    dsn: string;
    configJson: unknown;
    ignoreRules: {
      edges: Array<{
        node: { type: string; level: string; globPattern: string | null; issue: { shortcode: string } };
      }>;
    };
    pullRequest: { number: number; title: string; branch: string; baseBranch: string; state: string } | null;
    analysisRuns: {
      totalCount: number;
      edges: Array<{
        node: {
          commitOid: string;
          status: string;
          summary: {
            occurrencesIntroduced: number;
            occurrencesResolved: number;
            occurrenceDistributionBySeverity: Array<{ severity: string; introduced: number }>;
          };
          checks: {
            edges: Array<{
              node: {
                analyzer: { shortcode: string };
                status: string;
                summary: { occurrencesIntroduced: number; occurrencesResolved: number };
                issues: {
                  totalCount: number;
                  edges: Array<{
                    node: { path: string; shortcode: string; category: string; severity: string };
                  }>;
                };
                artifacts: {
                  totalCount: number;
                  edges: Array<{ node: Record<string, unknown> & { kind: string } }>;
                };
              };
            }>;
          };
        };
      }>;
    };
    issues: {
      totalCount: number;
      edges: Array<{ node: { issue: { shortcode: string; category: string; severity: string } } }>;
    };
    coverageFiles: {
      totalCount: number;
      edges: Array<{
        node: {
          path: string;
          key: string;
          reportCount: number;
          lines: { total: number; covered: number };
          uncoveredLines: number[];
        };
      }>;
    };
    dependencyVulnerabilityOccurrences: {
      totalCount: number;
      edges: Array<{
        node: {
          vulnerability: { identifier: string };
          package: { name: string };
          packageVersion: { version: string };
        };
      }>;
    };
    metrics: Array<{
      shortcode: string;
      name: string;
      unit: string | null;
      maxValueAllowed: number | null;
      items: Array<{
        key: string;
        latestValue: number | null;
        latestValueDisplay: string | null;
        values: { totalCount: number; edges: Array<{ node: { value: number } }> };
      }>;
    }>;
  };
}

const MINIMAL_SARIF = JSON.stringify({
  version: "2.1.0",
  $schema: "https://json.schemastore.org/sarif-2.1.0.json",
  runs: [{ tool: { driver: { name: "ESLint", rules: [] } }, results: [] }],
});

// The versions are independent databases, upgraded side by side.
describe("a database made by an earlier version", { concurrency: true }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  for (const version of VERSIONS) {
    test(`as of ${version}: upgrades in place and keeps its token, runs, findings, artifacts, coverage and metrics`, async () => {
      const database = await createEmptyDatabase();
      let app: RunningApp | undefined;
      cleanups.push(async () => {
        await app?.stop();
        await database.drop();
      });
      const written = await buildOldDatabase(database, version);
      const started = await upgradeAndStart(database, PEPPER);
      if (started.config.databaseUrl) {
        assert.ok(started.migrated.length > 0, "the old database had pending migrations");
      }
      app = started.app;
      const endpoint = `${app.url}/graphql/`;

      const { body } = await gql<Answer>(endpoint, written.token, REPOSITORY_QUERY, {
        login: written.login,
        name: written.repository.name,
      });
      assert.equal(body.errors, undefined, JSON.stringify(body.errors));
      const { viewer, repository } = body.data!;

      // The token made before the upgrade still authenticates, as the same user.
      assert.equal(viewer.email, written.email);
      assert.deepEqual(
        viewer.accounts.edges.map((e) => e.node.login),
        [written.login],
      );
      assert.equal(repository.defaultBranch, "main");
      // The repository keeps its configuration; the runs stored before 0028 have none.
      assert.deepEqual(repository.configJson, legacyConfig(version.slice(0, 4)));
      const configured = await app.database.db
        .selectFrom("analysis_runs")
        .select("id")
        .where("config_json", "is not", null)
        .execute();
      assert.equal(configured.length, 0);
      // Each check is given the check the rule names its base (0034): for the head run's lint
      // check, the base run's.
      const compared = await sql<{
        id: string;
        analyzer_id: string;
        base_run_id: string | null;
        base_check_id: string | null;
        lint: boolean;
      }>`
        SELECT c.id::text AS id, c.analyzer_id::text AS analyzer_id, r.base_run_id::text AS base_run_id,
          c.base_check_id::text AS base_check_id, a.shortcode LIKE 'legacy-lint-%' AND r.base_run_id IS NOT NULL AS lint
        FROM checks AS c JOIN analysis_runs AS r ON r.id = c.run_id JOIN analyzers AS a ON a.id = c.analyzer_id`.execute(
        app.database.db,
      );
      for (const check of compared.rows) {
        const rule: string | null =
          check.base_run_id === null
            ? null
            : await findBaseCheckId(app.database.db, check.base_run_id, check.analyzer_id);
        assert.equal(check.base_check_id, rule, `check ${check.id}`);
      }
      assert.equal(
        compared.rows.filter((check) => check.lint && check.base_check_id !== null).length,
        has(version, "0008-ingestion") ? 1 : 0,
      );
      // Every check stored before keeps the fingerprint version its findings were hashed with
      // (0038): version 1; a check inserted after the upgrade takes version 2.
      const versions = await sql<{ version: number; checks: number }>`
        SELECT fingerprint_version AS version, count(*)::int AS checks FROM checks GROUP BY 1`.execute(
        app.database.db,
      );
      assert.deepEqual(versions.rows, [{ version: 1, checks: compared.rows.length }]);
      // Nor a list of lockfiles (0030), so no target counts as gone: its vulnerabilities are below.
      const listed = await app.database.db
        .selectFrom("analysis_runs")
        .select("id")
        .where("lockfile_paths", "is not", null)
        .execute();
      assert.equal(listed.length, 0);
      // The ignore rules keep their globs (migration 0029 let TEST_PATTERN rules come without one).
      assert.deepEqual(
        repository.ignoreRules.edges
          .map(({ node }) => [node.issue.shortcode, node.type, node.globPattern])
          .sort((a, b) => String(a).localeCompare(String(b))),
        [
          ["LL-002", "TEST_PATTERN", "tests/**"],
          ["LL-004", "FOREVER", null],
          ["LL-004", "PATTERN", "vendor/**"],
        ],
      );
      // and the upgraded table takes a TEST_PATTERN rule that reads the configuration's test_patterns.
      const created = await gql<{
        createIgnoreRule: { ignoreRule: { type: string; globPattern: string | null } };
      }>(
        endpoint,
        written.token,
        `mutation($input: CreateIgnoreRuleInput!) { createIgnoreRule(input: $input) { ignoreRule { type globPattern } } }`,
        {
          input: {
            repositoryId: repository.id,
            issueShortcode: "LL-003",
            level: "REPOSITORY",
            type: "TEST_PATTERN",
          },
        },
      );
      assert.equal(created.body.errors, undefined, JSON.stringify(created.body.errors));
      assert.deepEqual(created.body.data?.createIgnoreRule.ignoreRule, {
        type: "TEST_PATTERN",
        globPattern: null,
      });
      assert.deepEqual(repository.pullRequest, {
        number: 12,
        title: "Split invoices",
        branch: "split-invoices",
        baseBranch: "main",
        state: "OPEN",
      });

      // Every run, newest first, with their summaries counted from the stored findings.
      assert.deepEqual(
        repository.analysisRuns.edges.map((e) => [e.node.commitOid, e.node.status]),
        [
          [written.headCommit, "SUCCESS"],
          [written.baseCommit, "SUCCESS"],
          [written.timedOutCommit, "TIMEOUT"],
        ],
      );
      const head = repository.analysisRuns.edges[0]!.node;
      assert.equal(head.summary.occurrencesIntroduced, 2);
      assert.equal(head.summary.occurrencesResolved, 1);
      assert.deepEqual(head.summary.occurrenceDistributionBySeverity, [
        { severity: "CRITICAL", introduced: 1 },
        { severity: "MAJOR", introduced: 1 },
      ]);

      const checks = new Map(head.checks.edges.map((e) => [e.node.analyzer.shortcode, e.node]));
      const lint = checks.get(`legacy-lint-${version.slice(0, 4)}`);
      assert.ok(lint, `the lint check is there: ${[...checks.keys()].join(", ")}`);
      assert.equal(lint.status, "SUCCESS");
      assert.deepEqual(lint.summary, { occurrencesIntroduced: 2, occurrencesResolved: 1 });
      // The check's findings (the RESOLVED one is the base's, gone here), each with the category of
      // its issue and its severity: the issue's for rows written before findings had their own.
      const open = written.occurrences.filter((o) => o.state !== "RESOLVED");
      assert.equal(lint.issues.totalCount, open.length);
      assert.deepEqual(
        lint.issues.edges.map((e) => e.node).sort((a, b) => a.path.localeCompare(b.path)),
        open.map(({ path, shortcode, category, severity }) => ({ path, shortcode, category, severity })),
      );

      // Repository.issues: the distinct issues of the current state's open findings.
      assert.deepEqual(
        repository.issues.edges.map((e) => e.node.issue.shortcode).sort(),
        [...new Set(open.map((o) => o.shortcode))].sort(),
      );
      assert.equal(repository.issues.totalCount, 3);
      // Migration 0020 counted the findings already stored, as their checks' writers now do.
      await assertIssueCountsMatchFindings(app.database.db, `the upgrade from ${version}`);

      // Artifacts: stored before 0010 they have no recorded format (null, as the schema allows),
      // and a size: the report's when it was stored uncompressed, else the stored bytes.
      const artifacts = [...checks.values()].flatMap((c) => c.artifacts.edges.map((e) => e.node));
      const bySize = (x: Record<string, unknown>, y: Record<string, unknown>) =>
        Number(x.sizeBytes) - Number(y.sizeBytes);
      assert.deepEqual(
        artifacts.sort(bySize),
        written.artifacts.sort(bySize).map((expected) => ({
          kind: expected.kind,
          format: null,
          status: "PROCESSED",
          sizeBytes: expected.sizeBytes,
          readCount: expected.storedCount,
          storedCount: expected.storedCount,
          skippedCount: 0,
          skipped: [],
          warnings: [],
        })),
      );

      // Per-file coverage: a check processed before 0011 answers the files 0016 filled in, a file
      // two reports named merged as the intake merges it.
      assert.equal(repository.coverageFiles.totalCount, written.coverageFiles.length);
      assert.deepEqual(
        repository.coverageFiles.edges.map(({ node }) => ({
          path: node.path,
          reportCount: node.reportCount,
          lines: node.lines,
          uncoveredLines: node.uncoveredLines,
        })),
        written.coverageFiles,
      );
      for (const { node } of repository.coverageFiles.edges) assert.equal(node.key, "PYTHON");

      // Metrics: the line coverage and the DDP value read back unchanged; DDP is read against the
      // definition of 0012 (a count of dependencies, no unit).
      const metrics = new Map(repository.metrics.map((m) => [m.shortcode, m]));
      const lcv = metrics.get("LCV")?.items.find((i) => i.key === "AGGREGATE");
      // The timed-out run's value is not one of them.
      assert.equal(lcv?.latestValue, written.lcv);
      assert.equal(lcv?.values.totalCount, 1);
      const ddp = metrics.get("DDP");
      assert.equal(ddp?.name, "External Dependencies");
      assert.equal(ddp?.unit, null);
      assert.equal(ddp?.maxValueAllowed, null);
      const ddpItem = ddp?.items.find((i) => i.key === "AGGREGATE");
      assert.equal(ddpItem?.latestValue, written.ddp);
      assert.deepEqual(
        ddpItem?.values.edges.map((e) => e.node.value),
        [written.ddp],
      );

      // The head run's scan is its target's current one (migration 0024 gave it its run's order),
      // and its open vulnerability is the repository's.
      assert.deepEqual(
        repository.dependencyVulnerabilityOccurrences.edges.map(({ node }) => ({
          identifier: node.vulnerability.identifier,
          package: node.package.name,
          version: node.packageVersion.version,
        })),
        [written.vulnerability],
      );
      assert.equal(repository.dependencyVulnerabilityOccurrences.totalCount, 1);

      // The DSN made before the upgrade (its generation kept) still uploads.
      const dsn = dsnToken(
        { key: written.repository.key, dsn_generation: written.repository.dsnGeneration },
        PEPPER,
      );
      assert.ok(repository.dsn.includes(`//${dsn}@`), "the repository's DSN is the one CI has");
      const upload = await fetch(`${app.url}/graphql/cli/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          query:
            "mutation($input: CreateArtifactInput!) { createArtifact(input: $input) { ok message error } }",
          variables: {
            input: {
              accessToken: dsn,
              commitOid: `${version.slice(0, 4)}${"c".repeat(36)}`,
              reporter: "cli",
              key: "",
              data: MINIMAL_SARIF,
              // The lint analyzer the old run reported with, so its report replaces that one's.
              analyzer: `legacy-lint-${version.slice(0, 4)}`,
              metadata: { compressed: "False" },
            },
          },
        }),
      });
      assert.equal(upload.status, 200);
      const uploaded = (await upload.json()) as { data: { createArtifact: { ok: boolean; error: string } } };
      assert.equal(uploaded.data.createArtifact.ok, true, uploaded.data.createArtifact.error);

      // Migration 0022 took the repository's issues as already announced: the run the upload makes,
      // whose lint report finds nothing, announces each of them resolved once, and none introduced
      // again.
      const { db } = app.database;
      const queued = await db.selectFrom("artifacts").select("id").where("status", "=", "QUEUED").execute();
      assert.equal(queued.length, 1);
      const handler = artifactProcessingHandler(db, started.config, testLogger("processing").logger);
      assert.deepEqual(await runArtifactJob(db, handler, queued[0]!.id), { status: "done" });
      const events = await db
        .selectFrom("webhook_events")
        .select(["type", (eb) => eb.fn.countAll<string>().as("n")])
        .where("type", "like", "repository_issue.%")
        .groupBy("type")
        .execute();
      assert.deepEqual(
        events.map((e) => [e.type, Number(e.n)]),
        [["repository_issue.resolved", 3]],
      );
    });
  }
});
