// test-runner: execution-mode independent (processing runs in worker processes, not through GraphQL execution)
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import type { RepositoryRow } from "../src/db/types.ts";
import { acceptUpload } from "../src/ingestion/intake.ts";
import { artifactProcessingHandler } from "../src/ingestion/process-job.ts";
import { createLogger } from "../src/logger.ts";
import { anAccount, aRepository, aUser } from "./helpers/builders.ts";
import { generatedSarifChunks } from "./helpers/generated-sarif.ts";
import { waitFor } from "./helpers/instance.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * A crash mid-processing loses nothing (docs/ingestion.md "Durable and asynchronous"): a real
 * `assay worker` is killed with SIGKILL while it processes an artifact; the transaction rolls back,
 * the job's lease runs out, a second worker processes the artifact once, and the result is the
 * same as an uninterrupted run's.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const RESULTS = 40_000;

let server: TestServer;
let repository: RepositoryRow;

before(async () => {
  // No worker in the server: the test's worker processes do the processing.
  server = await startTestServer({ ASSAY_WORKER: "false" });
  const user = await aUser(server.db);
  const account = await anAccount(server.db, {}, [{ user, role: "ADMIN" }]);
  repository = await aRepository(server.db, account);
});
after(() => server?.stop());

function workerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ASSAY_DATA_DIR: server.config.dataDir,
    ASSAY_TOKEN_PEPPER: server.config.tokenPepper,
    ASSAY_JOB_LEASE_SECONDS: "1",
    ASSAY_WORKER_POLL_MS: "50",
    LOG_LEVEL: "info",
  };
  delete env.NODE_TEST_CONTEXT;
  if (server.config.databaseUrl) env.DATABASE_URL = server.config.databaseUrl;
  else delete env.DATABASE_URL;
  return env;
}

/** Starts `assay worker`; resolves once it says it is running. */
async function startWorker(): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/assay.ts", "worker"], {
    cwd: ROOT,
    env: workerEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitFor("the worker process to start", () => output.includes("The worker is running"), 180_000);
  return { child, output: () => output };
}

async function stopped(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(signal);
  await exited;
}

