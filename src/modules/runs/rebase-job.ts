import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import { enqueueJobs } from "../../jobs/job-store.ts";

/**
 * The job that compares a run with the base its pull request gives it (docs/ingestion.md "Base"),
 * queued when a run joins a pull request after it was created, or its pull request changes; the
 * ingestion pipeline handles it (src/ingestion/run-rebase.ts). Payload `{ runId }`.
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
