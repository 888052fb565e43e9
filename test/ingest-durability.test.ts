// test-runner: execution-mode independent (processing runs in worker processes, not through GraphQL execution)
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import type { RepositoryRow } from "../src/db/types.ts";
import { artifactProcessingHandler } from "../src/ingestion/process-job.ts";
import { anAccount, aRepository, aUser } from "./helpers/builders.ts";
import { acceptedArtifactId, anUpload, runArtifactJob } from "./helpers/builders-artifacts.ts";
import { generatedSarifChunks } from "./helpers/generated-sarif.ts";
import { waitFor } from "./helpers/instance.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { watchChildOutput } from "./helpers/secret-leaks.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";
import { assayArgs } from "./helpers/start-command.ts";
import { databaseTarget, TcpProxy } from "./helpers/tcp-proxy.ts";

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

/** The worker's environment; `databaseUrl` reaches the database another way (through a proxy). */
function workerEnv(databaseUrl?: string, leaseSeconds = 1): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ASSAY_DATA_DIR: server.config.dataDir,
    ASSAY_TOKEN_PEPPER: server.config.tokenPepper,
    ASSAY_JOB_LEASE_SECONDS: String(leaseSeconds),
    ASSAY_WORKER_POLL_MS: "50",
    LOG_LEVEL: "info",
  };
  delete env.NODE_TEST_CONTEXT;
  if (databaseUrl ?? server.config.databaseUrl) env.DATABASE_URL = databaseUrl ?? server.config.databaseUrl;
  else delete env.DATABASE_URL;
  return env;
}

/** Starts `assay worker`; resolves once it says it is running. */
async function startWorker(
  databaseUrl?: string,
  leaseSeconds?: number,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, assayArgs("worker"), {
    cwd: ROOT,
    env: workerEnv(databaseUrl, leaseSeconds),
    stdio: ["ignore", "pipe", "pipe"],
  });
  watchChildOutput(child, "worker process");
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

/** `promise`, or a failure naming `what` after `timeoutMs`. */
async function withTimeout(what: string, promise: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function stopped(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(signal);
  await exited;
}

test("a worker killed mid-processing leaves nothing behind, and the next worker processes the artifact once", async () => {
  const artifactId = await acceptedArtifactId(
    server,
    repository,
    anUpload({
      commitOid: "9".repeat(40),
      analyzer: "generated-lint",
      data: [...generatedSarifChunks({ results: RESULTS, files: 500 })].join(""),
    }),
  );
  const jobAttempts = async () =>
    (
      await server.db
        .selectFrom("jobs")
        .select("attempts")
        .where("dedupe_key", "=", `ingest.artifact:${artifactId}`)
        .executeTakeFirst()
    )?.attempts;

  // The first worker reaches the database through a proxy that lets it write its first batch of
  // findings and then holds it there, inside its transaction, until the kill: where the kill lands
  // is decided by the worker's own statements, never by how fast it or this test runs.
  const { target, proxiedUrl } = databaseTarget(server);
  const proxy = new TcpProxy(target);
  await proxy.up();
  // A lease long enough that the job is not claimed again while the first worker still runs (on
  // a loaded machine its renewal can come late); the second worker waits for it to run out.
  const first = await startWorker(proxiedUrl(proxy.port), 15);
  try {
    // "INSERT 0 <n>" is PostgreSQL's command tag for the batch once it ran.
    await withTimeout(
      "the first worker to write findings inside its transaction",
      proxy.holdClientsAfter(/INSERT INTO occurrences/, /INSERT 0 \d+/),
      120_000,
    );
    assert.match(first.output(), /processing artifact/);
  } finally {
    await stopped(first.child, "SIGKILL");
    await proxy.down();
  }
  assert.doesNotMatch(first.output(), /artifact processed/, "the first worker was killed before it finished");
  const afterKill = await sql<{ status: string; occurrences: number }>`
    SELECT a.status, (SELECT count(*)::int FROM occurrences WHERE artifact_id = a.id) AS occurrences
    FROM artifacts AS a WHERE a.id = ${artifactId}`.execute(server.db);
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
    FROM artifacts AS a JOIN analysis_runs AS r ON r.id = a.run_id WHERE a.id = ${artifactId}`.execute(
    server.db,
  );
  assert.deepEqual(done.rows[0], { status: "PROCESSED", occurrences: RESULTS, run_status: "FAILURE" });
});

test("a stored report that fails to process fails its artifact and its check, and is not retried", async () => {
  const artifactId = await acceptedArtifactId(
    server,
    repository,
    anUpload({
      commitOid: "8".repeat(40),
      analyzer: "generated-lint",
      data: [...generatedSarifChunks({ results: 3, files: 1 })].join(""),
    }),
  );
  // The intake refuses bad reports, so spoil the stored bytes behind its back.
  await server.db
    .updateTable("artifact_chunks")
    .set({ data: Buffer.from('{"version": "2.1.0", "runs": [') })
    .where("artifact_id", "=", artifactId)
    .execute();
  const handler = artifactProcessingHandler(server.db, server.config, testLogger("intake").logger);
  assert.deepEqual(await runArtifactJob(server.db, handler, artifactId), { status: "done" });
  const stored = await sql<{ status: string; error: string; check_status: string; run_status: string }>`
    SELECT a.status, a.error, c.status AS check_status, r.status AS run_status
    FROM artifacts AS a JOIN checks AS c ON c.id = a.check_id JOIN analysis_runs AS r ON r.id = a.run_id
    WHERE a.id = ${artifactId}`.execute(server.db);
  assert.equal(stored.rows[0]?.status, "FAILED");
  assert.match(stored.rows[0]?.error ?? "", /^the SARIF report is invalid: /);
  assert.equal(stored.rows[0]?.check_status, "FAILURE");
  assert.equal(stored.rows[0]?.run_status, "FAILURE");
});

test("every check's issue counts equal its published findings after the tests above", () =>
  assertIssueCountsMatchFindings(server.db, "the tests above"));
