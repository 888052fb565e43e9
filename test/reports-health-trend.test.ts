import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { AccountRow, AnalysisRunRow, RepositoryRow } from "../src/db/types.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { artifactProcessingHandler } from "../src/ingestion/process-job.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { runArtifactJob } from "./helpers/builders-artifacts.ts";
import { daysAgo } from "./helpers/builders-reports.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { aResult, sarifLog } from "./helpers/sarif-scene.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The code health trend's `resolved` on histories that ingestion wrote (docs/reports.md "Code
 * health trend"): each fix counted once, on the day of the first run whose check no longer has
 * the finding, also when runs of the default branch overlap. A run created while the run before
 * it is still pending is compared with the run before both (docs/ingestion.md "Base"), so both
 * hold the same RESOLVED rows; the report must not add them twice, nor miss a finding the pending
 * run introduced and the next run no longer has.
 *
 * The server's worker is off, so the test decides when each artifact is processed (with the
 * handler the worker runs): that is what keeps a run pending while the next one is created.
 */

const UPLOAD = `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }`;
const TREND = `query($id: ID!, $start: Date!, $end: Date!) { node(id: $id) { ... on Repository {
  reports { codeHealthTrend { currentValue values(startDate: $start, endDate: $end) { date values { key value } } } } } } }`;
const ACCOUNT_TREND = `query($login: String!, $start: Date!, $end: Date!) { account(login: $login, vcsProvider: GITHUB) {
  reports { codeHealthTrend { values(startDate: $start, endDate: $end) { date values { key value } } } } } }`;

interface Day {
  date: string;
  values: Array<{ key: string; value: number }>;
}

let server: TestServer;
let account: AccountRow;
let token: string;
let commitCounter = 0;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER: "false" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

function aCommit(): string {
  commitCounter += 1;
  return `${commitCounter.toString(16).padStart(8, "0")}${"cd34".repeat(8)}`;
}

/** A SARIF 2.1.0 log of `tool` with one result per finding, written `rule@path:line`. */
function sarif(findings: readonly string[], tool = "fixture-lint"): string {
  const results = findings.map((finding) => {
    const [rule, place] = finding.split("@") as [string, string];
    const [path, line] = place.split(":") as [string, string];
    return aResult(rule, path, Number(line));
  });
  const rules = [...new Set(findings.map((finding) => finding.split("@")[0]!))].map((id) => ({
    id,
    properties: { tags: ["style"] },
  }));
  return sarifLog([{ tool, rules, results }]);
}

/**
 * Uploads a report of the default branch, for a new commit unless one is given, of `analyzer`
 * (fixture-lint unless given); answers the commit and the artifact's id.
 */
async function upload(
  repository: RepositoryRow,
  findings: readonly string[],
  options: { commit?: string; analyzer?: string } = {},
): Promise<{ commit: string; artifactId: string }> {
  const commit = options.commit ?? aCommit();
  const response = await gql<{ uploadArtifact: { ok: boolean; error: string | null } }>(
    server.endpoint,
    token,
    UPLOAD,
    {
      input: {
        repositoryId: encodeGlobalId("Repository", repository.key),
        commitOid: commit,
        branch: "main",
        analyzer: options.analyzer ?? "fixture-lint",
        analyzerType: "community",
        data: sarif(findings, options.analyzer),
      },
    },
  );
  const answer = dataOf(response).uploadArtifact as { ok: boolean; error: string | null };
  assert.equal(answer.ok, true, answer.error ?? "");
  const artifact = await server.db
    .selectFrom("artifacts")
    .select("id")
    .where("repository_id", "=", repository.id)
    .orderBy("id", "desc")
    .executeTakeFirstOrThrow();
  return { commit, artifactId: artifact.id };
}

/** Processes the artifact as the worker would, start to finish. */
async function processArtifact(artifactId: string): Promise<void> {
  const handler = artifactProcessingHandler(server.db, server.config, testLogger("processing").logger);
  assert.deepEqual(await runArtifactJob(server.db, handler, artifactId), { status: "done" });
}

