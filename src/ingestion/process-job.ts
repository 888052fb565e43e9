import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import type { Database } from "../db/types.ts";
import type { ArtifactRow } from "../db/types-ingestion.ts";
import { beginJobStep, type ClaimedJob } from "../jobs/job-store.ts";
import type { JobHandler } from "../jobs/worker.ts";
import type { Logger } from "../logger.ts";
import {
  findArtifactById,
  findArtifactRunId,
  findCoverageArtifactCheckIdOfRun,
  lockArtifactRow,
  markArtifactFailed,
  markArtifactProcessed,
} from "../modules/artifacts/artifact-store.ts";
import { findBaseCheckId, findCheckById, timeOutWaitingChecks } from "../modules/checks/check-store.ts";
import { findRepositoryById } from "../modules/repositories/repository-store.ts";
import { findRunById, lockRun } from "../modules/runs/run-store.ts";
import { artifactText } from "./artifact-bytes.ts";
import { processChanges, processCoverage } from "./coverage/process.ts";
import { invalidReportMessage, UploadError } from "./errors.ts";
import { PROCESS_JOB_KIND } from "./intake.ts";
import { type CheckRow, DEADLINE_JOB_KIND, gateOf, settleCheck, settleRun } from "./run-lifecycle.ts";
import { renamedFilesOfRun } from "./run-renames.ts";
import { OCCURRENCE_BATCH_SIZE } from "./sarif/occurrence-writer.ts";
import { deleteStagedRows, stageSarif } from "./sarif/process.ts";
import { processSbom } from "./sca/sbom-process.ts";
import type { ProcessInput, ProcessResult, ProcessStep, PublishStep } from "./types.ts";

/**
 * The ingestion jobs (docs/ingestion.md "Durable and asynchronous"): `ingest.artifact` processes
 * one stored artifact (a SARIF report in short steps, then published in one transaction; the other
 * kinds in one transaction), each transaction locking its run first; `ingest.deadline` ends a
 * run's WAITING checks when their artifacts did not arrive in time.
 */

/** Errors that mean the report itself is bad: the artifact FAILS instead of being retried. */
function reportProblem(error: unknown): string | undefined {
  return error instanceof UploadError ? error.message : invalidReportMessage(error);
}

/** Locks the artifact's run, then the artifact; undefined when either is gone. */
async function lockArtifact(tx: Kysely<Database>, artifactId: string): Promise<ArtifactRow | undefined> {
  const runId = await findArtifactRunId(tx, artifactId);
  if (runId === undefined) return undefined;
  await lockRun(tx, runId);
  return lockArtifactRow(tx, artifactId);
}

/** Settles the artifact's check (and a finished coverage check a CHANGES artifact changed), then the run. */
async function settleAfter(tx: Kysely<Database>, artifact: ArtifactRow): Promise<void> {
  let checkId = artifact.check_id;
  let kind = artifact.kind;
  if (artifact.kind === "CHANGES") {
    const coverage = await findCoverageArtifactCheckIdOfRun(tx, artifact.run_id);
    checkId = coverage?.check_id ?? null;
    kind = "COVERAGE";
  }
  if (checkId) {
    const check: CheckRow = await findCheckById(tx, checkId);
    if (check.status !== "WAITING") await settleCheck(tx, check, gateOf(artifact.repository_id, kind));
  }
  await settleRun(tx, artifact.run_id, checkId);
}

/**
 * What a kind's processor gets for `artifact` inside `tx`: its repository, run and check, the check
 * its findings are compared with (the newest comparable one of its analyzer up to the run's base
 * run), and its stored text (decompressed, capped at `maxBytes`).
 */
export async function processInputOf(
  tx: Kysely<Database>,
  artifact: ArtifactRow,
  maxBytes: number,
): Promise<ProcessInput> {
  const repository = await findRepositoryById(tx, artifact.repository_id);
  const run = await findRunById(tx, artifact.run_id);
  const check = artifact.check_id ? await findCheckById(tx, artifact.check_id) : null;
  const baseCheckId =
    check && run.base_run_id ? await findBaseCheckId(tx, run.base_run_id, check.analyzer_id) : null;
  return {
    tx,
    artifact,
    repository,
    run,
    check,
    baseCheckId,
    text: () => artifactText(tx, artifact, maxBytes),
    renamedFiles: () => renamedFilesOfRun(tx, run, repository.default_branch, maxBytes),
  };
}

