// test-runner: execution-mode independent (the runs are processed and rebased by jobs played here; the API is not read)
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { AccountRow, AnalysisRunRow, RepositoryRow } from "../src/db/types.ts";
import { artifactProcessingHandler } from "../src/ingestion/process-job.ts";
import { runRebaseHandler } from "../src/ingestion/run-rebase.ts";
import { JobWorker } from "../src/jobs/worker.ts";
import { countCheckFindingsByState } from "../src/modules/checks/issue-count-store.ts";
import { enqueueRunRebases, REBASE_JOB_KIND } from "../src/modules/runs/rebase-job.ts";
import { anAccount, aRepository, aUser } from "./helpers/builders.ts";
import { acceptedArtifactId, anUpload, runArtifactJob } from "./helpers/builders-artifacts.ts";
import { waitFor } from "./helpers/instance.ts";
import { aSettlingRebase, untilWaitingForALock } from "./helpers/lock-waits.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { importLodashAdvisory, rootSbom, webSbom } from "./helpers/sbom-scene.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * A late run of an older commit on the default branch, as its jobs see it (docs/ingestion.md
 * "Where a run stands in the history"): the transaction settling it queues the rebase of the
 * newer runs compared further back, as job rows of their own, and the rebase compares each with
 * its nearest analysed ancestor. ESLint's reports of three versions of a project
 * (scripts/make-fixtures.sh pull-request; test/run-history.test.ts uploads them with `assay
 * upload` and reads the API) are uploaded here with the ancestry `assay upload` would send.
 */

const { logger } = testLogger("ingestion");
const REPORTS = path.resolve(import.meta.dirname, "fixtures", "pull-request");
/** Where make-fixtures.sh ran ESLint: the SARIF's absolute paths lie under it. */
const ESLINT_WORK_DIR = "/tmp/assay-fixtures/js-pull-request";
/** ESLint's lints of the js-shards project (test/fixtures/shards/, made as test/ingest-unanalyzed.test.ts says). */
const SHARDS = {
  dir: path.resolve(import.meta.dirname, "fixtures", "shards"),
  workDir: "/tmp/assay-fixtures/js-shards",
};
/** The commits, oldest first: base, then push 1, then push 2, then push 3 (push 2's code again). */
const [BASE, PUSH_1, PUSH_2, PUSH_3] = ["1", "2", "3", "4"].map((digit) => digit.repeat(40)) as [
  string,
  string,
  string,
  string,
];

let server: TestServer;
let account: AccountRow;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER: "false" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
});
after(() => server?.stop());

/**
 * Uploads ESLint's report of `version` (c8's coverage with `coverage`) for `commit` on main with
 * its ancestors (and the lockfiles its tree holds, when given); answers the artifact's id. The
 * reports are the pull-request project's, unless `project` names other ones.
 */
async function upload(
  repository: RepositoryRow,
  commit: string,
  version: string,
  ancestorOids: string[],
  {
    coverage = false,
    project = { dir: REPORTS, workDir: ESLINT_WORK_DIR },
    lockfilePaths = null as string[] | null,
  } = {},
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
      data: await fs.readFile(path.join(project.dir, `${version}.${coverage ? "lcov" : "sarif"}`), "utf8"),
      workDir: project.workDir,
      lockfilePaths,
    }),
  );
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

/** The eslint check of `commit`'s run: its status, the check it was compared with, its findings by state. */
async function checkOf(repository: RepositoryRow, commit: string) {
  const run = await runOf(repository, commit);
  const check = await server.db
    .selectFrom("checks")
    .innerJoin("analyzers", "analyzers.id", "checks.analyzer_id")
    .select(["checks.id", "checks.status", "checks.base_check_id"])
    .where("checks.run_id", "=", run.id)
    .where("analyzers.shortcode", "=", "eslint")
    .executeTakeFirstOrThrow();
  const findings = await server.db
    .selectFrom("occurrences")
    .select(["id", "state"])
    .where("check_id", "=", check.id)
    .orderBy("id")
    .execute();
  return { ...check, findings };
}

