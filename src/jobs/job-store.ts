import { randomUUID } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Database } from "../db/types.ts";

/**
 * The job queue's SQL (docs/webhooks.md "Durable background work"). Jobs are rows: enqueued in
 * the transaction that makes the work exist, claimed with `FOR UPDATE SKIP LOCKED` under a lease
 * so any number of workers share them, and settled in a transaction that holds the job row only
 * while the lease is still the claimer's. Every time comparison uses the database's clock.
 */

/** Work to queue. */
export interface NewJob {
  /** Which handler runs it (e.g. `webhook.deliver`). */
  kind: string;
  /** JSON the handler reads; keep it small (ids, not documents). */
  payload: unknown;
  /** Run no earlier than this many milliseconds from now (default: at once). */
  delayMs?: number;
  /**
   * At most one job per key: enqueueing a key that is already queued brings its run time forward
   * (never back); a FAILED job with the key is queued again.
   */
  dedupeKey?: string;
}

/** A job a worker holds: its lease token proves the claim when it settles. */
export interface ClaimedJob {
  id: string;
  kind: string;
  payload: unknown;
  /** How many times the job has been claimed, this claim included. */
  attempts: number;
  leaseToken: string;
}

/** Queues `jobs` in the transaction `tx` (or on its own when given the database). */
export async function enqueueJobs(tx: Kysely<Database>, jobs: readonly NewJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await tx
    .insertInto("jobs")
    .values(
      jobs.map((job) => ({
        kind: job.kind,
        payload: JSON.stringify(job.payload),
        dedupe_key: job.dedupeKey ?? null,
        run_at: sql<Date>`now() + make_interval(secs => ${(job.delayMs ?? 0) / 1000})`,
      })),
    )
    .onConflict((oc) =>
      oc.column("dedupe_key").doUpdateSet({
        kind: sql.ref("excluded.kind"),
        payload: sql.ref("excluded.payload"),
        run_at: sql<Date>`CASE WHEN jobs.state = 'FAILED' THEN excluded.run_at
          ELSE least(jobs.run_at, excluded.run_at) END`,
        state: "QUEUED",
        updated_at: sql<Date>`now()`,
      }),
    )
    .execute();
}

/** Queues one job; see {@link enqueueJobs}. */
export function enqueueJob(tx: Kysely<Database>, job: NewJob): Promise<void> {
  return enqueueJobs(tx, [job]);
}

/** Removes the queued job with `dedupeKey`, if any (its work no longer needs doing). */
export async function cancelJobs(tx: Kysely<Database>, dedupeKeys: readonly string[]): Promise<void> {
  if (dedupeKeys.length === 0) return;
  await tx.deleteFrom("jobs").where("dedupe_key", "in", dedupeKeys).execute();
}

/**
 * Claims up to `limit` due jobs of `kinds`, skipping rows other workers hold locked, and leases
 * them for `leaseSeconds`. A job whose lease ran out (its worker died) is due again.
 */
export async function claimJobs(
  db: Kysely<Database>,
  options: { kinds: readonly string[]; limit: number; leaseSeconds: number; workerId: string },
): Promise<ClaimedJob[]> {
  if (options.kinds.length === 0 || options.limit <= 0) return [];
  const leaseToken = randomUUID();
  const result = await sql<{ id: string; kind: string; payload: unknown; attempts: number }>`
    UPDATE jobs
    SET locked_until = now() + make_interval(secs => ${options.leaseSeconds}),
        lease_token = ${leaseToken},
        locked_by = ${options.workerId},
        attempts = attempts + 1,
        updated_at = now()
    WHERE id IN (
      SELECT id FROM jobs
      WHERE state = 'QUEUED'
        AND run_at <= now()
        AND (locked_until IS NULL OR locked_until < now())
        AND kind = ANY(${[...options.kinds]})
      ORDER BY run_at, id
      LIMIT ${options.limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id, kind, payload, attempts`.execute(db);
  return result.rows.map((row) => ({ ...row, id: String(row.id), leaseToken }));
}

/**
 * Extends the leases held under `leaseTokens` by `leaseSeconds` from now, passing over a job whose
 * row another transaction holds at that moment: the job's own settling transaction, or one that
 * queues the job again (a rebase queued while it runs). Renewing waits for no lock, so it can
 * neither stall the worker's other leases behind one row nor close a cycle with a transaction
 * that holds one of these rows and wants another (docs/ingestion.md "Lock order"); a job passed
 * over is renewed at the next round, a third of a lease later.
 */
export async function renewLeases(
  db: Kysely<Database>,
  leaseTokens: readonly string[],
  leaseSeconds: number,
): Promise<void> {
  if (leaseTokens.length === 0) return;
  await sql`
    UPDATE jobs SET locked_until = now() + make_interval(secs => ${leaseSeconds})
    WHERE id IN (
      SELECT id FROM jobs
      WHERE lease_token = ANY(${[...leaseTokens]}) AND state = 'QUEUED'
      FOR NO KEY UPDATE SKIP LOCKED
    )`.execute(db);
}

/**
 * Locks `job`'s row in `tx` if the lease is still the claimer's; false when another worker took
 * it over (or the job was cancelled), in which case the caller must not record anything. A
 * `shared` lock (FOR KEY SHARE) lets the claimer's own steps hold the row at once (a SARIF
 * artifact's batches) and its lease renewals change the row meanwhile, while a takeover's claim
 * (FOR UPDATE SKIP LOCKED) still passes the row over and settling still waits for every step.
 */
