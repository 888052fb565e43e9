// test-runner: execution-mode independent (uploads go through the intake and the worker, not GraphQL execution)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { AccountRow, AnalysisRunRow, RepositoryRow } from "../src/db/types.ts";
import { UploadError } from "../src/ingestion/errors.ts";
import { acceptUpload, type UploadAccepted } from "../src/ingestion/intake.ts";
import type { ArtifactUpload } from "../src/ingestion/types.ts";
import { findLatestValuesOfItems } from "../src/modules/metrics/metric-store.ts";
import { anAccount, aRepository, aUser } from "./helpers/builders.ts";
import { anUpload } from "./helpers/builders-artifacts.ts";
import { anIssueCategorySetting } from "./helpers/builders-metrics.ts";
import { waitFor } from "./helpers/instance.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The run's life (docs/ingestion.md): uploads for one commit join one run, processing settles
 * checks by the quality gate and the run from its checks, states are computed against the default
 * branch's last analysed run, repository-issue events follow the default branch, a run whose
 * expected artifact never arrives times out, and a report that fails processing fails its check.
 */

const { logger } = testLogger("ingestion");
let server: TestServer;
let account: AccountRow;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20", ASSAY_ARTIFACT_TIMEOUT_SECONDS: "1" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
});
after(() => server?.stop());

interface Finding {
  rule: string;
  path: string;
  line: number;
  message: string;
  level?: "error" | "warning" | "note";
}

/** A SARIF 2.1.0 log of `findings`, with rules for each rule id (security rules are SECURITY). */
function sarif(findings: readonly Finding[]): string {
  const rules = [...new Set(findings.map((f) => f.rule))].map((id) => ({
    id,
    shortDescription: { text: `Rule ${id}` },
    properties: id.startsWith("sec-")
      ? { tags: ["security"], "security-severity": "7.5" }
      : { tags: ["style"] },
  }));
  return JSON.stringify({
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "fixture-lint", rules } },
        results: findings.map((f) => ({
          ruleId: f.rule,
          level: f.level ?? "warning",
          message: { text: f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: f.path },
                region: { startLine: f.line, startColumn: 1, endLine: f.line, endColumn: 10 },
              },
            },
          ],
        })),
      },
    ],
  });
}

function upload(repository: RepositoryRow, fields: Partial<ArtifactUpload>): Promise<UploadAccepted> {
  return acceptUpload(
    server.db,
    server.config,
    logger,
    repository,
    anUpload({ commitOid: "a".repeat(40), data: sarif([]), ...fields }),
  );
}

async function runByKey(key: string): Promise<AnalysisRunRow> {
  return server.db.selectFrom("analysis_runs").selectAll().where("key", "=", key).executeTakeFirstOrThrow();
}

/** Waits until the run is no longer PENDING and answers it. */
async function settled(key: string, timeoutMs = 20_000): Promise<AnalysisRunRow> {
  await waitFor(`run ${key} to settle`, async () => (await runByKey(key)).status !== "PENDING", timeoutMs);
  return runByKey(key);
}

async function checksOf(run: AnalysisRunRow) {
  return server.db
    .selectFrom("checks")
    .innerJoin("analyzers", "analyzers.id", "checks.analyzer_id")
    .select(["checks.id", "checks.status", "analyzers.shortcode"])
    .where("checks.run_id", "=", run.id)
    .orderBy("checks.sequence")
    .execute();
}

async function statesOf(run: AnalysisRunRow): Promise<string[]> {
  const rows = await server.db
    .selectFrom("occurrences")
    .innerJoin("checks", "checks.id", "occurrences.check_id")
    .innerJoin("issues", "issues.id", "occurrences.issue_id")
    .select(["issues.shortcode", "occurrences.path", "occurrences.begin_line", "occurrences.state"])
    .where("checks.run_id", "=", run.id)
    .orderBy("occurrences.path")
    .orderBy("issues.shortcode")
    .orderBy("occurrences.begin_line")
    .execute();
  return rows.map((r) => `${r.state} ${r.shortcode} ${r.path}:${r.begin_line}`);
}

async function eventsOf(repository: RepositoryRow, type: string): Promise<Array<Record<string, unknown>>> {
  const rows = await server.db
    .selectFrom("webhook_events")
    .select("data")
    .where("account_id", "=", repository.account_id)
    .where("type", "=", type)
    .orderBy("id")
    .execute();
  return rows
    .map((row) => (typeof row.data === "string" ? JSON.parse(row.data) : row.data) as Record<string, unknown>)
    .filter((data) => {
      const object = data.object as { repository?: { id?: string } } | undefined;
      return JSON.stringify(object?.repository ?? {}).includes(repository.name);
    });
}

