import { openDatabase } from "../db/database.ts";
import { createLogger, flushLogger } from "../logger.ts";
import { trimFreedMemoryEvery } from "../native/malloc-trim.ts";
import type { Command } from "./command.ts";

/**
 * `worker`: the background job worker (webhook delivery, artifact processing, advisory sync) on its own, for deployments that run
 * workers apart from servers (then start servers with ASSAY_WORKER=false). Runs until SIGTERM or
 * SIGINT, then lets running jobs finish for up to ASSAY_SHUTDOWN_TIMEOUT_SECONDS.
 */
export const workerCommand: Command = {
  name: "worker",
  summary:
    "Run the background job worker (webhook delivery, artifact processing, advisory sync) until SIGTERM or SIGINT. Every server runs one unless ASSAY_WORKER=false; any number may run side by side. Logs go to stdout as JSON lines.",
  flags: {},
  async run({ database, config, note }) {
    // Migrated (embedded) or checked (PostgreSQL) as for every command; the worker then gets a
    // pool of its own size.
    const handle = await database();
    // Every job kind's handler, loaded only by the command that runs them.
    const { startJobWorker, workerPoolSize } = await import("../job-handlers.ts");
    const pool = await openDatabase({ ...config, databasePoolSize: workerPoolSize(config) });
    const logger = createLogger(config.logLevel);
    const worker = startJobWorker(pool.db, config, logger);
    // What finished jobs freed goes back to the operating system, as in the server.
    const stopTrimming = trimFreedMemoryEvery();
    note(`The worker is running on the ${handle.kind} database; stop it with Ctrl-C or SIGTERM.`);
    await new Promise<void>((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    });
    note("Stopping: running jobs get the shutdown timeout to finish.");
    stopTrimming?.();
    await worker.stop(config.shutdownTimeoutSeconds * 1000);
    await pool.close();
    await flushLogger(logger);
  },
};