/** The rebase jobs queued: the run each is for, and its dedupe key. */
async function queuedRebases(): Promise<Array<{ runId: string; dedupeKey: string | null }>> {
  const rows = await server.db
    .selectFrom("jobs")
    .select(["payload", "dedupe_key"])
    .where("kind", "=", REBASE_JOB_KIND)
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    runId: (row.payload as { runId: string }).runId,
    dedupeKey: row.dedupe_key,
  }));
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

/** A repository with base's run and push 2's, compared with base's; push 1's report uploaded, not processed yet. */
async function aLateUpload(): Promise<{ repository: RepositoryRow; late: string }> {
  const repository = await aRepository(server.db, account, { defaultBranch: "main" });
  await process(await upload(repository, BASE, "base", []));
  await process(await upload(repository, PUSH_2, "push-2", [PUSH_1, BASE]));
  assert.equal((await runOf(repository, PUSH_2)).base_oid, BASE);
  return { repository, late: await upload(repository, PUSH_1, "push-1", [BASE]) };
}

/**
 * Bytes the intake would refuse, put behind its back: processing the artifact fails, and its
 * check is FAILURE, which is never a base check.
 */
async function failProcessing(artifactId: string): Promise<void> {
  await server.db
    .updateTable("artifact_chunks")
    .set({ data: Buffer.from('{"version": "2.1.0", "runs": [') })
    .where("artifact_id", "=", artifactId)
    .execute();
}

/**
 * The directory the report was made in, lost behind the intake's back (which refuses a report
 * whose every result lies outside the repository): processing stores nothing, and the check is
 * NEUTRAL, which is never a base check.
 */
async function loseEverything(artifactId: string): Promise<void> {
  await server.db.updateTable("artifacts").set({ work_dir: null }).where("id", "=", artifactId).execute();
}

describe("the settlement of a late run", () => {
  test("queues the newer run's rebase, which compares it with the late run", async () => {
    const { repository, late } = await aLateUpload();
    const before = await checkOf(repository, PUSH_2);
    assert.equal(before.status, "FAILURE", "against base, push 2's `==` is its own");
    await process(late);
    const newer = await runOf(repository, PUSH_2);
    assert.deepEqual(await queuedRebases(), [{ runId: newer.id, dedupeKey: null }]);
    await runRebases();
    assert.equal((await runOf(repository, PUSH_2)).base_oid, PUSH_1);
    const after = await checkOf(repository, PUSH_2);
    const lateCheck = await checkOf(repository, PUSH_1);
    assert.equal(after.base_check_id, lateCheck.id);
    assert.equal(after.status, "SUCCESS");
    // Push 2 keeps push 1's `==` and `prefer-const`, and fixes its unused variable.
    assert.deepEqual(after.findings.map((row) => row.state).sort(), ["EXISTING", "EXISTING", "RESOLVED"]);
  });

  test("of a late run whose report failed to process moves the newer run's base run, not its check's base", async () => {
    const { repository, late } = await aLateUpload();
    const before = await checkOf(repository, PUSH_2);
    // The late run ends FAILURE, which is analysed, with a check that is no one's base.
    await failProcessing(late);
    await process(late);
    assert.equal((await runOf(repository, PUSH_1)).status, "FAILURE");
    await runRebases();
    assert.equal((await runOf(repository, PUSH_2)).base_oid, PUSH_1, "as an in-order upload would have it");
    // Its findings were compared with base's check, and still are: not written again.
    assert.deepEqual(await checkOf(repository, PUSH_2), before);
  });

  test("queues no rebase when the late run judged nothing", async () => {
    const { repository, late } = await aLateUpload();
    // Its only check is NEUTRAL: the run is SKIPPED, no one's base.
    await loseEverything(late);
    await process(late);
    assert.equal((await runOf(repository, PUSH_1)).status, "SKIPPED");
    assert.deepEqual(await queuedRebases(), []);
    assert.equal((await runOf(repository, PUSH_2)).base_oid, BASE);
  });

  test("does not wait for the worker settling the newer run's queued rebase", async () => {
    const { repository, late } = await aLateUpload();
    const newer = await runOf(repository, PUSH_2);
    // The newer run's own rebase (its pull request became known, say), being settled: the worker
    // holds that job's row. The late run's settlement, which holds the late run, its artifact and
    // its checks, must not wait for it (docs/ingestion.md "Lock order").
    await enqueueRunRebases(server.db, [newer.id]);
    const settling = await aSettlingRebase(server.db, newer.id);
    let processed = false;
    const processing = process(late).then(() => {
      processed = true;
    });
    if (server.config.databaseUrl) {
      await untilWaitingForALock(server.db, "the late run's settlement to end or wait", () => processed);
      assert.equal(processed, true, "the settlement waited for the rebase's job row");
    }
    settling.mayLockRun();
    await settling.settled;
    await processing;
    await runRebases();
    assert.equal((await runOf(repository, PUSH_2)).base_oid, PUSH_1);
  });
});

