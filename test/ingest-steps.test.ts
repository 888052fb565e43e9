// test-runner: execution-mode independent (the read query is ordinary; what matters is what the database holds when)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { artifactProcessingHandler, GAVE_UP_PROBLEM } from "../src/ingestion/process-job.ts";
import { rebaseRun } from "../src/ingestion/run-rebase.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { acceptedArtifactId, anUpload, claimArtifactJob, settleJob } from "./helpers/builders-artifacts.ts";
import { generatedSarifChunks } from "./helpers/generated-sarif.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * SARIF processing in steps (docs/ingestion.md "Processing in steps"): the occurrences are
 * written in short transactions while the artifact is QUEUED, and no read shows any of them until
 * the one transaction that publishes them all; an attempt whose lease another worker took records
 * nothing, and the next attempt replaces what an abandoned one wrote.
 */

/** More than one step's worth of rows on either database (1,000 embedded, 5,000 PostgreSQL). */
const RESULTS = 6_000;

let server: TestServer;
let account: AccountRow;
let repository: RepositoryRow;
let token: string;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER: "false" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, { login: "acme" }, [{ user, role: "MEMBER" }]);
  repository = await aRepository(server.db, account, { name: "shop" });
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

const handler = () => artifactProcessingHandler(server.db, server.config, testLogger("processing").logger);

/**
 * Uploads a generated report of RESULTS findings for `commit` (on the default branch unless
 * `fields` say otherwise); answers the artifact's id.
 */
async function upload(
  commit: string,
  fields: { branch?: string; pullRequestNumber?: number; baseBranch?: string } = {},
): Promise<string> {
  return acceptedArtifactId(
    server,
    repository,
    anUpload({
      commitOid: commit,
      ...fields,
      analyzer: "generated-lint",
      data: [...generatedSarifChunks({ results: RESULTS })].join(""),
    }),
  );
}

/** What the API shows of the run of `commit`: its status, its check's findings and its summary. */
async function shown(commit: string): Promise<{ status: string; findings: number; introduced: number }> {
  const answer = await gql(
    server.endpoint,
    token,
    `query($commit: String!) { run(commitOid: $commit) { status summary { occurrencesIntroduced }
        checks(first: 1) { edges { node { issues(first: 1) { totalCount } occurrences(first: 1) { totalCount } } } } } }`,
    { commit },
  );
  const run = dataOf(answer).run as {
    status: string;
    summary: { occurrencesIntroduced: number };
    checks: {
      edges: Array<{ node: { issues: { totalCount: number }; occurrences: { totalCount: number } } }>;
    };
  };
  const check = run.checks.edges[0]?.node;
  assert.equal(check?.issues.totalCount, check?.occurrences.totalCount);
  return {
    status: run.status,
    findings: check?.issues.totalCount ?? -1,
    introduced: run.summary.occurrencesIntroduced,
  };
}

