import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import type { Database } from "../db/types.ts";
import { enqueueJob } from "../jobs/job-store.ts";
import type { JobHandler, JobSchedule } from "../jobs/worker.ts";
import type { Logger } from "../logger.ts";
import { findSecondsSinceChecked } from "../modules/dependencies/advisory-store.ts";
import { describeOutcome, syncAdvisorySources, syncSettings } from "./sync.ts";

/**
 * The scheduled sync (docs/advisories.md "Sync"): one `advisories.sync` job row under a fixed
 * dedupe key, claimed like any job (so across any number of workers one runs it at a time), which
 * settles by queueing its next run one interval later. Every worker's schedule re-queues it if it
 * went missing and brings it forward when a URL was never checked or the interval got shorter.
 */

/** The job kind, and its one dedupe key. */
export const ADVISORY_SYNC_JOB_KIND = "advisories.sync";
const DEDUPE_KEY = "advisories.sync";

/** Runs a sync of every configured URL, then queues the next. */
export function advisorySyncHandler(db: Kysely<Database>, config: Config, logger: Logger): JobHandler {
  return {
    kind: ADVISORY_SYNC_JOB_KIND,
    async run(_job, signal) {
      const settings = syncSettings(config);
      if (settings.urls.length === 0) {
        // The sync was turned off since the job was queued: it ends here.
        logger.info("advisory sync is off (ASSAY_ADVISORY_SYNC_URLS is empty); its job ends");
        return async () => ({ status: "done" });
      }
      const outcomes = await syncAdvisorySources(db, settings, { signal, logger });
      for (const outcome of outcomes) {
        if (outcome.status === "FAILED") logger.warn(`advisory sync: ${describeOutcome(outcome)}`);
        else logger.info(`advisory sync: ${describeOutcome(outcome)}`);
      }
      return async () => ({ status: "repeat", delayMs: config.advisorySyncIntervalMs });
    },
  };
}

/** Keeps the sync job queued while URLs are configured; undefined when the sync is off. */
export function advisorySyncSchedule(config: Config): JobSchedule | undefined {
  const urls = config.advisorySyncUrls;
  if (urls.length === 0) return undefined;
  const interval = config.advisorySyncIntervalMs;
  return {
    name: ADVISORY_SYNC_JOB_KIND,
    // Cheap and idempotent, so at least hourly: a row that went missing is back soon.
    everyMs: Math.min(interval, 3_600_000),
    async ensure(db) {
      const since = await findSecondsSinceChecked(db, urls);
      // Due when the URL checked longest ago (or never) is one interval old.
      const dueInMs = Math.min(
        ...urls.map((url) => {
          const seconds = since.get(url);
          return seconds === undefined ? 0 : Math.max(0, interval - seconds * 1000);
        }),
      );
      await enqueueJob(db, {
        kind: ADVISORY_SYNC_JOB_KIND,
        payload: {},
        dedupeKey: DEDUPE_KEY,
        delayMs: dueInMs,
      });
    },
  };
}
