import type { Kysely } from "kysely";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/types.ts";
import type { JobHandler } from "../../jobs/worker.ts";
import { DELIVERY_JOB_KIND, TEST_EVENT_TYPE } from "../events/outbox.ts";
import { attemptDelivery, settleAttempt } from "./delivery-service.ts";
import { failPendingDelivery, loadDeliveryContext, lockEndpointOfDelivery } from "./delivery-store.ts";

/**
 * The job that delivers one webhook delivery (kind `webhook.deliver`, payload `{ deliveryId }`):
 * one attempt per run; a failed attempt reschedules the job after the backoff (a retry is the
 * same row with a later `run_at`). Run again after a crash, it sends the same delivery id.
 * `onAttempt` is told of each attempt made (metrics count them).
 */
export function webhookDeliveryHandler(
  db: Kysely<Database>,
  config: Config,
  onAttempt?: (succeeded: boolean) => void,
): JobHandler {
  return {
    kind: DELIVERY_JOB_KIND,
    // Settling may disable the endpoint, which deletes its other deliveries' job rows; and an
    // ADMIN disabling or deleting it holds the endpoint, then deletes them. So the endpoint is
    // locked before this job's row (docs/webhooks.md "Lock order").
    async lockBeforeJob(tx, job) {
      const { deliveryId } = (job.payload ?? {}) as { deliveryId?: unknown };
      if (typeof deliveryId === "string") await lockEndpointOfDelivery(tx, deliveryId);
    },
    async run(job, signal) {
      const { deliveryId } = (job.payload ?? {}) as { deliveryId?: unknown };
      const context = typeof deliveryId === "string" ? await loadDeliveryContext(db, deliveryId) : undefined;
      // Deleted with its endpoint, or settled already (a test the mutation answered).
      if (context?.status !== "PENDING") return async () => ({ status: "done" });
      if (context.endpointStatus !== "ENABLED" && context.eventType !== TEST_EVENT_TYPE) {
        return async (tx) => {
          await failPendingDelivery(tx, context.deliveryId);
          return { status: "done" };
        };
      }
      const result = await attemptDelivery(context, config, signal);
      onAttempt?.(result.succeeded);
      return (tx) => settleAttempt(tx, context, result, config);
    },
  };
}