describe("the settlement of a late run before a run without a conclusive check", () => {
  // Push 2's run is analysed, but its ESLint check says nothing of the code; push 3's findings,
  // compared with push 2's run, are compared with the check before it: base's, then push 1's once
  // push 1's late run is in, as in order.
  /** How push 2's run gets no conclusive ESLint check, and the status it ends with. */
  const cases: Array<{ name: string; status: string; upload: (repository: RepositoryRow) => Promise<void> }> =
    [
      {
        name: "a failed check",
        status: "FAILURE",
        upload: async (repository) => {
          const eslint = await upload(repository, PUSH_2, "push-2", [PUSH_1, BASE]);
          await failProcessing(eslint);
          await process(eslint);
        },
      },
      {
        name: "a NEUTRAL check beside its coverage",
        status: "SUCCESS",
        upload: async (repository) => {
          const eslint = await upload(repository, PUSH_2, "push-2", [PUSH_1, BASE]);
          await loseEverything(eslint);
          await process(eslint);
          await process(await upload(repository, PUSH_2, "push-2", [PUSH_1, BASE], { coverage: true }));
        },
      },
      {
        name: "only its coverage",
        status: "SUCCESS",
        upload: async (repository) => {
          await process(await upload(repository, PUSH_2, "push-2", [PUSH_1, BASE], { coverage: true }));
        },
      },
    ];

  for (const { name, status, upload: uploadPush2 } of cases) {
    test(`(${name}) queues the rebase of the run compared with it, whose base check becomes the late run's`, async () => {
      const repository = await aRepository(server.db, account, { defaultBranch: "main" });
      await process(await upload(repository, BASE, "base", []));
      await uploadPush2(repository);
      assert.equal((await runOf(repository, PUSH_2)).status, status);
      await process(await upload(repository, PUSH_3, "push-2", [PUSH_2, PUSH_1, BASE]));
      const newer = await runOf(repository, PUSH_3);
      assert.equal(newer.base_oid, PUSH_2);
      const before = await checkOf(repository, PUSH_3);
      assert.equal(before.base_check_id, (await checkOf(repository, BASE)).id, "read through push 2's run");
      assert.equal(before.status, "FAILURE", "against base, push 1's `==` is its own");

      await process(await upload(repository, PUSH_1, "push-1", [BASE]));
      const queued = (await queuedRebases()).map((job) => job.runId);
      assert.ok(queued.includes(newer.id), "push 3's rebase is queued");
      await runRebases();
      assert.equal((await runOf(repository, PUSH_3)).base_oid, PUSH_2, "its base run stays");
      const after = await checkOf(repository, PUSH_3);
      assert.equal(after.base_check_id, (await checkOf(repository, PUSH_1)).id);
      assert.equal(after.status, "SUCCESS");
      assert.equal((await runOf(repository, PUSH_3)).status, "SUCCESS");
      // Push 3 keeps push 1's `==` and `prefer-const`, and fixes its unused variable.
      assert.deepEqual(after.findings.map((row) => row.state).sort(), ["EXISTING", "EXISTING", "RESOLVED"]);
    });
  }
});

