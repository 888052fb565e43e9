import { randomBytes } from "node:crypto";
import os from "node:os";
import type { Kysely } from "kysely";
import { DatabaseAvailability, isDatabaseUnavailable } from "../db/availability.ts";
import type { Database } from "../db/types.ts";
import type { Logger } from "../logger.ts";
import {
  type ClaimedJob,
  claimJobs,
  failJob,
  finishJob,
  lockClaimedJob,
  releaseJob,
  renewLeases,
  repeatJob,
  rescheduleJob,
} from "./job-store.ts";

/**
 * The job worker (docs/webhooks.md "Durable background work"): polls for due jobs, runs them
 * with their handlers while renewing their leases, and settles each in one transaction. One runs
 * inside every server instance by default, and `assay worker` runs one alone.
 */

/**
 * How a job ends this time: finished, to run again later (a retry, or the next run of recurring
 * work), or given up.
 */
export type JobOutcome =
  | { status: "done" }
  | { status: "retry"; delayMs: number; error: string | null }
  | { status: "repeat"; delayMs: number }
  | { status: "failed"; error: string };

/**
 * Writes a job's results in the settling transaction and answers what happens to the job. Runs
 * only while the worker still holds the job's lease.
 */
export type JobSettlement = (tx: Kysely<Database>) => Promise<JobOutcome>;

/** Runs the jobs of one kind. */
export interface JobHandler {
  kind: string;
  /**
   * Does the work outside any transaction (so a slow job holds no database lock) and answers
   * how to settle it. `signal` aborts when the worker stops before the job finished: the job is
   * then given back unsettled, and runs again elsewhere.
   */
  run(job: ClaimedJob, signal: AbortSignal): Promise<JobSettlement>;
  /**
   * Called in the settling transaction when the worker gives the job up after
   * {@link ERROR_MAX_ATTEMPTS} unexpected errors, so that what the job was for does not wait for
   * it for ever (an artifact FAILS instead of staying QUEUED).
   */
  gaveUp?(tx: Kysely<Database>, job: ClaimedJob): Promise<void>;
  /**
   * Takes, in the settling transaction and before the job's row, the locks its settlement needs
   * that other transactions take before they queue or update a job of this kind (docs/ingestion.md
   * "Lock order"). Taken also when the lease turns out to be lost.
   */
  lockBeforeJob?(tx: Kysely<Database>, job: ClaimedJob): Promise<void>;
}

/**
 * Recurring work: the worker calls `ensure` when it starts and every `everyMs` after, and
 * `ensure` queues the work's job under a dedupe key (so however many workers call it, one job
 * exists). The job's handler settles with `repeat` to queue its next run.
 */
export interface JobSchedule {
  /** For logs. */
  name: string;
  everyMs: number;
  ensure(db: Kysely<Database>): Promise<void>;
}

/** What a worker needs. */
export interface WorkerOptions {
  db: Kysely<Database>;
  logger: Logger;
  handlers: readonly JobHandler[];
  pollMs: number;
  leaseSeconds: number;
  /** Jobs run at once (default 8). */
  concurrency?: number;
  /** Recurring work this worker keeps queued. */
  schedules?: readonly JobSchedule[];
  /** Runs each job inside `run` (tracing gives each job a span); default: as is. */
  wrapRun?: (kind: string, run: () => Promise<void>) => Promise<void>;
  /**
   * Told of every run once it ended (metrics count them): how it was settled, "released" when the
   * worker stopped first, "lost" when another worker held the lease by then, "error" when it could
   * not be settled. Must not throw.
   */
  onRun?: (
    kind: string,
    outcome: JobOutcome["status"] | "released" | "lost" | "error",
    seconds: number,
  ) => void;
}

/**
 * After an unexpected error a job is retried with this backoff, and given up after this many
 * claims. A claim past the limit is given up without running: its earlier attempts ended without
 * settling (the worker died while running it, out of memory say, and its lease ran out), and the
 * next one would most likely end so too, taking the process with it.
 */
const ERROR_RETRY_CAP_MS = 10 * 60_000;
export const ERROR_MAX_ATTEMPTS = 25;

