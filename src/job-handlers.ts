import type { Kysely } from "kysely";
import { advisorySyncHandler, advisorySyncSchedule } from "./advisory-sync/sync-job.ts";
import type { Config } from "./config.ts";
import type { Database } from "./db/types.ts";
import { artifactProcessingHandler, runDeadlineHandler } from "./ingestion/process-job.ts";
import { runRebaseHandler } from "./ingestion/run-rebase.ts";
import { type JobHandler, type JobSchedule, JobWorker } from "./jobs/worker.ts";
import type { Logger } from "./logger.ts";
import { webhookDeliveryHandler } from "./modules/webhooks/delivery-job.ts";
import type { Metrics } from "./observability/metrics.ts";
import type { Tracing } from "./observability/tracing.ts";

/** What a worker reports to, and waits for, beyond its database. */
export interface WorkerContext {
  /** Counts its runs, webhook attempts and processed artifacts. */
  metrics?: Metrics;
  /** Gives each job a span of its own. */
  tracing?: Tracing;
  /** Waits until the API requests of this process are served, for a bounded time (see app.ts). */
  giveWay?: () => Promise<void>;
}

/** Every kind of background job and its handler: the one list to extend with a new kind. */
export function jobHandlers(
  db: Kysely<Database>,
  config: Config,
  logger: Logger,
  { metrics, giveWay }: WorkerContext = {},
): JobHandler[] {
  return [
    webhookDeliveryHandler(db, config, metrics && ((succeeded) => metrics.observeWebhookAttempt(succeeded))),
    artifactProcessingHandler(db, config, logger, {
      onArtifact: metrics && ((kind, outcome, seconds) => metrics.observeArtifact(kind, outcome, seconds)),
      giveWay,
    }),
    runDeadlineHandler(db),
    runRebaseHandler(),
    advisorySyncHandler(db, config, logger),
  ];
}

/** Recurring work the workers keep queued, as configured. */
export function jobSchedules(config: Config): JobSchedule[] {
  const advisorySync = advisorySyncSchedule(config);
  return advisorySync ? [advisorySync] : [];
}

/**
 * Connections a worker's own pool should have: up to 4 on PostgreSQL; two on the embedded
 * database, which serves one session at a time anyway — the second lets lease renewals and claims
 * wait in the database's queue behind a long processing transaction instead of timing out in the
 * pool.
 */
export function workerPoolSize(config: Pick<Config, "databaseUrl" | "databasePoolSize">): number {
  return config.databaseUrl ? Math.min(4, config.databasePoolSize) : 2;
}

/**
 * Starts a worker for every job kind, as configured; stop it with `stop(graceMs)`. With `metrics`,
 * its runs, webhook attempts and processed artifacts are counted there; with `tracing`, each job
 * runs in a span of its own.
 */
export function startJobWorker(
  db: Kysely<Database>,
  config: Config,
  logger: Logger,
  context: WorkerContext = {},
): JobWorker {
  const { metrics, tracing } = context;
  return new JobWorker({
    db,
    logger,
    handlers: jobHandlers(db, config, logger, context),
    pollMs: config.workerPollMs,
    leaseSeconds: config.jobLeaseSeconds,
    schedules: jobSchedules(config),
    ...(metrics && { onRun: (kind, outcome, seconds) => metrics.observeJobRun(kind, outcome, seconds) }),
    ...(tracing && {
      wrapRun: (kind: string, run: () => Promise<void>) =>
        tracing.inSpan(`job ${kind}`, { "assay.job.kind": kind }, run),
    }),
  }).start();
}
