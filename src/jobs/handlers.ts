import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import type { Database } from "../db/types.ts";
import type { Logger } from "../logger.ts";
import { webhookDeliveryHandler } from "../modules/webhooks/delivery-job.ts";
import { type JobHandler, JobWorker } from "./worker.ts";

/** Every kind of background job and its handler: the one list to extend with a new kind. */
export function jobHandlers(db: Kysely<Database>, config: Config): JobHandler[] {
  return [webhookDeliveryHandler(db, config)];
}

/**
 * Connections a worker's own pool should have: up to 4 on PostgreSQL; one on the embedded
 * database, which is a single session that serves one connection at a time anyway.
 */
export function workerPoolSize(config: Pick<Config, "databaseUrl" | "databasePoolSize">): number {
  return config.databaseUrl ? Math.min(4, config.databasePoolSize) : 1;
}

/** Starts a worker for every job kind, as configured; stop it with `stop(graceMs)`. */
export function startJobWorker(db: Kysely<Database>, config: Config, logger: Logger): JobWorker {
  return new JobWorker({
    db,
    logger,
    handlers: jobHandlers(db, config),
    pollMs: config.workerPollMs,
    leaseSeconds: config.jobLeaseSeconds,
  }).start();
}