/** Processes one QUEUED artifact of a kind processed in one transaction, inside `tx`. */
async function processArtifact(
  tx: Kysely<Database>,
  artifactId: string,
  config: Config,
): Promise<{ artifact: ArtifactRow; result: ProcessResult } | undefined> {
  const artifact = await lockArtifact(tx, artifactId);
  if (artifact?.status !== "QUEUED") return undefined;
  const input = await processInputOf(tx, artifact, config.artifactMaxBytes);
  const result =
    artifact.kind === "COVERAGE"
      ? await processCoverage(input, config.artifactMaxBytes)
      : artifact.kind === "SBOM"
        ? await processSbom(input)
        : await processChanges(input, config.artifactMaxBytes);
  return finishArtifact(tx, artifact, result);
}

/** Records `result` as the artifact's and settles what it belongs to. */
async function finishArtifact(
  tx: Kysely<Database>,
  artifact: ArtifactRow,
  result: ProcessResult,
): Promise<{ artifact: ArtifactRow; result: ProcessResult }> {
  const processed = await markArtifactProcessed(tx, artifact.id, JSON.stringify(result));
  await settleAfter(tx, processed);
  return { artifact: processed, result };
}

/** Marks a QUEUED artifact FAILED with `problem` and settles what it belongs to; undefined when it was not QUEUED. */
async function failArtifact(
  tx: Kysely<Database>,
  artifactId: string,
  problem: string,
): Promise<ArtifactRow | undefined> {
  const artifact = await lockArtifact(tx, artifactId);
  if (artifact?.status !== "QUEUED") return undefined;
  const failed = await markArtifactFailed(tx, artifact.id, problem);
  await settleAfter(tx, failed);
  return failed;
}

/**
 * Occurrences a step writes. The embedded database is one session, and a step holds it as a
 * whole, so its steps are short: 1,000 rows take about 70 ms there, and every API request waits
 * for at most one step. PostgreSQL serves other sessions meanwhile, and writes fastest in steps
 * of 5,000 (docs/benchmarks.md "Ingestion").
 */
const EMBEDDED_STEP_ROWS = 1000;

/**
 * Steps writing a report's batches at once on PostgreSQL, each a transaction on a connection of
 * its own, so the database works on one batch while another is written and the next is read
 * (docs/benchmarks.md "Two batches in flight"). The embedded database is one session: one there.
 */
const POSTGRES_STEPS_IN_FLIGHT = 2;

/** Raised by a step when another worker holds the job now: this attempt stops and records nothing. */
class LeaseLostError extends Error {}

/**
 * The steps of one attempt at a job: each a transaction of its own that first locks the job's row
 * under this attempt's lease (`beginJobStep`), so a worker that took the job over (after this
 * one's lease ran out) starts only when no step is running, and this attempt stops at its next
 * step. (Exported for bench/ingest.ts, which measures the worker's steps.)
 */
export function leasedSteps(
  db: Kysely<Database>,
  job: ClaimedJob,
  signal: AbortSignal,
  giveWay: (() => Promise<void>) | undefined,
): ProcessStep {
  return async (work) => {
    await giveWay?.();
    signal.throwIfAborted();
    return db.transaction().execute(async (tx) => {
      if (!(await beginJobStep(tx, job))) throw new LeaseLostError("the job's lease was lost");
      return work(tx);
    });
  };
}

/**
 * Stages a QUEUED SARIF artifact in steps (docs/ingestion.md "Processing in steps") and answers
 * the publication, for the worker's settling transaction.
 */
async function stageSarifArtifact(
  db: Kysely<Database>,
  artifact: ArtifactRow,
  config: Config,
  step: ProcessStep,
): Promise<PublishStep> {
  const input = await processInputOf(db, artifact, config.artifactMaxBytes);
  return stageSarif(input, step, {
    batchSize: stepRows(config),
    inFlight: config.databaseUrl ? POSTGRES_STEPS_IN_FLIGHT : 1,
    // The embedded database has no autovacuum to notice thousands of new rows: without fresh
    // statistics the publishing transaction's counts over the check are planned for an empty
    // table, and take twice as long while every API request waits for them. So it refreshes them
    // after any report, PostgreSQL after a large one (ANALYZE_AFTER_FINDINGS); either only while
    // they take the check for fewer than half its findings.
    ...(config.databaseUrl ? {} : { analyzeAfter: 0 }),
  });
}

function stepRows(config: Config): number {
  return config.databaseUrl ? OCCURRENCE_BATCH_SIZE : EMBEDDED_STEP_ROWS;
}

/** Told of each artifact processed or failed, with its kind and seconds taken (metrics count them). */
export type ArtifactObserver = (kind: string, outcome: "processed" | "failed", seconds: number) => void;

