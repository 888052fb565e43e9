import type { Kysely } from "kysely";
import type { AccountRow, Database } from "../../src/db/types.ts";
import type {
  WebhookDeliveryRow,
  WebhookDeliveryStatus,
  WebhookEndpointRow,
  WebhookEndpointStatus,
} from "../../src/db/types-webhooks.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";
import { SUBSCRIBABLE_EVENT_TYPES } from "../../src/modules/events/outbox.ts";
import { encryptSecret, secretLastFour } from "../../src/modules/webhooks/secrets.ts";
import { registerSecret } from "./secret-leaks.ts";

/** Builders for webhook endpoints and deliveries, written straight to the tables. */

/** Inserts an endpoint of `account` (ENABLED, every event type, a fixed secret unless given). */
export function aWebhookEndpoint(
  db: Kysely<Database>,
  pepper: string,
  account: AccountRow,
  fields: Partial<{ url: string; secret: string; status: WebhookEndpointStatus; eventTypes: string[] }> = {},
): Promise<WebhookEndpointRow> {
  const key = newRowKey();
  const secret = fields.secret ?? "test-secret-0123456789";
  registerSecret(secret);
  return db
    .insertInto("webhook_endpoints")
    .values({
      key,
      account_id: account.id,
      url: fields.url ?? "https://hooks.example.test/assay",
      event_types: fields.eventTypes ?? [...SUBSCRIBABLE_EVENT_TYPES],
      secret_ciphertext: encryptSecret(secret, key, pepper),
      secret_last_four: secretLastFour(secret),
      status: fields.status ?? "ENABLED",
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Inserts an event of `endpoint`'s account and its delivery to `endpoint`, without a job. */
export async function aWebhookDelivery(
  db: Kysely<Database>,
  endpoint: WebhookEndpointRow,
  fields: Partial<{ type: string; data: unknown; status: WebhookDeliveryStatus }> = {},
): Promise<WebhookDeliveryRow> {
  const type = fields.type ?? "test.event";
  const event = await db
    .insertInto("webhook_events")
    .values({ account_id: endpoint.account_id, type, data: JSON.stringify(fields.data ?? { test: true }) })
    .returning("id")
    .executeTakeFirstOrThrow();
  return db
    .insertInto("webhook_deliveries")
    .values({
      key: newRowKey(),
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: type,
      status: fields.status ?? "SUCCEEDED",
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