test("a worker killed mid-processing leaves nothing behind, and the next worker processes the artifact once", async () => {
  const accepted = await acceptUpload(server.db, server.config, createLogger("silent"), repository, {
    commitOid: "9".repeat(40),
    branch: null,
    analyzer: "generated-lint",
    analyzerType: "community",
    key: null,
    data: [...generatedSarifChunks({ results: RESULTS, files: 500 })].join(""),
    compression: "NONE",
    workDir: null,
    reporter: "test",
    reporterVersion: null,
    uploadedBy: null,
  });
  const artifact = await server.db
    .selectFrom("artifacts")
    .select(["id", "run_id"])
    .where("key", "=", accepted.artifactKey)
    .executeTakeFirstOrThrow();
  const jobAttempts = async () =>
    (
      await server.db
        .selectFrom("jobs")
        .select("attempts")
        .where("dedupe_key", "=", `ingest.artifact:${artifact.id}`)
        .executeTakeFirst()
    )?.attempts;

  // True while another session holds an uncommitted write on `occurrences` in this database.
  const writingOccurrences = async () =>
    (
      await sql<{ writing: boolean }>`
        SELECT EXISTS (
          SELECT 1 FROM pg_locks AS l JOIN pg_class AS c ON c.oid = l.relation
          WHERE l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND c.relname = 'occurrences' AND l.mode = 'RowExclusiveLock' AND l.pid <> pg_backend_pid()
        ) AS writing`.execute(server.db)
    ).rows[0]?.writing === true;

  const first = await startWorker();
  try {
    // Watch the worker's log, not the database: on the embedded database a query would wait for
    // the worker's transaction to end, so there the kill follows the worker's word that it is
    // processing. On PostgreSQL it waits for the proof that the transaction is open and has
    // written findings: the worker holds a write lock on `occurrences`, which it keeps until the
    // transaction ends. Either way the assertions below hold wherever the kill lands; processing
    // 40,000 findings takes seconds, and the worker's log says whether it finished first.
    await waitFor(
      "the first worker to start processing",
      () => first.output().includes("processing artifact"),
      30_000,
    );
    if (server.config.databaseUrl) {
      await waitFor(
        "the first worker to write findings inside its transaction",
        async () => first.output().includes("artifact processed") || (await writingOccurrences()),
        60_000,
      );
    }
  } finally {
    await stopped(first.child, "SIGKILL");
  }
  assert.doesNotMatch(first.output(), /artifact processed/, "the first worker was killed before it finished");
  const afterKill = await sql<{ status: string; occurrences: number }>`
    SELECT a.status, (SELECT count(*)::int FROM occurrences WHERE artifact_id = a.id) AS occurrences
    FROM artifacts AS a WHERE a.id = ${artifact.id}`.execute(server.db);
  assert.deepEqual(
    afterKill.rows[0],
    { status: "QUEUED", occurrences: 0 },
    "the killed transaction left nothing",
  );
  assert.equal(await jobAttempts(), 1, "the job is still queued, claimed once");

  const second = await startWorker();
  try {
    await waitFor(
      "the second worker to process the artifact",
      async () => (await jobAttempts()) === undefined,
      120_000,
    );
  } finally {
    await stopped(second.child, "SIGTERM");
  }
  const done = await sql<{ status: string; occurrences: number; run_status: string }>`
    SELECT a.status, (SELECT count(*)::int FROM occurrences WHERE artifact_id = a.id) AS occurrences,
      r.status AS run_status
    FROM artifacts AS a JOIN analysis_runs AS r ON r.id = a.run_id WHERE a.id = ${artifact.id}`.execute(
    server.db,
  );
  assert.deepEqual(done.rows[0], { status: "PROCESSED", occurrences: RESULTS, run_status: "FAILURE" });
});

test("a stored report that fails to process fails its artifact and its check, and is not retried", async () => {
  const accepted = await acceptUpload(server.db, server.config, createLogger("silent"), repository, {
    commitOid: "8".repeat(40),
    branch: null,
    analyzer: "generated-lint",
    analyzerType: "community",
    key: null,
    data: [...generatedSarifChunks({ results: 3, files: 1 })].join(""),
    compression: "NONE",
    workDir: null,
    reporter: "test",
    reporterVersion: null,
    uploadedBy: null,
  });
  const artifact = await server.db
    .selectFrom("artifacts")
    .select(["id", "run_id", "check_id"])
    .where("key", "=", accepted.artifactKey)
    .executeTakeFirstOrThrow();
  // The intake refuses bad reports, so spoil the stored bytes behind its back.
  await server.db
    .updateTable("artifact_chunks")
    .set({ data: Buffer.from('{"version": "2.1.0", "runs": [') })
    .where("artifact_id", "=", artifact.id)
    .execute();
  const handler = artifactProcessingHandler(server.db, server.config, createLogger("silent"));
  const settle = await handler.run(
    { id: "0", kind: handler.kind, payload: { artifactId: artifact.id }, attempts: 1, leaseToken: "test" },
    new AbortController().signal,
  );
  assert.deepEqual(await settle(server.db), { status: "done" });
  const stored = await sql<{ status: string; error: string; check_status: string; run_status: string }>`
    SELECT a.status, a.error, c.status AS check_status, r.status AS run_status
    FROM artifacts AS a JOIN checks AS c ON c.id = a.check_id JOIN analysis_runs AS r ON r.id = a.run_id
    WHERE a.id = ${artifact.id}`.execute(server.db);
  assert.equal(stored.rows[0]?.status, "FAILED");
  assert.match(stored.rows[0]?.error ?? "", /^the SARIF report is invalid: /);
  assert.equal(stored.rows[0]?.check_status, "FAILURE");
  assert.equal(stored.rows[0]?.run_status, "FAILURE");
});