async function rowsOf(artifactId: string): Promise<number> {
  const result = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM occurrences WHERE artifact_id = ${artifactId}`.execute(server.db);
  return result.rows[0]?.n ?? -1;
}

test("the staged rows are in the database but no read shows them until the publishing transaction", async () => {
  const commit = "1".repeat(40);
  const artifactId = await upload(commit);
  const job = await claimArtifactJob(server.db, artifactId);
  const settlement = await handler().run(job, new AbortController().signal);

  assert.equal(await rowsOf(artifactId), RESULTS, "every row is written before publishing");
  assert.deepEqual(await shown(commit), { status: "PENDING", findings: 0, introduced: 0 });

  assert.deepEqual(await settleJob(server.db, job, settlement), { status: "done" });
  // Every finding is new, and new findings fail the check by default.
  assert.deepEqual(await shown(commit), { status: "FAILURE", findings: RESULTS, introduced: RESULTS });
});

test("an attempt whose lease another worker took records nothing; that worker's attempt replaces its rows", async () => {
  const commit = "2".repeat(40);
  const artifactId = await upload(commit);
  const first = await claimArtifactJob(server.db, artifactId);
  const abandoned = await handler().run(first, new AbortController().signal);
  assert.equal(await rowsOf(artifactId), RESULTS);

  // The first attempt's lease ran out and another worker claimed the job.
  const second = await claimArtifactJob(server.db, artifactId);
  assert.equal(await settleJob(server.db, first, abandoned), "lost");
  assert.deepEqual(await shown(commit), { status: "PENDING", findings: 0, introduced: 0 });

  // A step of the first attempt after the takeover stops it before it writes.
  const late = await handler().run(first, new AbortController().signal);
  assert.equal(await settleJob(server.db, first, late), "lost");

  const retried = await handler().run(second, new AbortController().signal);
  assert.equal(await rowsOf(artifactId), RESULTS, "the abandoned attempt's rows were replaced, not added to");
  assert.deepEqual(await settleJob(server.db, second, retried), { status: "done" });
  // The first test's run is this one's base, with the same findings: none is new.
  assert.deepEqual(await shown(commit), { status: "SUCCESS", findings: RESULTS, introduced: 0 });
  const keys = await sql<{ n: number }>`
    SELECT count(DISTINCT fingerprint)::int AS n FROM occurrences WHERE artifact_id = ${artifactId}`.execute(
    server.db,
  );
  assert.equal(keys.rows[0]?.n, RESULTS, "each finding once");
});

test("an artifact staged against one base and published after its run was rebased is compared with the new base", async () => {
  const commit = "3".repeat(40);
  // A push on a feature branch: compared with the default branch, whose last run (the test
  // above) has the same findings, so every staged row is EXISTING.
  const artifactId = await upload(commit, { branch: "feature" });
  const job = await claimArtifactJob(server.db, artifactId);
  const settlement = await handler().run(job, new AbortController().signal);

  // Meanwhile the pull request's job uploads the same report naming it: the run joins the pull
  // request into develop, which has no analysed run, and is rebased (as its job would).
  await upload(commit, { branch: "feature", pullRequestNumber: 9, baseBranch: "develop" });
  const run = await server.db
    .selectFrom("analysis_runs")
    .select("id")
    .where("commit_oid", "=", commit)
    .executeTakeFirstOrThrow();
  assert.equal(await server.db.transaction().execute((tx) => rebaseRun(tx, run.id)), true);

  assert.deepEqual(await settleJob(server.db, job, settlement), { status: "done" });
  // Nothing to compare with on develop: every finding is new.
  assert.deepEqual(await shown(commit), { status: "FAILURE", findings: RESULTS, introduced: RESULTS });
});

test("an artifact whose processing the worker gives up on FAILS without its staged rows, and its run settles", async () => {
  const commit = "4".repeat(40);
  const artifactId = await upload(commit);
  const job = await claimArtifactJob(server.db, artifactId);
  // Staged, then (as if every attempt had ended in an error of the server) given up.
  await handler().run(job, new AbortController().signal);
  assert.equal(await rowsOf(artifactId), RESULTS);
  await server.db.transaction().execute((tx) => handler().gaveUp?.(tx, job) ?? Promise.resolve());

  assert.equal(await rowsOf(artifactId), 0, "the staged rows are deleted");
  const artifact = await server.db
    .selectFrom("artifacts")
    .select(["status", "error"])
    .where("id", "=", artifactId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(artifact, { status: "FAILED", error: GAVE_UP_PROBLEM });
  // A check with a failed artifact fails: what the analyzer found is not known.
  assert.deepEqual(await shown(commit), { status: "FAILURE", findings: 0, introduced: 0 });

  // A processed artifact is never failed by a late give-up.
  const processedId = await upload("5".repeat(40));
  const processing = await claimArtifactJob(server.db, processedId);
  assert.deepEqual(
    await settleJob(server.db, processing, await handler().run(processing, new AbortController().signal)),
    { status: "done" },
  );
  await server.db.transaction().execute((tx) => handler().gaveUp?.(tx, processing) ?? Promise.resolve());
  assert.equal(await rowsOf(processedId), RESULTS);
});

test("every check's issue counts equal its published findings after the tests above", () =>
  assertIssueCountsMatchFindings(server.db, "the tests above"));
