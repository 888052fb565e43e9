// test-runner: execution-mode independent (the runs are processed and rebased by jobs played here; the API is only read)
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalysisRunRow, RepositoryRow } from "../src/db/types.ts";
import { artifactProcessingHandler } from "../src/ingestion/process-job.ts";
import { rebaseRun, runRebaseHandler } from "../src/ingestion/run-rebase.ts";
import { JobWorker } from "../src/jobs/worker.ts";
import { REBASE_JOB_KIND } from "../src/modules/runs/rebase-job.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { acceptedArtifactId, anUpload, runArtifactJob } from "./helpers/builders-artifacts.ts";
import { waitFor } from "./helpers/instance.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * A pull request's run whose base run, the base branch's run of its merge base, stops being a
 * base (docs/ingestion.md "Where a run stands in the history"): a late artifact leaves that run
 * SKIPPED, its settlement queues the pull request's run's rebase, and the rebase compares it with
 * the base it would have had had the base run judged nothing from the start, which a second
 * repository given the same reports in that order shows. ESLint's reports of three versions of a
 * project (scripts/make-fixtures.sh pull-request), and the js-shards project's lint that could
 * not parse a file (test/fixtures/shards/, as test/run-history-rebase.test.ts uses it).
 */

const { logger } = testLogger("ingestion");
const REPORTS = path.resolve(import.meta.dirname, "fixtures", "pull-request");
/** Where make-fixtures.sh ran ESLint: the SARIF's absolute paths lie under it. */
const ESLINT_WORK_DIR = "/tmp/assay-fixtures/js-pull-request";
const SHARDS = path.resolve(import.meta.dirname, "fixtures", "shards");
/** The default branch's commits, oldest first, and the pull request's head. */
const [BASE, PUSH_1, PUSH_2, HEAD] = ["1", "2", "3", "5"].map((digit) => digit.repeat(40)) as [
  string,
  string,
  string,
  string,
];
const PULL_REQUEST_NUMBER = 7;

let server: TestServer;
let account: AccountRow;
let token: string;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER: "false" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

/**
 * Uploads ESLint's report of `version` (c8's coverage with `coverage`) for `commit` on main, with
 * its ancestors; answers the artifact's id.
 */
async function uploadToMain(
  repository: RepositoryRow,
  commit: string,
  version: string,
  ancestorOids: string[],
  { coverage = false } = {},
): Promise<string> {
  return acceptedArtifactId(
    server,
    repository,
    anUpload({
      commitOid: commit,
      branch: "main",
      ancestorOids,
      ...(coverage
        ? { analyzer: "test-coverage", analyzerType: null, key: "javascript" }
        : { analyzer: "eslint" }),
      data: await fs.readFile(path.join(REPORTS, `${version}.${coverage ? "lcov" : "sarif"}`), "utf8"),
      workDir: ESLINT_WORK_DIR,
    }),
  );
}

/**
 * Uploads ESLint's report of `version` for the pull request's head, as `assay upload --pr`
 * sends it: its branch, its base branch and where it meets main, no ancestry.
 */
async function uploadToPullRequest(repository: RepositoryRow, version: string, mergeBaseOid: string) {
  return acceptedArtifactId(
    server,
    repository,
    anUpload({
      commitOid: HEAD,
      branch: "feature",
      pullRequestNumber: PULL_REQUEST_NUMBER,
      baseBranch: "main",
      mergeBaseOid,
      analyzer: "eslint",
      data: await fs.readFile(path.join(REPORTS, `${version}.sarif`), "utf8"),
      workDir: ESLINT_WORK_DIR,
    }),
  );
}

/**
 * A late shard of `commit`'s lint: the js-shards server lint that could not parse a file, from a
 * directory that is not the checkout (lost behind the intake's back, which refuses a report whose
 * every result lies outside the repository). The file it could not analyze is not known, so the
 * run's ESLint check is NEUTRAL, and the run, `status` after it: SKIPPED without another check.
 */
async function aLateShardJudgingNothing(
  repository: RepositoryRow,
  commit: string,
  status = "SKIPPED",
): Promise<void> {
  const late = await acceptedArtifactId(
    server,
    repository,
    anUpload({
      commitOid: commit,
      branch: "main",
      analyzer: "eslint",
      data: await fs.readFile(path.join(SHARDS, "server.sarif"), "utf8"),
      workDir: "/tmp/assay-fixtures/js-shards",
    }),
  );
  await server.db.updateTable("artifacts").set({ work_dir: null }).where("id", "=", late).execute();
  await process(late);
  assert.equal((await runOf(repository, commit)).status, status);
}

/** Processes the artifact as the worker would. */
async function process(artifactId: string): Promise<void> {
  const handler = artifactProcessingHandler(server.db, server.config, logger);
  assert.deepEqual(await runArtifactJob(server.db, handler, artifactId), { status: "done" });
}

