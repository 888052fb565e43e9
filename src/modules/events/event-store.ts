import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/types.ts";

/**
 * The SQL of the outbox (outbox.ts): an event's row, the endpoints that hear it, and one
 * delivery per endpoint. Each function runs in the caller's transaction.
 */

/** Stores an event of `type` for the account `accountId`; answers its internal id. */
export async function insertWebhookEvent(
  tx: Kysely<Database>,
  event: { accountId: string; type: string; data: unknown },
): Promise<string> {
  const stored = await tx
    .insertInto("webhook_events")
    .values({ account_id: event.accountId, type: event.type, data: JSON.stringify(event.data) })
    .returning("id")
    .executeTakeFirstOrThrow();
  return String(stored.id);
}

/** Internal ids of the account's ENABLED endpoints subscribed to `eventType`. */
export async function findSubscribedEndpointIds(
  tx: Kysely<Database>,
  accountId: string,
  eventType: string,
): Promise<string[]> {
  const endpoints = await tx
    .selectFrom("webhook_endpoints")
    .select("id")
    .where("account_id", "=", accountId)
    .where("status", "=", "ENABLED")
    .where(sql<boolean>`${eventType} = ANY(event_types)`)
    .execute();
  return endpoints.map((endpoint) => String(endpoint.id));
}

/** One PENDING delivery, due now, of the event `eventId` per endpoint; answers their internal ids. */
export async function insertDeliveries(
  tx: Kysely<Database>,
  event: { id: string; type: string },
  deliveries: ReadonlyArray<{ key: string; endpointId: string }>,
): Promise<string[]> {
  const rows = await tx
    .insertInto("webhook_deliveries")
    .values(
      deliveries.map((delivery) => ({
        key: delivery.key,
        endpoint_id: delivery.endpointId,
        event_id: event.id,
        event_type: event.type,
        next_attempt_at: sql<Date>`now()`,
      })),
    )
    .returning("id")
    .execute();
  return rows.map((row) => String(row.id));
}
