import { type Kysely, type RawBuilder, sql } from "kysely";
import type { AccountRow, Database, TeamMemberRole } from "../../db/types.ts";
import type {
  WebhookDeliveryAttemptRow,
  WebhookDeliveryRow,
  WebhookDeliveryStatus,
  WebhookEndpointRow,
  WebhookEndpointStatus,
  WebhookEventRow,
} from "../../db/types-webhooks.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { cancelJobs } from "../../jobs/job-store.ts";
import { deliveryJobKey } from "../events/outbox.ts";

/**
 * The SQL of webhooks: endpoints, deliveries, attempts and events. Reads by key carry the
 * viewer's role in the endpoint's account (`viewer_role`), for the ADMIN-only rule the loaders
 * and mutations apply (docs/permissions.md "Webhooks").
 */

/** A row together with the viewer's role in its account. */
export type WithViewerRole<R> = R & { viewer_role: TeamMemberRole };

/** Endpoints with these keys in accounts `viewerId` belongs to, with the viewer's role. */
export function findVisibleEndpointsByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<Array<WithViewerRole<WebhookEndpointRow>>> {
  return db
    .selectFrom("webhook_endpoints as e")
    .innerJoin("memberships as m", "m.account_id", "e.account_id")
    .selectAll("e")
    .select("m.role as viewer_role")
    .where("m.user_id", "=", viewerId)
    .where("e.key", "in", keys)
    .execute();
}

/** Endpoints by internal id, for foreign keys of rows the viewer already sees. */
export function findEndpointsByIds(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<WebhookEndpointRow[]> {
  return db.selectFrom("webhook_endpoints").selectAll().where("id", "in", ids).execute();
}

/** Deliveries with these keys to endpoints of accounts `viewerId` belongs to, with the viewer's role. */
export function findVisibleDeliveriesByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<Array<WithViewerRole<WebhookDeliveryRow>>> {
  return db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
    .innerJoin("memberships as m", "m.account_id", "e.account_id")
    .selectAll("d")
    .select("m.role as viewer_role")
    .where("m.user_id", "=", viewerId)
    .where("d.key", "in", keys)
    .execute();
}

/** The attempts of these deliveries, oldest first. */
export function findAttemptsOfDeliveries(
  db: Kysely<Database>,
  deliveryIds: readonly string[],
): Promise<WebhookDeliveryAttemptRow[]> {
  return db
    .selectFrom("webhook_delivery_attempts")
    .selectAll()
    .where("delivery_id", "in", deliveryIds)
    .orderBy("id")
    .execute();
}

/** Events by internal id. */
export function findEventsByIds(db: Kysely<Database>, ids: readonly string[]): Promise<WebhookEventRow[]> {
  return db.selectFrom("webhook_events").selectAll().where("id", "in", ids).execute();
}

/** An account's endpoints, newest first. Parent: the account id. */
export const endpointsOfAccount: ConnectionSource = {
  name: "webhookEndpointsOfAccount",
  from: sql`webhook_endpoints`,
  parentColumn: "account_id",
  order: [
    { column: "created_at", kind: "timestamptz" },
    { column: "key", kind: "text" },
  ],
  direction: "desc",
};

/** An endpoint's deliveries, newest first. Parent: the endpoint id. */
export const deliveriesOfEndpoint: ConnectionSource = {
  name: "webhookDeliveriesOfEndpoint",
  from: sql`webhook_deliveries`,
  parentColumn: "endpoint_id",
  order: [
    { column: "created_at", kind: "timestamptz" },
    { column: "key", kind: "text" },
  ],
  direction: "desc",
};

/** Deliveries in `status`; null means every status. */
export function deliveryStatusFilter(
  status: WebhookDeliveryStatus | null | undefined,
): { key: string; condition: RawBuilder<boolean> } | undefined {
  if (!status) return undefined;
  return { key: `status=${status}`, condition: sql<boolean>`s.status = ${status}` };
}

/** An account locked for update with the viewer's role in it; undefined when the viewer is not a member. */
export function lockAccountOfViewer(
  tx: Kysely<Database>,
  viewerId: string,
  accountKey: string,
): Promise<WithViewerRole<AccountRow> | undefined> {
  return tx
    .selectFrom("accounts as a")
    .innerJoin("memberships as m", "m.account_id", "a.id")
    .selectAll("a")
    .select("m.role as viewer_role")
    .where("a.key", "=", accountKey)
    .where("m.user_id", "=", viewerId)
    .forNoKeyUpdate("a")
    .executeTakeFirst();
}

/** An endpoint locked for update with the viewer's role in its account; undefined when not visible. */
export function lockEndpointOfViewer(
  tx: Kysely<Database>,
  viewerId: string,
  endpointKey: string,
): Promise<WithViewerRole<WebhookEndpointRow> | undefined> {
  return tx
    .selectFrom("webhook_endpoints as e")
    .innerJoin("memberships as m", "m.account_id", "e.account_id")
    .selectAll("e")
    .select("m.role as viewer_role")
    .where("e.key", "=", endpointKey)
    .where("m.user_id", "=", viewerId)
    .forNoKeyUpdate("e")
    .executeTakeFirst();
}

/**
 * A delivery with the viewer's role, its endpoint locked for update (endpoint before delivery,
 * the order every writer follows); undefined when not visible.
 */
export async function lockDeliveryOfViewer(
  tx: Kysely<Database>,
  viewerId: string,
  deliveryKey: string,
): Promise<{ delivery: WebhookDeliveryRow; endpoint: WebhookEndpointRow; role: TeamMemberRole } | undefined> {
  const found = await findVisibleDeliveriesByKeys(tx, viewerId, [deliveryKey]);
  const delivery = found[0];
  if (!delivery) return undefined;
  const endpoint = await tx
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("id", "=", delivery.endpoint_id)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!endpoint) return undefined;
  const { viewer_role: role, ...row } = delivery;
  return { delivery: row, endpoint, role };
}