/** The run of `commit`. */
function runOf(repository: RepositoryRow, commit: string): Promise<AnalysisRunRow> {
  return server.db
    .selectFrom("analysis_runs")
    .selectAll()
    .where("repository_id", "=", repository.id)
    .where("commit_oid", "=", commit)
    .executeTakeFirstOrThrow();
}

/** The runs of the queued rebase jobs. */
async function queuedRebases(): Promise<string[]> {
  const rows = await server.db
    .selectFrom("jobs")
    .select("payload")
    .where("kind", "=", REBASE_JOB_KIND)
    .execute();
  return rows.map((row) => (row.payload as { runId: string }).runId);
}

/** Runs the queued rebases with a worker, until none is left. */
async function runRebases(): Promise<void> {
  const worker = new JobWorker({
    db: server.db,
    logger,
    handlers: [runRebaseHandler()],
    pollMs: 20,
    leaseSeconds: 60,
  }).start();
  try {
    await waitFor("the rebases to be settled", async () => (await queuedRebases()).length === 0, 20_000);
  } finally {
    await worker.stop(1000);
  }
}

const PULL_REQUEST = `query($login: String!, $name: String!, $number: Int!) {
  repository(login: $login, name: $name, vcsProvider: GITHUB) {
    pullRequest(number: $number) {
      summary { issuesRaised issuesResolved }
      latestAnalysisRun { commitOid baseOid status summary { occurrencesIntroduced occurrencesResolved } }
    }
  }
}`;

/** What the API says of the pull request: its counts, and its latest run's base and counts. */
async function pullRequestOf(repository: RepositoryRow): Promise<unknown> {
  const answer = await gql(server.endpoint, token, PULL_REQUEST, {
    login: account.login,
    name: repository.name,
    number: PULL_REQUEST_NUMBER,
  });
  return (dataOf(answer).repository as { pullRequest: unknown }).pullRequest;
}

describe("a pull request's run whose merge base's run a late artifact leaves SKIPPED", () => {
  test("is compared with the base branch's run before it, as if that run had judged nothing in order", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    await process(await uploadToMain(repository, BASE, "base", []));
    await process(await uploadToMain(repository, PUSH_1, "push-1", [BASE]));
    // The pull request branched at push 1 and fixes its unused variable.
    await process(await uploadToPullRequest(repository, "push-2", PUSH_1));
    const head = await runOf(repository, HEAD);
    assert.equal(head.base_oid, PUSH_1);
    assert.deepEqual(await pullRequestOf(repository), {
      summary: { issuesRaised: 0, issuesResolved: 1 },
      latestAnalysisRun: {
        commitOid: HEAD,
        baseOid: PUSH_1,
        status: "SUCCESS",
        summary: { occurrencesIntroduced: 0, occurrencesResolved: 1 },
      },
    });

    await aLateShardJudgingNothing(repository, PUSH_1);
    assert.ok((await queuedRebases()).includes(head.id), "the pull request's run's rebase is queued");
    await runRebases();

    // The same reports in order, push 1 judging nothing before the pull request's run is made.
    const inOrder = await aRepository(server.db, account, { defaultBranch: "main" });
    await process(await uploadToMain(inOrder, BASE, "base", []));
    await process(await uploadToMain(inOrder, PUSH_1, "push-1", [BASE]));
    await aLateShardJudgingNothing(inOrder, PUSH_1);
    await process(await uploadToPullRequest(inOrder, "push-2", PUSH_1));
    const expected = await pullRequestOf(inOrder);
    // Against base, push 1's `==` is the pull request's, and the unused variable was never there.
    assert.deepEqual(expected, {
      summary: { issuesRaised: 1, issuesResolved: 0 },
      latestAnalysisRun: {
        commitOid: HEAD,
        baseOid: BASE,
        status: "FAILURE",
        summary: { occurrencesIntroduced: 1, occurrencesResolved: 0 },
      },
    });
    assert.deepEqual(await pullRequestOf(repository), expected);
    assert.equal((await runOf(repository, HEAD)).base_run_id, (await runOf(repository, BASE)).id);
  });

  test("is compared with the base branch's newest analysed run made before it, as in order", async () => {
    // Main moved on past the merge base before the pull request's run was made: a run whose merge
    // base's run is not analysed is compared with the base branch's newest analysed run
    // (docs/vcs-events.md), and so is it once its merge base's run stops being analysed.
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    await process(await uploadToMain(repository, BASE, "base", []));
    await process(await uploadToMain(repository, PUSH_1, "push-1", [BASE]));
    await process(await uploadToMain(repository, PUSH_2, "push-2", [PUSH_1, BASE]));
    await process(await uploadToPullRequest(repository, "push-2", PUSH_1));
    assert.equal((await runOf(repository, HEAD)).base_oid, PUSH_1);

    await aLateShardJudgingNothing(repository, PUSH_1);
    await runRebases();

    const inOrder = await aRepository(server.db, account, { defaultBranch: "main" });
    await process(await uploadToMain(inOrder, BASE, "base", []));
    await process(await uploadToMain(inOrder, PUSH_1, "push-1", [BASE]));
    await aLateShardJudgingNothing(inOrder, PUSH_1);
    await process(await uploadToMain(inOrder, PUSH_2, "push-2", [PUSH_1, BASE]));
    await process(await uploadToPullRequest(inOrder, "push-2", PUSH_1));
    const expected = await pullRequestOf(inOrder);
    // The pull request's findings are push 2's: nothing raised or resolved against it.
    assert.deepEqual(expected, {
      summary: { issuesRaised: 0, issuesResolved: 0 },
      latestAnalysisRun: {
        commitOid: HEAD,
        baseOid: PUSH_2,
        status: "SUCCESS",
        summary: { occurrencesIntroduced: 0, occurrencesResolved: 0 },
      },
    });
    assert.deepEqual(await pullRequestOf(repository), expected);
    // Push 2 itself is compared with base again, past push 1.
    assert.equal((await runOf(repository, PUSH_2)).base_oid, BASE);
  });
});