/** What the `ingest.artifact` job is told of, and waits for. */
export interface ArtifactProcessingOptions {
  /** Told of each artifact processed or failed (metrics count them). */
  onArtifact?: ArtifactObserver;
  /**
   * Waits before each step, and before publishing, until API requests are served (for a bounded
   * time): on the embedded database they would otherwise wait for the steps.
   */
  giveWay?: () => Promise<void>;
}

/**
 * The `ingest.artifact` job: payload `{ artifactId }`. A SARIF artifact is staged in steps and
 * published in the worker's settling transaction, under the job's lease; the other kinds are
 * processed in one transaction.
 */
export function artifactProcessingHandler(
  db: Kysely<Database>,
  config: Config,
  logger: Logger,
  { onArtifact, giveWay }: ArtifactProcessingOptions = {},
): JobHandler {
  return {
    kind: PROCESS_JOB_KIND,
    async run(job, signal) {
      const { artifactId } = (job.payload ?? {}) as { artifactId?: unknown };
      if (typeof artifactId !== "string")
        return async () => ({ status: "failed", error: "payload has no artifactId" });
      const started = Date.now();
      const seconds = () => (Date.now() - started) / 1000;
      const processed = (done: { artifact: ArtifactRow; result: ProcessResult }) => {
        logger.info(
          {
            artifact: done.artifact.key,
            ms: Date.now() - started,
            read: done.result.read,
            stored: done.result.stored,
            skipped: done.result.skipped,
            ...done.result.counts,
          },
          "artifact processed",
        );
        onArtifact?.(done.artifact.kind, "processed", seconds());
      };
      logger.info({ artifactId, attempt: job.attempts }, "processing artifact");
      const step = leasedSteps(db, job, signal, giveWay);
      try {
        const found = await findArtifactById(db, artifactId);
        if (found?.kind === "SARIF") {
          if (found.status !== "QUEUED") return async () => ({ status: "done" });
          const publish = await stageSarifArtifact(db, found, config, step);
          await giveWay?.();
          return async (tx) => {
            const artifact = await lockArtifact(tx, artifactId);
            if (artifact?.status === "QUEUED")
              processed(await finishArtifact(tx, artifact, await publish(tx)));
            return { status: "done" };
          };
        }
        const done = await db.transaction().execute((tx) => processArtifact(tx, artifactId, config));
        if (done) processed(done);
        return async () => ({ status: "done" });
      } catch (error) {
        // The worker that holds the job now records its outcome; this attempt records nothing.
        if (error instanceof LeaseLostError) return async () => ({ status: "done" });
        const problem = reportProblem(error);
        if (problem === undefined) throw error;
        await deleteStagedRows(artifactId, step, stepRows(config));
        return async (tx) => {
          const failed = await failArtifact(tx, artifactId, problem);
          logger.warn({ artifactId, problem }, "artifact failed to process");
          if (failed) onArtifact?.(failed.kind, "failed", seconds());
          return { status: "done" };
        };
      }
    },
    async gaveUp(tx, job) {
      const { artifactId } = (job.payload ?? {}) as { artifactId?: unknown };
      if (typeof artifactId !== "string") return;
      // The attempts' errors are the server's own (the log has each): the uploader is told only
      // that processing failed, and its check and run settle instead of waiting for good.
      const artifact = await lockArtifact(tx, artifactId);
      if (artifact?.status !== "QUEUED") return;
      await deleteStagedRows(artifactId, (work) => work(tx), stepRows(config));
      const failed = await failArtifact(tx, artifactId, GAVE_UP_PROBLEM);
      if (!failed) return;
      logger.warn({ artifactId, attempts: job.attempts }, "artifact processing given up");
      onArtifact?.(failed.kind, "failed", 0);
    },
  };
}

/** What a given-up artifact says: its processing failed for a reason of the server's, not the report's. */
export const GAVE_UP_PROBLEM =
  "Assay could not process this artifact: every attempt failed with an error of the server (its log has the details). Upload it again; if this recurs, tell the server's operator.";

/** The `ingest.deadline` job: payload `{ runId }`. */
export function runDeadlineHandler(db: Kysely<Database>): JobHandler {
  return {
    kind: DEADLINE_JOB_KIND,
    async run(job) {
      const { runId } = (job.payload ?? {}) as { runId?: unknown };
      if (typeof runId !== "string") return async () => ({ status: "failed", error: "payload has no runId" });
      await db.transaction().execute(async (tx) => {
        if (!(await lockRun(tx, runId))) return;
        const timedOut = await timeOutWaitingChecks(tx, runId);
        await settleRun(tx, runId, timedOut.at(-1) ?? null);
      });
      return async () => ({ status: "done" });
    },
  };
}
