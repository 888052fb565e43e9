import { createHash, randomUUID } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Config } from "../../src/config.ts";
import type { AnalysisRunRow, CheckRow, Database, RepositoryRow } from "../../src/db/types.ts";
import type { ArtifactRow } from "../../src/db/types-ingestion.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";
import { acceptUpload, PROCESS_JOB_KIND } from "../../src/ingestion/intake.ts";
import type { ArtifactUpload } from "../../src/ingestion/types.ts";
import { type ClaimedJob, lockClaimedJob } from "../../src/jobs/job-store.ts";
import type { JobHandler, JobOutcome, JobSettlement } from "../../src/jobs/worker.ts";
import { REBASE_JOB_KIND } from "../../src/modules/runs/rebase-job.ts";
import { waitFor } from "./instance.ts";
import { testLogger } from "./log-capture.ts";

/**
 * A stored artifact row, for tests of what the API shows about uploads without going through the
 * intake (the upload tests in test/ go through the real endpoints). No bytes are stored.
 */
export function anArtifact(
  db: Kysely<Database>,
  run: AnalysisRunRow,
  check: CheckRow | null,
  fields: Partial<{
    kind: ArtifactRow["kind"];
    analyzer: string;
    status: ArtifactRow["status"];
    result: unknown;
    format: string;
  }> = {},
): Promise<ArtifactRow> {
  const key = newRowKey();
  return db
    .insertInto("artifacts")
    .values({
      key,
      repository_id: run.repository_id,
      run_id: run.id,
      check_id: check?.id ?? null,
      kind: fields.kind ?? (check === null ? "CHANGES" : "SARIF"),
      analyzer: fields.analyzer ?? (check === null ? "changes" : "fixture-lint"),
      reporter: "test",
      compression: "NONE",
      stored_bytes: 2,
      report_bytes: 2,
      format: fields.format ?? (check === null ? "unified diff" : "SARIF 2.1.0"),
      content_sha256: createHash("sha256").update(key).digest(),
      status: fields.status ?? "PROCESSED",
      result: fields.result === undefined ? null : JSON.stringify(fields.result),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Waits until no artifact of repository `repositoryId` is QUEUED any more (processed or failed). */
export async function artifactsProcessed(db: Kysely<Database>, repositoryId: string): Promise<void> {
  await waitFor(
    "artifacts to be processed",
    async () =>
      (
        await db
          .selectFrom("artifacts")
          .select("id")
          .where("repository_id", "=", repositoryId)
          .where("status", "=", "QUEUED")
          .execute()
      ).length === 0,
    20_000,
  );
}

/**
 * Claims the processing job the intake queued for `artifactId`, as a worker would (a new lease,
 * one more attempt), for tests that keep the worker off: the handler's steps check this lease.
 */
export async function claimArtifactJob(db: Kysely<Database>, artifactId: string): Promise<ClaimedJob> {
  const leaseToken = randomUUID();
  const claimed = await sql<{ id: string; kind: string; payload: unknown; attempts: number }>`
    UPDATE jobs SET lease_token = ${leaseToken}, locked_until = now() + interval '5 minutes',
      locked_by = 'test', attempts = attempts + 1
    WHERE dedupe_key = ${`${PROCESS_JOB_KIND}:${artifactId}`} AND state = 'QUEUED'
    RETURNING id::text AS id, kind, payload, attempts`.execute(db);
  const row = claimed.rows[0];
  if (!row) throw new Error(`artifact ${artifactId} has no queued processing job`);
  return { ...row, leaseToken };
}

/**
 * Settles `job` with `settlement` as the worker does: in one transaction that first locks the
 * job's row under its lease; "lost" when another claim holds it now.
 */
export function settleJob(
  db: Kysely<Database>,
  job: ClaimedJob,
  settlement: JobSettlement,
): Promise<JobOutcome | "lost"> {
  return db.transaction().execute(async (tx) => {
    if (!(await lockClaimedJob(tx, job))) return "lost";
    return settlement(tx);
  });
}

/** Runs the processing job of `artifactId` with `handler` as a worker would: claim, run, settle. */
export async function runArtifactJob(
  db: Kysely<Database>,
  handler: JobHandler,
  artifactId: string,
): Promise<JobOutcome | "lost"> {
  const job = await claimArtifactJob(db, artifactId);
  return settleJob(db, job, await handler.run(job, new AbortController().signal));
}

/**
 * An upload as the intake receives it from `uploadArtifact`: `data` (a SARIF report, uncompressed)
 * of a community analyzer, no branch, work directory or uploading user; `fields` override.
 */
export function anUpload(
  fields: Partial<ArtifactUpload> & { commitOid: string; data: string },
): ArtifactUpload {
  return {
    branch: null,
    analyzer: "fixture-lint",
    analyzerType: "community",
    key: null,
    compression: "NONE",
    workDir: null,
    reporter: "test",
    reporterVersion: null,
    uploadedBy: null,
    ...fields,
  };
}

/** Accepts `upload` into `repository` through the intake, and answers the stored artifact's row id. */
export async function acceptedArtifactId(
  server: { db: Kysely<Database>; config: Config },
  repository: RepositoryRow,
  upload: ArtifactUpload,
): Promise<string> {
  const accepted = await acceptUpload(
    server.db,
    server.config,
    testLogger("intake").logger,
    repository,
    upload,
  );
  const row = await server.db
    .selectFrom("artifacts")
    .select("id")
    .where("key", "=", accepted.artifactKey)
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Waits until the worker has no artifact to process and no run to compare or count again: a late
 * run's settlement queues the rebase of the runs after it (docs/ingestion.md "Where a run stands
 * in the history").
 */
export async function ingestionJobsDone(db: Kysely<Database>): Promise<void> {
  await waitFor(
    "the ingestion jobs to finish",
    async () => {
      const queued = await db
        .selectFrom("jobs")
        .select("id")
        .where("kind", "in", [PROCESS_JOB_KIND, REBASE_JOB_KIND])
        .execute();
      return queued.length === 0;
    },
    20_000,
  );
}