/** The error a job given up unrun is recorded with: no attempt of it ever ended. */
export function unfinishedAttemptsError(attempts: number): string {
  return `given up after ${attempts - 1} attempts that never ended (the worker stopped while running it each time, e.g. for want of memory)`;
}

/** A running worker. */
export class JobWorker {
  private readonly handlers: Map<string, JobHandler>;
  private readonly concurrency: number;
  private readonly workerId = `${os.hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  private readonly running = new Map<
    string,
    { job: ClaimedJob; abort: AbortController; done: Promise<void> }
  >();
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  /** A wake-up that came while the loop was not sleeping: the next sleep ends at once. */
  private woken = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly scheduleTimers: NodeJS.Timeout[] = [];
  private readonly ensuring = new Set<Promise<void>>();
  /** Polls, renewals and schedules failing for want of the database log one line an outage. */
  private readonly availability: DatabaseAvailability;

  constructor(private readonly options: WorkerOptions) {
    this.handlers = new Map(options.handlers.map((handler) => [handler.kind, handler]));
    this.concurrency = options.concurrency ?? 8;
    this.availability = new DatabaseAvailability(options.logger, {
      down: "job worker: database unavailable; it keeps polling until the database answers",
      up: "job worker: database available again",
    });
  }

  /**
   * Logs a failed poll, renewal or schedule: a lost database once per outage (the worker retries
   * by itself every poll), anything else with its error.
   */
  private warn(error: unknown, fields: object, message: string): void {
    if (isDatabaseUnavailable(error)) this.availability.failed(error);
    else this.options.logger.warn({ err: error, ...fields }, message);
  }

  /** Starts polling. */
  start(): this {
    if (this.loop) return this;
    const renewEvery = Math.max(100, (this.options.leaseSeconds * 1000) / 3);
    this.heartbeat = setInterval(() => void this.renew(), renewEvery);
    this.heartbeat.unref();
    this.keepSchedules();
    this.loop = this.poll();
    this.options.logger.debug(
      { workerId: this.workerId, kinds: [...this.handlers.keys()] },
      "job worker started",
    );
    return this;
  }

  /** Looks for due jobs now rather than at the next poll. */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  /**
   * Stops claiming, lets running jobs finish for up to `graceMs`, then aborts the rest and gives
   * them back to the queue (another worker claims them at once).
   */
  stop(graceMs: number): Promise<void> {
    this.stopped ??= this.shutDown(graceMs);
    return this.stopped;
  }

  private async shutDown(graceMs: number): Promise<void> {
    this.stopping = true;
    for (const timer of this.scheduleTimers) clearInterval(timer);
    this.wake();
    await this.loop;
    await Promise.all(this.ensuring);
    const running = [...this.running.values()];
    if (running.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.all(running.map((r) => r.done)), grace]);
      clearTimeout(timer);
      for (const r of this.running.values()) r.abort.abort();
      await Promise.all([...this.running.values()].map((r) => r.done));
    }
    clearInterval(this.heartbeat);
  }

  /** Ensures each schedule's job now (the first poll finds it if due) and every `everyMs` after. */
  private keepSchedules(): void {
    for (const schedule of this.options.schedules ?? []) {
      const ensure = () => {
        const pending = schedule
          .ensure(this.options.db)
          .then(() => this.wake())
          .catch((err: unknown) =>
            this.warn(err, { schedule: schedule.name }, "could not queue recurring work"),
          )
          .finally(() => this.ensuring.delete(pending));
        this.ensuring.add(pending);
      };
      ensure();
      // Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer period would fire at once.
      const timer = setInterval(ensure, Math.min(schedule.everyMs, 2 ** 31 - 1));
      timer.unref();
      this.scheduleTimers.push(timer);
    }
  }

  private async poll(): Promise<void> {
    while (!this.stopping) {
      const free = this.concurrency - this.running.size;
      let claimed: ClaimedJob[] = [];
      if (free > 0) {
        try {
          claimed = await claimJobs(this.options.db, {
            kinds: [...this.handlers.keys()],
            limit: free,
            leaseSeconds: this.options.leaseSeconds,
            workerId: this.workerId,
          });
          this.availability.succeeded();
        } catch (error) {
          this.warn(error, {}, "job worker could not claim jobs");
        }
        for (const job of claimed) this.runJob(job);
      }
      // A full claim may leave more due jobs: claim again at once while there is room.
      if (
        this.stopping ||
        (claimed.length > 0 && claimed.length === free && this.running.size < this.concurrency)
      ) {
        continue;
      }
      await this.sleep(this.options.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private runJob(job: ClaimedJob): void {
    const abort = new AbortController();
    const { wrapRun } = this.options;
    const run = () => this.execute(job, abort.signal);
    const done = (wrapRun ? wrapRun(job.kind, run) : run()).finally(() => {
      this.running.delete(job.id);
      // A slot is free: a worker that was full looks for more work.
      this.wake();
    });
    this.running.set(job.id, { job, abort, done });
  }

  private async execute(job: ClaimedJob, signal: AbortSignal): Promise<void> {
    const started = performance.now();
    const report = (outcome: Parameters<NonNullable<WorkerOptions["onRun"]>>[1]) =>
      this.options.onRun?.(job.kind, outcome, (performance.now() - started) / 1000);
    const { logger } = this.options;
    const handler = this.handlers.get(job.kind);
    let settlement: JobSettlement;
    if (job.attempts > ERROR_MAX_ATTEMPTS) {
      logger.error({ jobId: job.id, kind: job.kind, attempts: job.attempts }, "job given up unrun");
      const error = unfinishedAttemptsError(job.attempts);
      try {
        report(
          await this.settle(job, async (tx) => {
            await handler?.gaveUp?.(tx, job);
            return { status: "failed", error };
          }),
        );
      } catch (failure) {
        logger.error({ err: failure, jobId: job.id, kind: job.kind }, "could not settle a job");
        report("error");
      }
      return;
    }
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      settlement = await handler.run(job, signal);
    } catch (error) {
      if (signal.aborted) {
        await releaseJob(this.options.db, job).catch((err: unknown) =>
          logger.warn({ err, jobId: job.id }, "could not release a job; it runs again when its lease ends"),
        );
        report("released");
        return;
      }
      logger.error({ err: error, jobId: job.id, kind: job.kind }, "job failed unexpectedly");
      const message = error instanceof Error ? error.message : String(error);
      settlement = async (tx) => {
        if (job.attempts < ERROR_MAX_ATTEMPTS) {
          return {
            status: "retry",
            delayMs: Math.min(1000 * 2 ** job.attempts, ERROR_RETRY_CAP_MS),
            error: message,
          };
        }
        await handler?.gaveUp?.(tx, job);
        return { status: "failed", error: message };
      };
    }
    try {
      report(await this.settle(job, settlement));
    } catch (error) {
      // The lease runs out and the job runs again: at least once, never lost.
      logger.error({ err: error, jobId: job.id, kind: job.kind }, "could not settle a job");
      report("error");
    }
  }

  private settle(job: ClaimedJob, settlement: JobSettlement): Promise<JobOutcome["status"] | "lost"> {
    return this.options.db.transaction().execute(async (tx) => {
      await this.handlers.get(job.kind)?.lockBeforeJob?.(tx, job);
      if (!(await lockClaimedJob(tx, job))) {
        this.options.logger.warn(
          { jobId: job.id, kind: job.kind },
          "job lease lost before settling; result dropped",
        );
        return "lost";
      }
      const outcome = await settlement(tx);
      if (outcome.status === "done") await finishJob(tx, job);
      else if (outcome.status === "retry") await rescheduleJob(tx, job, outcome.delayMs, outcome.error);
      else if (outcome.status === "repeat") await repeatJob(tx, job, outcome.delayMs);
      else await failJob(tx, job, outcome.error);
      return outcome.status;
    });
  }

  private async renew(): Promise<void> {
    const tokens = [...new Set([...this.running.values()].map((r) => r.job.leaseToken))];
    try {
      await renewLeases(this.options.db, tokens, this.options.leaseSeconds);
    } catch (error) {
      this.warn(error, {}, "job worker could not renew its leases");
    }
  }
}
