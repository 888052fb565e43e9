import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import { enqueueJobs } from "../../jobs/job-store.ts";

/**
 * The job that compares a run with the base its pull request gives it (docs/ingestion.md "Base"),
 * queued when a run joins a pull request after it was created, or its pull request changes, and
 * that compares a default-branch run with a nearer analysed ancestor that finished after it, or
 * again past a base run, base check or base scan a late artifact took back (docs/ingestion.md
 * "Where a run stands in the history"); the ingestion pipeline handles it
 * (src/ingestion/run-rebase.ts). Payload `{ runId }`.
 */
export const REBASE_JOB_KIND = "ingest.rebase";

/** Queues the rebase of each run, once per run however often it is asked for. */
export function enqueueRunRebases(tx: Kysely<Database>, runIds: readonly string[]): Promise<void> {
  return enqueueJobs(
    tx,
    runIds.map((runId) => ({
      kind: REBASE_JOB_KIND,
      payload: { runId },
      dedupeKey: `${REBASE_JOB_KIND}:${runId}`,
    })),
  );
}

/**
 * Queues a rebase of each run, each a job row of its own with no dedupe key. The transaction that
 * settles a run into the history before these runs queues them (docs/ingestion.md "Where a run
 * stands in the history"); it already holds that run, its artifact and its checks, so it must not
 * wait for a job row another transaction holds (docs/ingestion.md "Lock order"), and a new row
 * under no key is one no other transaction can hold. A rebase that finds nothing to change does
 * nothing, so a run rebased twice is as once.
 */
export function enqueueHistoryRebases(tx: Kysely<Database>, runIds: readonly string[]): Promise<void> {
  return enqueueJobs(
    tx,
    runIds.map((runId) => ({ kind: REBASE_JOB_KIND, payload: { runId } })),
  );
}