/** How many endpoints an account has. */
export async function countEndpointsOfAccount(tx: Kysely<Database>, accountId: string): Promise<number> {
  const row = await tx
    .selectFrom("webhook_endpoints")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .where("account_id", "=", accountId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The stored fields of a new endpoint. */
export interface NewEndpoint {
  key: string;
  accountId: string;
  url: string;
  eventTypes: readonly string[];
  secretCiphertext: Buffer;
  secretLastFour: string;
  createdBy: string;
}

/** Inserts an endpoint (PENDING_TEST). */
export function insertEndpoint(tx: Kysely<Database>, endpoint: NewEndpoint): Promise<WebhookEndpointRow> {
  return tx
    .insertInto("webhook_endpoints")
    .values({
      key: endpoint.key,
      account_id: endpoint.accountId,
      url: endpoint.url,
      event_types: [...endpoint.eventTypes],
      secret_ciphertext: endpoint.secretCiphertext,
      secret_last_four: endpoint.secretLastFour,
      created_by: endpoint.createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Changes to an endpoint's settings. */
export interface EndpointChanges {
  url?: string;
  eventTypes?: readonly string[];
  secret?: { ciphertext: Buffer; lastFour: string };
  status?: WebhookEndpointStatus;
  /** With status DISABLED: why. */
  disabledReason?: string;
}

/**
 * Applies `changes` to endpoint `id`. A new URL or secret forgets the last successful test;
 * becoming ENABLED clears the disabled reason and the failure count.
 */
export async function updateEndpoint(
  tx: Kysely<Database>,
  id: string,
  changes: EndpointChanges,
): Promise<void> {
  const forgetTest = changes.url !== undefined || changes.secret !== undefined;
  await tx
    .updateTable("webhook_endpoints")
    .set({
      ...(changes.url !== undefined && { url: changes.url }),
      ...(changes.eventTypes !== undefined && { event_types: [...changes.eventTypes] }),
      ...(changes.secret !== undefined && {
        secret_ciphertext: changes.secret.ciphertext,
        secret_last_four: changes.secret.lastFour,
      }),
      ...(forgetTest && { last_test_ok_at: null }),
      ...(changes.status === "ENABLED" && {
        status: "ENABLED",
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
      }),
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", id)
    .execute();
}

/** Deletes endpoint `id` with its deliveries and attempts, and the jobs of its pending deliveries. */
export async function deleteEndpoint(tx: Kysely<Database>, id: string): Promise<void> {
  const pending = await tx
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("endpoint_id", "=", id)
    .where("status", "=", "PENDING")
    .execute();
  await cancelJobs(
    tx,
    pending.map((d) => deliveryJobKey(String(d.id))),
  );
  await tx.deleteFrom("webhook_endpoints").where("id", "=", id).execute();
}

/**
 * Disables endpoint `id` with `reason`, and ends its pending deliveries as FAILED (their jobs are
 * cancelled). The caller holds the endpoint's lock.
 */
export async function disableEndpoint(tx: Kysely<Database>, id: string, reason: string): Promise<void> {
  await tx
    .updateTable("webhook_endpoints")
    .set({
      status: "DISABLED",
      disabled_reason: reason,
      disabled_at: sql<Date>`now()`,
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", id)
    .execute();
  const failed = await tx
    .updateTable("webhook_deliveries")
    .set({ status: "FAILED", next_attempt_at: null, updated_at: sql<Date>`now()` })
    .where("endpoint_id", "=", id)
    .where("status", "=", "PENDING")
    .returning("id")
    .execute();
  await cancelJobs(
    tx,
    failed.map((d) => deliveryJobKey(String(d.id))),
  );
}

/** Inserts a test event and its one delivery to endpoint `endpoint`. */
export async function insertTestDelivery(
  tx: Kysely<Database>,
  endpoint: Pick<WebhookEndpointRow, "id" | "account_id">,
  deliveryKey: string,
): Promise<WebhookDeliveryRow> {
  const event = await tx
    .insertInto("webhook_events")
    .values({ account_id: endpoint.account_id, type: "test.event", data: JSON.stringify({ test: true }) })
    .returning("id")
    .executeTakeFirstOrThrow();
  return tx
    .insertInto("webhook_deliveries")
    .values({
      key: deliveryKey,
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: "test.event",
      next_attempt_at: sql<Date>`now()`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Queues delivery `id` again: PENDING, due now. */
export async function requeueDelivery(tx: Kysely<Database>, id: string): Promise<void> {
  await tx
    .updateTable("webhook_deliveries")
    .set({ status: "PENDING", next_attempt_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where("id", "=", id)
    .execute();
}