describe("the settlement of a run that stops being a base", () => {
  /** The states of a check's findings, sorted. */
  const statesOf = (check: { findings: Array<{ state: string }> }) =>
    check.findings.map((row) => row.state).sort();

  test("compares the newer run with the run before a run a late artifact leaves SKIPPED", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    // The js-shards project: base has findings in badge.jsx and cart.js; push 1 and push 2 are
    // the commit that fixed badge.jsx, linted with the app's configuration.
    await process(await upload(repository, BASE, "base", [], { project: SHARDS }));
    await process(await upload(repository, PUSH_1, "app", [BASE], { project: SHARDS }));
    await process(await upload(repository, PUSH_2, "app", [PUSH_1, BASE], { project: SHARDS }));
    assert.equal((await runOf(repository, PUSH_2)).base_oid, PUSH_1);
    assert.deepEqual(statesOf(await checkOf(repository, PUSH_2)), ["EXISTING", "EXISTING"]);

    // A late shard of push 1, the server's lint that could not parse badge.jsx, from a directory
    // that is not the checkout: the file it could not analyze is not known, so push 1's only
    // check is NEUTRAL and its run SKIPPED, no one's base.
    const late = await upload(repository, PUSH_1, "server", [BASE], { project: SHARDS });
    await loseEverything(late);
    await process(late);
    assert.equal((await runOf(repository, PUSH_1)).status, "SKIPPED");
    const newer = await runOf(repository, PUSH_2);
    assert.ok(
      (await queuedRebases()).some((job) => job.runId === newer.id && job.dedupeKey === null),
      "push 2's rebase is queued",
    );
    await runRebases();
    assert.equal(
      (await runOf(repository, PUSH_2)).base_oid,
      BASE,
      "as if push 1 had judged nothing in order",
    );
    const after = await checkOf(repository, PUSH_2);
    assert.equal(after.base_check_id, (await checkOf(repository, BASE)).id);
    assert.equal(after.status, "SUCCESS");
    // Against base, push 2 keeps cart.js's two findings and fixes badge.jsx's three.
    assert.deepEqual(statesOf(after), ["EXISTING", "EXISTING", "RESOLVED", "RESOLVED", "RESOLVED"]);
    assert.deepEqual(await countCheckFindingsByState(server.db, after.id), {
      introduced: 0,
      existing: 2,
      resolved: 3,
    });
  });

  test("compares the newer run's check with the check before one a late shard left NEUTRAL", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    await process(await upload(repository, BASE, "base", [], { project: SHARDS }));
    await process(await upload(repository, PUSH_1, "app", [BASE], { project: SHARDS }));
    // Push 1's CI sent its coverage too (c8's): the run stays analysed whatever its ESLint check says.
    await process(await upload(repository, PUSH_1, "push-1", [BASE], { coverage: true }));
    await process(await upload(repository, PUSH_2, "app", [PUSH_1, BASE], { project: SHARDS }));
    assert.equal((await checkOf(repository, PUSH_2)).base_check_id, (await checkOf(repository, PUSH_1)).id);

    // The late shard of the test above: push 1's ESLint check is NEUTRAL, its run SUCCESS.
    const late = await upload(repository, PUSH_1, "server", [BASE], { project: SHARDS });
    await loseEverything(late);
    await process(late);
    assert.equal((await checkOf(repository, PUSH_1)).status, "NEUTRAL");
    assert.equal((await runOf(repository, PUSH_1)).status, "SUCCESS");
    await runRebases();
    assert.equal((await runOf(repository, PUSH_2)).base_oid, PUSH_1, "its base run stays");
    const after = await checkOf(repository, PUSH_2);
    assert.equal(after.base_check_id, (await checkOf(repository, BASE)).id);
    assert.deepEqual(statesOf(after), ["EXISTING", "EXISTING", "RESOLVED", "RESOLVED", "RESOLVED"]);
  });

  test("compares the newer run's check with the check before one a late artifact failed", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    await process(await upload(repository, BASE, "base", []));
    await process(await upload(repository, PUSH_1, "push-1", [BASE]));
    await process(await upload(repository, PUSH_2, "push-2", [PUSH_1, BASE]));
    const before = await checkOf(repository, PUSH_2);
    assert.equal(before.base_check_id, (await checkOf(repository, PUSH_1)).id);
    assert.equal(before.status, "SUCCESS", "push 1 had push 2's `==` already");

    // A CI job of push 1 run again (a report in other bytes), whose processing fails: push 1's
    // ESLint check is FAILURE with a failed artifact, never a base check; its run stays analysed.
    const late = await upload(repository, PUSH_1, "push-2", [BASE]);
    await failProcessing(late);
    await process(late);
    assert.equal((await runOf(repository, PUSH_1)).status, "FAILURE");
    const newer = await runOf(repository, PUSH_2);
    assert.ok(
      (await queuedRebases()).some((job) => job.runId === newer.id),
      "push 2's rebase is queued",
    );
    await runRebases();
    assert.equal((await runOf(repository, PUSH_2)).base_oid, PUSH_1, "its base run stays");
    const after = await checkOf(repository, PUSH_2);
    assert.equal(after.base_check_id, (await checkOf(repository, BASE)).id);
    // Against base, push 2's `==` is its own: INTRODUCED, and it fails the gate.
    assert.deepEqual(statesOf(after), ["EXISTING", "INTRODUCED"]);
    assert.deepEqual(await countCheckFindingsByState(server.db, after.id), {
      introduced: 1,
      existing: 1,
      resolved: 0,
    });
    assert.equal(after.status, "FAILURE");
    assert.equal((await runOf(repository, PUSH_2)).status, "FAILURE");
  });
});