function runOf(commit: string): Promise<AnalysisRunRow> {
  return server.db
    .selectFrom("analysis_runs")
    .selectAll()
    .where("commit_oid", "=", commit)
    .executeTakeFirstOrThrow();
}

/** How many of the run's findings are in each state, as "STATE rule" sorted. */
async function statesOf(commit: string): Promise<string[]> {
  const rows = await server.db
    .selectFrom("occurrences")
    .innerJoin("checks", "checks.id", "occurrences.check_id")
    .innerJoin("analysis_runs", "analysis_runs.id", "checks.run_id")
    .innerJoin("issues", "issues.id", "occurrences.issue_id")
    .select(["occurrences.state", "issues.shortcode"])
    .where("analysis_runs.commit_oid", "=", commit)
    .execute();
  return rows.map((row) => `${row.state} ${row.shortcode}`).sort();
}

/**
 * Moves the runs, in the order given, to noon of one day each, `days` days ago (the order they
 * were created in is kept), with the creation time their checks copy.
 */
async function placeRuns(runs: ReadonlyArray<{ commit: string; days: number }>): Promise<void> {
  for (const { commit, days } of runs) {
    const at = new Date(`${daysAgo(days)}T12:00:00Z`);
    const run = await runOf(commit);
    await sql`UPDATE analysis_runs SET created_at = ${at} WHERE id = ${run.id}`.execute(server.db);
    await sql`UPDATE checks SET run_created_at = ${at} WHERE run_id = ${run.id}`.execute(server.db);
  }
}

const series = (days: readonly Day[], key: string) =>
  days.map((day) => day.values.find((value) => value.key === key)?.value ?? null);

