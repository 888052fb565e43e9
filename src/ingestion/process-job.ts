import { type Kysely, sql } from "kysely";
import type { Config } from "../config.ts";
import type { Database } from "../db/types.ts";
import type { ArtifactRow } from "../db/types-ingestion.ts";
import type { JobHandler } from "../jobs/worker.ts";
import type { Logger } from "../logger.ts";
import { findBaseCheckId } from "../modules/checks/check-store.ts";
import { artifactText } from "./artifact-bytes.ts";
import { coverageGateFailures, processChanges, processCoverage } from "./coverage-process.ts";
import { invalidReportMessage, UploadError } from "./errors.ts";
import { PROCESS_JOB_KIND } from "./intake.ts";
import {
  type CheckGate,
  type CheckRow,
  DEADLINE_JOB_KIND,
  findingsGateFailures,
  settleCheck,
  settleRun,
} from "./run-lifecycle.ts";
import { processSarif } from "./sarif-process.ts";
import { processSbom } from "./sca/sbom-process.ts";
import type { ProcessInput, ProcessResult } from "./types.ts";

/**
 * The ingestion jobs (docs/ingestion.md "Durable and asynchronous"): `ingest.artifact` processes
 * one stored artifact in one transaction that locks its run first; `ingest.deadline` ends a run's
 * WAITING checks when their artifacts did not arrive in time.
 */

/** Errors that mean the report itself is bad: the artifact FAILS instead of being retried. */
function reportProblem(error: unknown): string | undefined {
  return error instanceof UploadError ? error.message : invalidReportMessage(error);
}

/** The gate of a check, by the kind of its artifacts. */
function gateOf(repositoryId: string, kind: ArtifactRow["kind"]): CheckGate {
  return kind === "COVERAGE" || kind === "SBOM"
    ? (tx, check) => coverageGateFailures(tx, check.id)
    : (tx, check) => findingsGateFailures(tx, repositoryId, check.id);
}

/** Locks the artifact's run, then the artifact; undefined when either is gone. */
async function lockArtifact(tx: Kysely<Database>, artifactId: string): Promise<ArtifactRow | undefined> {
  const found = await tx
    .selectFrom("artifacts")
    .select("run_id")
    .where("id", "=", artifactId)
    .executeTakeFirst();
  if (!found) return undefined;
  await tx
    .selectFrom("analysis_runs")
    .select("id")
    .where("id", "=", found.run_id)
    .forUpdate()
    .executeTakeFirst();
  return tx.selectFrom("artifacts").selectAll().where("id", "=", artifactId).forUpdate().executeTakeFirst();
}

/** Settles the artifact's check (and a finished coverage check a CHANGES artifact changed), then the run. */
async function settleAfter(tx: Kysely<Database>, artifact: ArtifactRow): Promise<void> {
  let checkId = artifact.check_id;
  let kind = artifact.kind;
  if (artifact.kind === "CHANGES") {
    const coverage = await tx
      .selectFrom("artifacts")
      .select("check_id")
      .where("run_id", "=", artifact.run_id)
      .where("kind", "=", "COVERAGE")
      .executeTakeFirst();
    checkId = coverage?.check_id ?? null;
    kind = "COVERAGE";
  }
  if (checkId) {
    const check = (await tx
      .selectFrom("checks")
      .selectAll()
      .where("id", "=", checkId)
      .executeTakeFirstOrThrow()) as CheckRow;
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
  const repository = await tx
    .selectFrom("repositories")
    .selectAll()
    .where("id", "=", artifact.repository_id)
    .executeTakeFirstOrThrow();
  const run = await tx
    .selectFrom("analysis_runs")
    .selectAll()
    .where("id", "=", artifact.run_id)
    .executeTakeFirstOrThrow();
  const check = artifact.check_id
    ? await tx.selectFrom("checks").selectAll().where("id", "=", artifact.check_id).executeTakeFirstOrThrow()
    : null;
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
  };
}

/** Processes one QUEUED artifact inside `tx`; false when there was nothing to do. */
async function processArtifact(
  tx: Kysely<Database>,
  artifactId: string,
  config: Config,
): Promise<{ artifact: ArtifactRow; result: ProcessResult } | undefined> {
  const artifact = await lockArtifact(tx, artifactId);
  if (artifact?.status !== "QUEUED") return undefined;
  const input = await processInputOf(tx, artifact, config.artifactMaxBytes);
  const result =
    artifact.kind === "SARIF"
      ? await processSarif(input)
      : artifact.kind === "COVERAGE"
        ? await processCoverage(input, config.artifactMaxBytes)
        : artifact.kind === "SBOM"
          ? await processSbom(input)
          : await processChanges(input, config.artifactMaxBytes);
  const processed = await tx
    .updateTable("artifacts")
    .set({ status: "PROCESSED", error: null, result: JSON.stringify(result), processed_at: sql<Date>`now()` })
    .where("id", "=", artifact.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await settleAfter(tx, processed);
  return { artifact: processed, result };
}

/** Marks a QUEUED artifact FAILED with `problem` and settles what it belongs to. */
async function failArtifact(tx: Kysely<Database>, artifactId: string, problem: string): Promise<void> {
  const artifact = await lockArtifact(tx, artifactId);
  if (artifact?.status !== "QUEUED") return;
  const failed = await tx
    .updateTable("artifacts")
    .set({ status: "FAILED", error: problem, processed_at: sql<Date>`now()` })
    .where("id", "=", artifact.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await settleAfter(tx, failed);
}

/** The `ingest.artifact` job: payload `{ artifactId }`. */
export function artifactProcessingHandler(db: Kysely<Database>, config: Config, logger: Logger): JobHandler {
  return {
    kind: PROCESS_JOB_KIND,
    async run(job) {
      const { artifactId } = (job.payload ?? {}) as { artifactId?: unknown };
      if (typeof artifactId !== "string")
        return async () => ({ status: "failed", error: "payload has no artifactId" });
      const started = Date.now();
      logger.info({ artifactId, attempt: job.attempts }, "processing artifact");
      try {
        const done = await db.transaction().execute((tx) => processArtifact(tx, artifactId, config));
        if (done) {
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
        }
      } catch (error) {
        const problem = reportProblem(error);
        if (problem === undefined) throw error;
        await db.transaction().execute((tx) => failArtifact(tx, artifactId, problem));
        logger.warn({ artifactId, problem }, "artifact failed to process");
      }
      return async () => ({ status: "done" });
    },
  };
}

/** The `ingest.deadline` job: payload `{ runId }`. */
export function runDeadlineHandler(db: Kysely<Database>): JobHandler {
  return {
    kind: DEADLINE_JOB_KIND,
    async run(job) {
      const { runId } = (job.payload ?? {}) as { runId?: unknown };
      if (typeof runId !== "string") return async () => ({ status: "failed", error: "payload has no runId" });
      await db.transaction().execute(async (tx) => {
        const run = await tx
          .selectFrom("analysis_runs")
          .select("id")
          .where("id", "=", runId)
          .forUpdate()
          .executeTakeFirst();
        if (!run) return;
        const timedOut = await tx
          .updateTable("checks")
          .set({ status: "ARTIFACT_TIMEOUT", finished_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
          .where("run_id", "=", runId)
          .where("status", "=", "WAITING")
          .returning("id")
          .execute();
        await settleRun(tx, runId, timedOut.at(-1)?.id ?? null);
      });
      return async () => ({ status: "done" });
    },
  };
}