describe("the settlement of a run whose SBOM fails late", () => {
  // The SBOMs of test/helpers/sbom-scene.ts: npm's of the root lockfile and cdxgen's of the same
  // project under web/, with or without the vulnerable lodash, whose advisory is imported first.
  const ROOT_ONLY = ["package-lock.json", "package.json"];
  const BOTH = ["package-lock.json", "package.json", "web/package-lock.json", "web/package.json"];

  before(() => importLodashAdvisory(server));

  /** Uploads `sbom` as `commit`'s on main, with its ancestors and the lockfiles its tree holds. */
  function uploadSbom(
    repository: RepositoryRow,
    commit: string,
    sbom: string,
    ancestorOids: string[],
    lockfilePaths: string[] | null,
  ): Promise<string> {
    return acceptedArtifactId(
      server,
      repository,
      anUpload({
        commitOid: commit,
        branch: "main",
        analyzer: "sca",
        analyzerType: null,
        data: sbom,
        ancestorOids,
        lockfilePaths,
      }),
    );
  }

  /** The states of the vulnerabilities `commit`'s scans found, sorted, and its run's DDP. */
  async function scansOf(repository: RepositoryRow, commit: string) {
    const run = await runOf(repository, commit);
    const vulnerabilities = await server.db
      .selectFrom("vulnerability_occurrences as vo")
      .innerJoin("sca_checks as s", "s.id", "vo.sca_check_id")
      .select("vo.state")
      .where("s.run_id", "=", run.id)
      .orderBy("vo.state")
      .execute();
    const ddp = await server.db
      .selectFrom("metric_values as v")
      .innerJoin("checks as c", "c.id", "v.check_id")
      .innerJoin("analyzers as a", "a.id", "c.analyzer_id")
      .select("v.value")
      .where("c.run_id", "=", run.id)
      .where("a.shortcode", "=", "sca")
      .executeTakeFirstOrThrow();
    return { states: vulnerabilities.map((row) => row.state), ddp: Number(ddp.value) };
  }

  /** Push 1's SBOM job run again, whose processing fails: its sca check is no one's base now. */
  async function failLate(repository: RepositoryRow, sbom: string, lockfilePaths: string[]): Promise<void> {
    const late = await uploadSbom(repository, PUSH_1, sbom, [BASE], lockfilePaths);
    await failProcessing(late);
    await process(late);
    assert.equal((await runOf(repository, PUSH_1)).status, "FAILURE");
  }

  test("compares the newer run's scan with the scan before push 1's", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    // The root's lodash is vulnerable, upgraded, then vulnerable again.
    await process(await uploadSbom(repository, BASE, rootSbom(true), [], ROOT_ONLY));
    await process(await uploadSbom(repository, PUSH_1, rootSbom(false), [BASE], ROOT_ONLY));
    await process(await uploadSbom(repository, PUSH_2, rootSbom(true), [PUSH_1, BASE], ROOT_ONLY));
    assert.deepEqual((await scansOf(repository, PUSH_2)).states, ["INTRODUCED"], "against push 1's upgrade");

    await failLate(repository, rootSbom(true), ROOT_ONLY);
    await runRebases();
    // Against base's scan, which had it too.
    assert.deepEqual((await scansOf(repository, PUSH_2)).states, ["EXISTING"]);
  });

  test("counts a later run's DDP without the list of lockfiles of a run a late artifact leaves SKIPPED", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    // web/ depends on the vulnerable lodash in base; push 1's tree lists no web/ (its CI lints
    // js-shards and sends the list); push 2's CI lints only; push 3's scans the root alone and
    // sends no list, so web/ is gone by push 1's.
    for (const sbom of [rootSbom(false), webSbom(true)]) {
      await process(await uploadSbom(repository, BASE, sbom, [], BOTH));
    }
    await process(
      await upload(repository, PUSH_1, "app", [BASE], { project: SHARDS, lockfilePaths: ROOT_ONLY }),
    );
    await process(await upload(repository, PUSH_2, "app", [PUSH_1, BASE], { project: SHARDS }));
    await process(await uploadSbom(repository, PUSH_3, rootSbom(false), [PUSH_2, PUSH_1, BASE], null));
    const before = (await scansOf(repository, PUSH_3)).ddp;
    assert.equal(before + 1, (await scansOf(repository, BASE)).ddp, "without web/'s lodash");

    // The late shard of the findings tests above: push 1 judged nothing, and its list says nothing.
    const late = await upload(repository, PUSH_1, "server", [BASE], {
      project: SHARDS,
      lockfilePaths: ROOT_ONLY,
    });
    await loseEverything(late);
    await process(late);
    assert.equal((await runOf(repository, PUSH_1)).status, "SKIPPED");
    await runRebases();
    assert.equal((await scansOf(repository, PUSH_3)).ddp, before + 1, "web/ counted by base's scan");
  });

  test("counts the newer run's DDP by the scan before push 1's of a target it did not scan", async () => {
    const repository = await aRepository(server.db, account, { defaultBranch: "main" });
    // web/ depends on the vulnerable lodash in base only; push 2's CI scans only the root.
    for (const sbom of [rootSbom(false), webSbom(true)]) {
      await process(await uploadSbom(repository, BASE, sbom, [], BOTH));
    }
    for (const sbom of [rootSbom(false), webSbom(false)]) {
      await process(await uploadSbom(repository, PUSH_1, sbom, [BASE], BOTH));
    }
    await process(await uploadSbom(repository, PUSH_2, rootSbom(false), [PUSH_1, BASE], BOTH));
    const before = (await scansOf(repository, PUSH_2)).ddp;
    assert.equal(before, (await scansOf(repository, PUSH_1)).ddp, "web/ counted by push 1's scan");

    await failLate(repository, rootSbom(true), BOTH);
    await runRebases();
    // web/ counted by base's scan, lodash included.
    assert.equal((await scansOf(repository, PUSH_2)).ddp, before + 1);
  });
});