describe("a run's life", () => {
  test("the first upload makes a run and a check; processing settles them by the quality gate", async () => {
    const repository = await aRepository(server.db, account);
    const accepted = await upload(repository, {
      data: sarif([{ rule: "sec-eval", path: "src/a.js", line: 3, message: "eval is evil" }]),
    });
    assert.equal(accepted.duplicate, false);
    assert.match(accepted.message, /^Artifact successfully uploaded for repository .+ on commit a{40}\.$/);
    const pending = await runByKey(accepted.runKey);
    assert.equal(pending.branch_name, "main", "a DSN upload without a branch counts as the default branch");
    assert.equal(pending.base_run_id, null);

    const run = await settled(accepted.runKey);
    assert.equal(run.status, "FAILURE", "an introduced SECURITY finding can fail the check by default");
    assert.deepEqual(
      (await checksOf(run)).map((c) => [c.shortcode, c.status]),
      [["fixture-lint", "FAILURE"]],
    );
    assert.deepEqual(await statesOf(run), ["INTRODUCED sec-eval src/a.js:3"]);
    assert.equal((await eventsOf(repository, "analysis_run.started")).length, 1);
    const updated = await eventsOf(repository, "analysis_run.updated");
    assert.equal((updated.at(-1)?.object as { status?: string } | undefined)?.status, "FAILURE");
  });

  test("a category that cannot fail checks lets the run succeed", async () => {
    const repository = await aRepository(server.db, account);
    await anIssueCategorySetting(server.db, repository, "SECURITY", {
      isReported: true,
      canFailCheck: false,
    });
    const accepted = await upload(repository, {
      data: sarif([{ rule: "sec-eval", path: "src/a.js", line: 3, message: "eval is evil" }]),
    });
    const run = await settled(accepted.runKey);
    assert.equal(run.status, "SUCCESS");
  });

  test("uploads for one commit join one run with one check per analyzer; the same bytes twice are one artifact", async () => {
    const repository = await aRepository(server.db, account);
    const commitOid = "b".repeat(40);
    const first = await upload(repository, { commitOid, data: sarif([]) });
    const again = await upload(repository, { commitOid, data: sarif([]) });
    const other = await upload(repository, { commitOid, analyzer: "second-lint", data: sarif([]) });
    assert.equal(again.runKey, first.runKey);
    assert.equal(other.runKey, first.runKey);
    assert.equal(again.duplicate, true);
    assert.equal(again.artifactKey, first.artifactKey);
    const run = await settled(first.runKey);
    assert.equal(run.status, "SUCCESS");
    assert.deepEqual(
      (await checksOf(run)).map((c) => c.shortcode),
      ["fixture-lint", "second-lint"],
    );
    const artifacts = await server.db
      .selectFrom("artifacts")
      .select(sql<number>`count(*)::int`.as("n"))
      .where("run_id", "=", run.id)
      .executeTakeFirstOrThrow();
    assert.equal(artifacts.n, 2);
  });

  test("states are computed against the default branch's last analysed run, and repository-issue events follow it", async () => {
    const repository = await aRepository(server.db, account);
    const base = await upload(repository, {
      commitOid: "c".repeat(40),
      data: sarif([
        { rule: "keep", path: "src/a.js", line: 10, message: "kept finding" },
        { rule: "gone", path: "src/b.js", line: 5, message: "fixed later" },
      ]),
    });
    await settled(base.runKey);
    const next = await upload(repository, {
      commitOid: "d".repeat(40),
      branch: "main",
      data: sarif([
        { rule: "keep", path: "src/a.js", line: 14, message: "kept finding" },
        { rule: "new", path: "src/c.js", line: 1, message: "a new finding" },
      ]),
    });
    const run = await settled(next.runKey);
    assert.equal(run.base_oid, "c".repeat(40));
    assert.deepEqual(await statesOf(run), [
      "EXISTING keep src/a.js:14",
      "RESOLVED gone src/b.js:5",
      "INTRODUCED new src/c.js:1",
    ]);
    const introduced = await eventsOf(repository, "repository_issue.introduced");
    const resolved = await eventsOf(repository, "repository_issue.resolved");
    const shortcodeOf = (event: Record<string, unknown>) =>
      (event.object as { issue: { shortcode: string } }).issue.shortcode;
    assert.deepEqual(introduced.map(shortcodeOf).sort(), ["gone", "keep", "new"]);
    assert.deepEqual(resolved.map(shortcodeOf), ["gone"]);
    assert.equal(resolved[0]?.issueOccurrencesResolved, 1);
  });

  test("an introduced event lists the first 100 occurrences by path and line, and counts them all", async () => {
    const repository = await aRepository(server.db, account);
    // In reverse, so that the report's order is not the answer's.
    const findings = Array.from({ length: 130 }, (_, i) => ({
      rule: "many",
      path: "src/big.js",
      line: 130 - i,
      message: `finding ${i}`,
    }));
    const accepted = await upload(repository, { commitOid: "4".repeat(40), data: sarif(findings) });
    await settled(accepted.runKey);
    const [event] = await eventsOf(repository, "repository_issue.introduced");
    assert.ok(event);
    assert.equal(event.issueOccurrencesIntroduced, 130);
    const listed = (event.object as { occurrences: Array<{ beginLine: number }> }).occurrences;
    assert.deepEqual(
      listed.map((o) => o.beginLine),
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
  });

  test("a pull-request branch's run is compared with the default branch but does not move it", async () => {
    const repository = await aRepository(server.db, account);
    const base = await upload(repository, {
      commitOid: "e".repeat(40),
      data: sarif([{ rule: "keep", path: "src/a.js", line: 1, message: "kept" }]),
    });
    await settled(base.runKey);
    const feature = await upload(repository, {
      commitOid: "f".repeat(40),
      branch: "feature/x",
      data: sarif([]),
    });
    const run = await settled(feature.runKey);
    assert.equal(run.branch_name, "feature/x");
    assert.deepEqual(await statesOf(run), ["RESOLVED keep src/a.js:1"]);
    assert.equal((await eventsOf(repository, "repository_issue.resolved")).length, 0);
  });

  test("a pull request's run raises the contract's run events, and no repository-issue events", async () => {
    const repository = await aRepository(server.db, account);
    const base = await upload(repository, {
      commitOid: "1".repeat(40),
      data: sarif([{ rule: "keep", path: "src/a.js", line: 1, message: "kept" }]),
    });
    await settled(base.runKey);
    const introducedBefore = (await eventsOf(repository, "repository_issue.introduced")).length;
    const accepted = await upload(repository, {
      commitOid: "2".repeat(40),
      branch: "feature/pr-events",
      pullRequestNumber: 7,
      baseBranch: repository.default_branch,
      data: sarif([
        { rule: "keep", path: "src/a.js", line: 1, message: "kept" },
        { rule: "sec-new", path: "src/b.js", line: 3, message: "new in the pull request" },
      ]),
    });
    const run = await settled(accepted.runKey);
    assert.notEqual(run.pull_request_id, null);
    const ofRun = async (type: string) =>
      (await eventsOf(repository, type)).filter(
        (data) => (data.object as { runUid?: string }).runUid === run.run_uid,
      );
    const started = await ofRun("analysis_run.started");
    assert.equal(started.length, 1);
    assert.equal((started[0]!.object as { branchName: string }).branchName, "feature/pr-events");
    const updated = await ofRun("analysis_run.updated");
    assert.ok(updated.length >= 1);
    const last = updated.at(-1)!.object as {
      status: string;
      commitOid: string;
      summary: { occurrencesIntroduced: number };
    };
    assert.equal(last.commitOid, "2".repeat(40));
    assert.equal(last.summary.occurrencesIntroduced, 1);
    // Repository-issue events follow the default branch only.
    assert.equal((await eventsOf(repository, "repository_issue.introduced")).length, introducedBefore);
  });

  test("a configured analyzer whose artifact never arrives ends ARTIFACT_TIMEOUT and the run TIMEOUT", async () => {
    const repository = await aRepository(server.db, account);
    await server.db
      .updateTable("repositories")
      .set({
        config_json: JSON.stringify({
          version: 1,
          analyzers: [{ name: "python", enabled: true }, { name: "javascript" }],
        }),
      })
      .where("id", "=", repository.id)
      .execute();
    const stored = await server.db
      .selectFrom("repositories")
      .selectAll()
      .where("id", "=", repository.id)
      .executeTakeFirstOrThrow();
    const accepted = await upload(stored, { analyzer: "javascript", analyzerType: null, data: sarif([]) });
    const run = await settled(accepted.runKey);
    assert.equal(run.status, "TIMEOUT");
    assert.deepEqual(
      (await checksOf(run)).map((c) => [c.shortcode, c.status]),
      [
        ["python", "ARTIFACT_TIMEOUT"],
        ["javascript", "SUCCESS"],
      ],
    );
  });

  test("a finished run that gets another artifact is PENDING again, then settles", async () => {
    const repository = await aRepository(server.db, account);
    const commitOid = "1".repeat(40);
    const first = await upload(repository, { commitOid, data: sarif([]) });
    assert.equal((await settled(first.runKey)).status, "SUCCESS");
    const second = await upload(repository, {
      commitOid,
      analyzer: "second-lint",
      data: sarif([{ rule: "sec-x", path: "x.js", line: 1, message: "bad" }]),
    });
    assert.equal(second.runKey, first.runKey);
    assert.equal((await settled(second.runKey)).status, "FAILURE");
    const statuses = (await eventsOf(repository, "analysis_run.updated")).map(
      (event) => (event.object as { status: string }).status,
    );
    assert.deepEqual(statuses, ["SUCCESS", "PENDING", "FAILURE"]);
  });

  test("coverage of a branch other than the default counts for its check, not the repository's metrics", async () => {
    const repository = await aRepository(server.db, account);
    const lcov = (hits: number) => `SF:src/a.js\nDA:1,1\nDA:2,${hits}\nend_of_record\n`;
    const main = await upload(repository, {
      commitOid: "2".repeat(40),
      analyzer: "test-coverage",
      analyzerType: null,
      key: "javascript",
      data: lcov(0),
    });
    await settled(main.runKey);
    const feature = await upload(repository, {
      commitOid: "3".repeat(40),
      branch: "feature/tests",
      analyzer: "test-coverage",
      analyzerType: null,
      key: "javascript",
      data: lcov(4),
    });
    const featureRun = await settled(feature.runKey);
    const item = await server.db
      .selectFrom("repository_metric_items")
      .select("id")
      .where("repository_id", "=", repository.id)
      .where("metric_shortcode", "=", "LCV")
      .where("metric_key", "=", "AGGREGATE")
      .executeTakeFirstOrThrow();
    const latest = await findLatestValuesOfItems(server.db, [item.id]);
    assert.deepEqual(
      latest.map((v) => v.value),
      [50],
    );
    const featureValue = await server.db
      .selectFrom("metric_values")
      .innerJoin("checks", "checks.id", "metric_values.check_id")
      .select(["metric_values.value", "metric_values.on_default_branch"])
      .where("checks.run_id", "=", featureRun.id)
      .where("metric_values.item_id", "=", item.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(featureValue, { value: 100, on_default_branch: false });
  });

  test("refusals name the problem and store nothing", async () => {
    const repository = await aRepository(server.db, account);
    const count = async () =>
      (
        await sql<{
          n: number;
        }>`SELECT (SELECT count(*) FROM analysis_runs WHERE repository_id = ${repository.id})
          + (SELECT count(*) FROM artifacts WHERE repository_id = ${repository.id}) AS n`.execute(server.db)
      ).rows[0]?.n;
    const refusal = async (fields: Partial<ArtifactUpload>, problem: string, pattern: RegExp) => {
      await assert.rejects(upload(repository, fields), (error: unknown) => {
        assert.ok(error instanceof UploadError);
        assert.equal(error.problem, problem);
        assert.match(error.message, pattern);
        return true;
      });
    };
    await refusal({ commitOid: "abc12" }, "INVALID_COMMIT", /7 to 64 hexadecimal/);
    await refusal(
      { analyzer: "no-such-analyzer", analyzerType: null },
      "UNKNOWN_ANALYZER",
      /not in the catalog/,
    );
    await refusal(
      { analyzer: "test-coverage", key: "cobol" },
      "UNKNOWN_LANGUAGE",
      /unknown language key "cobol"/,
    );
    await refusal({ data: "{ not json" }, "INVALID_REPORT", /SARIF report is invalid/);
    await refusal({ data: JSON.stringify({ version: "2.0.0", runs: [] }) }, "INVALID_REPORT", /2\.0\.0/);
    await refusal({ branch: "bad..branch" }, "INVALID_INPUT", /not a valid branch name/);
    await refusal(
      {
        analyzer: "test-coverage",
        analyzerType: null,
        key: "python",
        data: '<?xml version="1.0"?>\n<coverage line-rate="0.5"><packages><package name="app">',
      },
      "INVALID_REPORT",
      /coverage report is invalid/,
    );
    await refusal(
      { analyzer: "changes", analyzerType: null, data: "this is not a diff" },
      "INVALID_REPORT",
      /changed lines are invalid/,
    );
    assert.equal(Number(await count()), 0);
  });
});

test("every check's issue counts equal its published findings after the tests above", () =>
  assertIssueCountsMatchFindings(server.db, "the tests above"));