describe("codeHealthTrend's resolved on ingested histories", () => {
  test("a fix is counted once, in the first run without it, when a run was created while the one before it was pending", async () => {
    const repository = await aRepository(server.db, account);
    const first = await upload(repository, ["keep@src/a.js:1", "gone@src/b.js:2", "gone@src/b.js:7"]);
    await processArtifact(first.artifactId);
    // The second run is still pending when the third is created: both are compared with the first.
    const second = await upload(repository, ["keep@src/a.js:1", "brief@src/e.js:5"]);
    const third = await upload(repository, ["keep@src/a.js:1"]);
    await processArtifact(second.artifactId);
    await processArtifact(third.artifactId);
    const fourth = await upload(repository, []);
    await processArtifact(fourth.artifactId);

    const firstRun = await runOf(first.commit);
    assert.equal((await runOf(second.commit)).base_run_id, firstRun.id);
    assert.equal(
      (await runOf(third.commit)).base_run_id,
      firstRun.id,
      "the third run shares the second's base",
    );
    assert.equal((await runOf(fourth.commit)).base_run_id, (await runOf(third.commit)).id);
    // What ingestion stored: the two fixes of `gone` are RESOLVED in both overlapping runs, and
    // `brief`, which only the second run had, is RESOLVED in neither.
    assert.deepEqual(await statesOf(second.commit), [
      "EXISTING keep",
      "INTRODUCED brief",
      "RESOLVED gone",
      "RESOLVED gone",
    ]);
    assert.deepEqual(await statesOf(third.commit), ["EXISTING keep", "RESOLVED gone", "RESOLVED gone"]);

    await placeRuns([
      { commit: first.commit, days: 4 },
      { commit: second.commit, days: 3 },
      { commit: third.commit, days: 2 },
      { commit: fourth.commit, days: 1 },
    ]);
    const variables = { start: daysAgo(4), end: daysAgo(0) };
    const response = await gql(server.endpoint, token, TREND, {
      id: encodeGlobalId("Repository", repository.key),
      ...variables,
    });
    const trend = (
      dataOf(response).node as {
        reports: { codeHealthTrend: { currentValue: number; values: Day[] } };
      }
    ).reports.codeHealthTrend;
    assert.deepEqual(series(trend.values, "active"), [3, 2, 1, 0, 0]);
    // `gone` twice on the second run's day, `brief` on the third's, `keep` on the fourth's.
    assert.deepEqual(series(trend.values, "resolved"), [0, 2, 1, 1, 0]);
    assert.equal(trend.currentValue, 0);

    const accountResponse = await gql(server.endpoint, token, ACCOUNT_TREND, {
      login: account.login,
      ...variables,
    });
    const accountTrend = (
      dataOf(accountResponse).account as { reports: { codeHealthTrend: { values: Day[] } } }
    ).reports.codeHealthTrend;
    assert.deepEqual(accountTrend.values, trend.values, "the account's trend reads the same facts");
  });

  test("a fix is counted once when an analyzer's report for the run before comes after the next run's", async () => {
    const repository = await aRepository(server.db, account);
    const late = { analyzer: "late-lint" };
    const first = await upload(repository, ["keep@src/a.js:1"]);
    await processArtifact(first.artifactId);
    const firstLate = await upload(repository, ["x@src/b.js:1", "y@src/b.js:2", "z@src/b.js:3"], {
      ...late,
      commit: first.commit,
    });
    await processArtifact(firstLate.artifactId);
    // The second commit's late-lint job is slow: the third commit's run is compared without it.
    const second = await upload(repository, ["keep@src/a.js:1"]);
    await processArtifact(second.artifactId);
    const third = await upload(repository, ["keep@src/a.js:1"]);
    await processArtifact(third.artifactId);
    const thirdLate = await upload(repository, ["z@src/b.js:3"], { ...late, commit: third.commit });
    await processArtifact(thirdLate.artifactId);
    // It ends: the second commit had fixed x.
    const secondLate = await upload(repository, ["y@src/b.js:2", "z@src/b.js:3"], {
      ...late,
      commit: second.commit,
    });
    await processArtifact(secondLate.artifactId);
    assert.deepEqual(
      (await statesOf(third.commit)).filter((state) => !state.endsWith("keep")),
      ["EXISTING z", "RESOLVED x", "RESOLVED y"],
      "the third run's late-lint check was compared with the first run's",
    );
    assert.deepEqual(
      (await statesOf(second.commit)).filter((state) => !state.endsWith("keep")),
      ["EXISTING y", "EXISTING z", "RESOLVED x"],
    );

    await placeRuns([
      { commit: first.commit, days: 3 },
      { commit: second.commit, days: 2 },
      { commit: third.commit, days: 1 },
    ]);
    const response = await gql(server.endpoint, token, TREND, {
      id: encodeGlobalId("Repository", repository.key),
      start: daysAgo(3),
      end: daysAgo(0),
    });
    const trend = (dataOf(response).node as { reports: { codeHealthTrend: { values: Day[] } } }).reports
      .codeHealthTrend;
    assert.deepEqual(series(trend.values, "active"), [4, 3, 2, 2]);
    // x on the second commit's day (its late report), y on the third's: x is not counted again.
    assert.deepEqual(series(trend.values, "resolved"), [0, 1, 1, 0]);
  });

  test("runs that do not overlap count each run's RESOLVED findings, and a finding fixed, back and fixed again at each fix", async () => {
    const repository = await aRepository(server.db, account);
    const runs: Array<{ commit: string; days: number }> = [];
    for (const [days, findings] of [
      [4, ["flaky@src/a.js:1", "fixed@src/b.js:2"]],
      [3, []],
      [2, ["flaky@src/a.js:1"]],
      [1, []],
    ] as const) {
      const uploaded = await upload(repository, findings);
      await processArtifact(uploaded.artifactId);
      runs.push({ commit: uploaded.commit, days });
    }
    await placeRuns(runs);
    const response = await gql(server.endpoint, token, TREND, {
      id: encodeGlobalId("Repository", repository.key),
      start: daysAgo(4),
      end: daysAgo(0),
    });
    const trend = (dataOf(response).node as { reports: { codeHealthTrend: { values: Day[] } } }).reports
      .codeHealthTrend;
    assert.deepEqual(series(trend.values, "active"), [2, 0, 1, 0, 0]);
    assert.deepEqual(series(trend.values, "resolved"), [0, 2, 0, 1, 0]);
  });
});
