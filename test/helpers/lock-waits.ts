import { type Kysely, sql } from "kysely";
import type { Database } from "../../src/db/types.ts";
import { REBASE_JOB_KIND } from "../../src/modules/runs/rebase-job.ts";
import { waitFor } from "./instance.ts";

/**
 * For tests that play two transactions against each other on PostgreSQL, one side stopped where
 * the other must wait for its locks (test/ingest-locks.test.ts, test/rebase-locks.test.ts).
 */

/** A one-time signal between the two sides of a test: `fire()` settles `fired`. */
export function signal(): { fire: () => void; fired: Promise<void> } {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fire, fired };
}

/** Sessions of `db`'s database waiting for a lock, other than the one asking. */
export async function sessionsWaitingForALock(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ waiting: number }>`
    SELECT count(*)::int AS waiting FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`.execute(db);
  return rows[0]?.waiting ?? 0;
}

/**
 * Waits until another session of `db`'s database waits for a lock: how a test knows the side it
 * started reached the lock it must wait for. `done`, when given, ends the wait too (that side
 * finished, or a promise of it settled, either way), so that a change that lets it through without
 * waiting fails on the test's assertions rather than on this wait's timeout. PostgreSQL only: the
 * embedded database is one session, where nothing waits.
 */
export async function untilWaitingForALock(
  db: Kysely<Database>,
  what: string,
  done?: Promise<unknown> | (() => boolean | Promise<boolean>),
  timeoutMs?: number,
): Promise<void> {
  const finished = typeof done === "function" ? done : done === undefined ? () => false : settledFlag(done);
  await waitFor(what, async () => (await finished()) || (await sessionsWaitingForALock(db)) > 0, timeoutMs);
}

/** True once `promise` has settled, either way. */
function settledFlag(promise: Promise<unknown>): () => boolean {
  let settled = false;
  const end = () => {
    settled = true;
  };
  void promise.then(end, end);
  return () => settled;
}

/**
 * The worker settling run `runId`'s queued rebase, played by hand as the worker orders its locks:
 * the job's row, then (once `mayLockRun` is called) the run. Answers when it holds the job's row;
 * `settled` ends with its transaction.
 */
export async function aSettlingRebase(
  db: Kysely<Database>,
  runId: string,
): Promise<{ mayLockRun: () => void; settled: Promise<void> }> {
  const mayLockRun = signal();
  const holdsJob = signal();
  const dedupeKey = `${REBASE_JOB_KIND}:${runId}`;
  const settled = db.transaction().execute(async (tx) => {
    await tx.selectFrom("jobs").select("id").where("dedupe_key", "=", dedupeKey).forUpdate().execute();
    holdsJob.fire();
    await mayLockRun.fired;
    await tx.selectFrom("analysis_runs").select("id").where("id", "=", runId).forUpdate().execute();
  });
  // A failure before the job's row is held would otherwise leave the caller waiting.
  await Promise.race([holdsJob.fired, settled]);
  return { mayLockRun: mayLockRun.fire, settled };
}

/**
 * What an attachment of run `runId` to its pull request left, once the rebase being settled at the
 * same time ended: the number of the pull request the run is attached to, and the state of its
 * rebase job (QUEUED: it runs again, after the attachment).
 */
export async function attachmentAndRebaseOf(
  db: Kysely<Database>,
  runId: string,
): Promise<{ pullRequestNumber: number; rebaseJob: string }> {
  const attached = await db
    .selectFrom("analysis_runs")
    .innerJoin("pull_requests", "pull_requests.id", "analysis_runs.pull_request_id")
    .select("pull_requests.number")
    .where("analysis_runs.id", "=", runId)
    .executeTakeFirstOrThrow();
  const job = await db
    .selectFrom("jobs")
    .select("state")
    .where("dedupe_key", "=", `${REBASE_JOB_KIND}:${runId}`)
    .executeTakeFirstOrThrow();
  return { pullRequestNumber: attached.number, rebaseJob: job.state };
}