describe("a pull request's run whose merge base's ESLint check a late artifact leaves NEUTRAL", () => {
  test("keeps its base run and compares its findings with the check before, as in order", async () => {
    /** Base, then push 1 with its coverage (c8's): push 1's run stays analysed whatever its lint says. */
    const mainOf = async (repository: RepositoryRow) => {
      await process(await uploadToMain(repository, BASE, "base", []));
      await process(await uploadToMain(repository, PUSH_1, "push-1", [BASE]));
      await process(await uploadToMain(repository, PUSH_1, "push-1", [BASE], { coverage: true }));
    };
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    await mainOf(repository);
    await process(await uploadToPullRequest(repository, "push-2", PUSH_1));
    const before = (await pullRequestOf(repository)) as { summary: unknown };
    assert.deepEqual(before.summary, { issuesRaised: 0, issuesResolved: 1 }, "the unused variable fixed");
    await aLateShardJudgingNothing(repository, PUSH_1, "SUCCESS");
    await runRebases();

    const inOrder = await aRepository(server.db, account, { defaultBranch: "main" });
    await mainOf(inOrder);
    await aLateShardJudgingNothing(inOrder, PUSH_1, "SUCCESS");
    await process(await uploadToPullRequest(inOrder, "push-2", PUSH_1));
    const expected = await pullRequestOf(inOrder);
    // Push 1's run is the base, its ESLint check says nothing: the findings are compared with base's.
    assert.deepEqual(expected, {
      summary: { issuesRaised: 1, issuesResolved: 0 },
      latestAnalysisRun: {
        commitOid: HEAD,
        baseOid: PUSH_1,
        status: "FAILURE",
        summary: { occurrencesIntroduced: 1, occurrencesResolved: 0 },
      },
    });
    assert.deepEqual(await pullRequestOf(repository), expected);
  });
});

describe("a default-branch run that moves to its pull request's branch after its base run was left SKIPPED", () => {
  test("is compared with the base branch's analysed run before it by the rebase that moves it", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    await process(await uploadToMain(repository, BASE, "base", []));
    await process(await uploadToMain(repository, PUSH_1, "push-1", [BASE]));
    // The head's report through the contract's createArtifact: no branch, so on main for want of
    // one, compared with push 1.
    const report = await fs.readFile(path.join(REPORTS, "push-2.sarif"), "utf8");
    const head = await acceptedArtifactId(
      server,
      repository,
      anUpload({ commitOid: HEAD, analyzer: "eslint", data: report, workDir: ESLINT_WORK_DIR }),
    );
    await process(head);
    assert.equal((await runOf(repository, HEAD)).base_oid, PUSH_1);
    // Push 1 judges nothing, and an upload names the head's pull request, before either rebase runs.
    await aLateShardJudgingNothing(repository, PUSH_1);
    await uploadToPullRequest(repository, "push-2", PUSH_1);
    const run = await runOf(repository, HEAD);
    assert.equal(run.branch_name, "main");

    // Either of the two queued rebases, run alone, moves it and compares it past push 1.
    await server.db.transaction().execute((tx) => rebaseRun(tx, run.id));
    const moved = await runOf(repository, HEAD);
    assert.equal(moved.branch_name, "feature");
    assert.equal(moved.base_oid, BASE, "not push 1, which is no longer analysed");
    await runRebases();
    assert.deepEqual(await pullRequestOf(repository), {
      summary: { issuesRaised: 1, issuesResolved: 0 },
      latestAnalysisRun: {
        commitOid: HEAD,
        baseOid: BASE,
        status: "FAILURE",
        summary: { occurrencesIntroduced: 1, occurrencesResolved: 0 },
      },
    });
  });
});
