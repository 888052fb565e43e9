import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/types.ts";

/**
 * The SQL of the outbox (outbox.ts): an event's row, the endpoints that hear it, and one
 * delivery per endpoint. Each function runs in the caller's transaction.
 */

/**
 * Stores events, each of its `type` for the account `accountId`, in one statement; answers their
 * internal ids in the order given (rows of a multi-row VALUES are inserted, and returned, in order).
 */
export async function insertWebhookEvents(
  tx: Kysely<Database>,
  events: ReadonlyArray<{ accountId: string; type: string; data: unknown }>,
): Promise<string[]> {
  if (events.length === 0) return [];
  const stored = await tx
    .insertInto("webhook_events")
    .values(
      events.map((event) => ({
        account_id: event.accountId,
        type: event.type,
        data: JSON.stringify(event.data),
      })),
    )
    .returning("id")
    .execute();
  return stored.map((row) => String(row.id));
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

/** PENDING deliveries, due now, each of its event to its endpoint; answers their internal ids. */
export async function insertDeliveries(
  tx: Kysely<Database>,
  deliveries: ReadonlyArray<{ key: string; endpointId: string; eventId: string; eventType: string }>,
): Promise<string[]> {
  if (deliveries.length === 0) return [];
  const rows = await tx
    .insertInto("webhook_deliveries")
    .values(
      deliveries.map((delivery) => ({
        key: delivery.key,
        endpoint_id: delivery.endpointId,
        event_id: delivery.eventId,
        event_type: delivery.eventType,
        next_attempt_at: sql<Date>`now()`,
      })),
    )
    .returning("id")
    .execute();
  return rows.map((row) => String(row.id));
}