export async function lockClaimedJob(
  tx: Kysely<Database>,
  job: ClaimedJob,
  { shared = false }: { shared?: boolean } = {},
): Promise<boolean> {
  const query = tx
    .selectFrom("jobs")
    .select("id")
    .where("id", "=", job.id)
    .where("lease_token", "=", job.leaseToken);
  const row = await (shared ? query.forKeyShare() : query.forUpdate()).executeTakeFirst();
  return row !== undefined;
}

/**
 * Begins a step of `job` in `tx`, a transaction whose writes stay invisible until the job's
 * settling transaction publishes them (a SARIF artifact's batches): locks the row shared, as
 * {@link lockClaimedJob} does, and lets the step commit without waiting for its WAL to reach the
 * disk. A crash may then lose the last steps, but never a settled job's: the settling transaction
 * commits synchronously, which flushes the WAL of every step before it, and a job whose steps
 * were lost runs again, deleting what its earlier attempt left. False when the lease was lost.
 */
export async function beginJobStep(tx: Kysely<Database>, job: ClaimedJob): Promise<boolean> {
  if (!(await lockClaimedJob(tx, job, { shared: true }))) return false;
  await sql`SET LOCAL synchronous_commit = off`.execute(tx);
  return true;
}

/** Deletes a finished job. */
export async function finishJob(tx: Kysely<Database>, job: ClaimedJob): Promise<void> {
  await tx.deleteFrom("jobs").where("id", "=", job.id).execute();
}

/** The columns of a job no worker holds. */
const NO_LEASE = { locked_until: null, lease_token: null, locked_by: null } as const;

/** Releases `job` to run again in `delayMs` (a retry is a row with a later `run_at`). */
export async function rescheduleJob(
  tx: Kysely<Database>,
  job: ClaimedJob,
  delayMs: number,
  error: string | null,
): Promise<void> {
  await tx
    .updateTable("jobs")
    .set({
      run_at: sql<Date>`now() + make_interval(secs => ${delayMs / 1000})`,
      ...NO_LEASE,
      last_error: error,
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", job.id)
    .execute();
}

/**
 * Queues `job` again in `delayMs` as a fresh run of recurring work: its claim count starts over,
 * so the give-up limit counts consecutive failures, not the runs of its lifetime.
 */
export async function repeatJob(tx: Kysely<Database>, job: ClaimedJob, delayMs: number): Promise<void> {
  await tx
    .updateTable("jobs")
    .set({
      run_at: sql<Date>`now() + make_interval(secs => ${delayMs / 1000})`,
      ...NO_LEASE,
      attempts: 0,
      last_error: null,
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", job.id)
    .execute();
}

/** Marks `job` FAILED: its handler gave up; the row stays for inspection. */
export async function failJob(tx: Kysely<Database>, job: ClaimedJob, error: string): Promise<void> {
  await tx
    .updateTable("jobs")
    .set({
      state: "FAILED",
      ...NO_LEASE,
      last_error: error,
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", job.id)
    .execute();
}

/** Gives `job` back unfinished (a stopping worker), so another worker may claim it at once. */
export async function releaseJob(db: Kysely<Database>, job: ClaimedJob): Promise<void> {
  await db
    .updateTable("jobs")
    // A job given back by a stopping worker did not fail: its claim does not count as an attempt.
    .set({ ...NO_LEASE, attempts: sql<number>`greatest(attempts - 1, 0)` })
    .where("id", "=", job.id)
    .where("lease_token", "=", job.leaseToken)
    .execute();
}

/** One job kind's queue at this moment (see {@link jobQueueStats}). */
export interface JobQueueRow {
  kind: string;
  due: number;
  running: number;
  scheduled: number;
  failed: number;
  oldestDueSeconds: number;
}

/**
 * The queue by kind, in one statement: QUEUED jobs due, running (leased) and scheduled for later, FAILED ones, and how
 * long the oldest due job has waited. The table holds only unfinished and failed jobs (finished
 * ones are deleted), so the scan stays small; read at each metrics scrape.
 */
export async function jobQueueStats(db: Kysely<Database>): Promise<JobQueueRow[]> {
  const result = await sql<{
    kind: string;
    due: string;
    running: string;
    scheduled: string;
    failed: string;
    oldest_due_seconds: string | null;
  }>`
    SELECT kind,
      count(*) FILTER (WHERE state = 'QUEUED' AND run_at <= now() AND NOT leased) AS due,
      count(*) FILTER (WHERE state = 'QUEUED' AND leased) AS running,
      count(*) FILTER (WHERE state = 'QUEUED' AND run_at > now() AND NOT leased) AS scheduled,
      count(*) FILTER (WHERE state = 'FAILED') AS failed,
      extract(epoch FROM now() - min(run_at) FILTER (WHERE state = 'QUEUED' AND run_at <= now() AND NOT leased))
        AS oldest_due_seconds
    FROM (SELECT kind, state, run_at, coalesce(locked_until >= now(), false) AS leased FROM jobs) AS queue
    GROUP BY kind
    ORDER BY kind`.execute(db);
  return result.rows.map((row) => ({
    kind: row.kind,
    due: Number(row.due),
    running: Number(row.running),
    scheduled: Number(row.scheduled),
    failed: Number(row.failed),
    oldestDueSeconds: row.oldest_due_seconds === null ? 0 : Number(row.oldest_due_seconds),
  }));
}
