import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/types.ts";
import type { WebhookDeliveryStatus, WebhookEndpointStatus } from "../../db/types-webhooks.ts";
import type { AttemptResult } from "./delivery-http.ts";

/**
 * The SQL of delivering: reading what an attempt needs, and the writes that settle it (the
 * attempt's log row, the delivery's status, the endpoint's health). The decisions are made in
 * delivery-service.ts; each function here is one statement in the caller's `tx`.
 */

/** Everything one attempt of a delivery needs, read in one statement. */
export interface DeliveryContext {
  deliveryId: string;
  status: WebhookDeliveryStatus;
  eventType: string;
  eventCreatedAt: Date;
  data: unknown;
  endpointId: string;
  endpointKey: string;
  endpointStatus: WebhookEndpointStatus;
  url: string;
  secretCiphertext: Buffer;
}

/** The delivery `deliveryId` with its event and endpoint; undefined when it no longer exists. */
export async function loadDeliveryContext(
  db: Kysely<Database>,
  deliveryId: string,
): Promise<DeliveryContext | undefined> {
  const row = await db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_events as v", "v.id", "d.event_id")
    .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
    .select([
      "d.id as deliveryId",
      "d.status as status",
      "v.type as eventType",
      "v.created_at as eventCreatedAt",
      "v.data as data",
      "e.id as endpointId",
      "e.key as endpointKey",
      "e.status as endpointStatus",
      "e.url as url",
      "e.secret_ciphertext as secretCiphertext",
    ])
    .where("d.id", "=", deliveryId)
    .executeTakeFirst();
  return row && { ...row, deliveryId: String(row.deliveryId), endpointId: String(row.endpointId) };
}

/**
 * Locks the endpoint of delivery `deliveryId` as {@link lockEndpointForSettling} does; nothing when
 * the delivery is gone.
 */
export async function lockEndpointOfDelivery(tx: Kysely<Database>, deliveryId: string): Promise<void> {
  await tx
    .selectFrom("webhook_endpoints as e")
    .select("e.id")
    .where("e.id", "=", (eb) =>
      eb.selectFrom("webhook_deliveries as d").select("d.endpoint_id").where("d.id", "=", deliveryId),
    )
    .forNoKeyUpdate()
    .execute();
}

/** The endpoint `endpointId`, locked against other writers of its health; undefined when gone. */
export function lockEndpointForSettling(
  tx: Kysely<Database>,
  endpointId: string,
): Promise<{ id: string; status: WebhookEndpointStatus } | undefined> {
  return tx
    .selectFrom("webhook_endpoints")
    .select(["id", "status"])
    .where("id", "=", endpointId)
    .forNoKeyUpdate()
    .executeTakeFirst();
}

/** A delivery as settling it reads it: its status, its attempts so far, and whether it may still be retried. */
export interface SettlingDelivery {
  status: WebhookDeliveryStatus;
  attempt_count: number;
  /** Whether the delivery is younger than the retry window. */
  in_window: boolean;
}

/** The delivery `deliveryId`, locked for update; undefined when gone. */
export function lockDeliveryForSettling(
  tx: Kysely<Database>,
  deliveryId: string,
  retryWindowSeconds: number,
): Promise<SettlingDelivery | undefined> {
  return tx
    .selectFrom("webhook_deliveries")
    .select([
      "status",
      "attempt_count",
      sql<boolean>`now() < created_at + make_interval(secs => ${retryWindowSeconds})`.as("in_window"),
    ])
    .where("id", "=", deliveryId)
    .forUpdate()
    .executeTakeFirst();
}

/** Logs `result` as an attempt of the delivery `deliveryId`. */
export async function insertDeliveryAttempt(
  tx: Kysely<Database>,
  deliveryId: string,
  result: AttemptResult,
): Promise<void> {
  await tx
    .insertInto("webhook_delivery_attempts")
    .values({
      delivery_id: deliveryId,
      attempted_at: result.attemptedAt,
      status_code: result.statusCode,
      latency_ms: result.latencyMs,
      response_excerpt: result.responseExcerpt,
      error: result.error,
    })
    .execute();
}

/** Sets the delivery's status and attempt count, and its next attempt `nextInMs` from now (null: none). */
export async function updateDeliveryStatus(
  tx: Kysely<Database>,
  deliveryId: string,
  status: WebhookDeliveryStatus,
  attemptCount: number,
  nextInMs: number | null,
): Promise<void> {
  await tx
    .updateTable("webhook_deliveries")
    .set({
      status,
      attempt_count: attemptCount,
      next_attempt_at:
        nextInMs === null ? null : sql<Date>`now() + make_interval(secs => ${nextInMs / 1000})`,
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", deliveryId)
    .execute();
}

/**
 * Records a 2xx answer on the endpoint: its failure clock stops; for a test, the test is marked
 * passed and a PENDING_TEST endpoint becomes ENABLED.
 */
export async function recordEndpointSuccess(
  tx: Kysely<Database>,
  endpointId: string,
  isTest: boolean,
): Promise<void> {
  await tx
    .updateTable("webhook_endpoints")
    .set({
      failing_since: null,
      last_success_at: sql<Date>`now()`,
      ...(isTest && {
        last_test_ok_at: sql<Date>`now()`,
        status: sql<WebhookEndpointStatus>`CASE WHEN status = 'PENDING_TEST' THEN 'ENABLED' ELSE status END`,
      }),
    })
    .where("id", "=", endpointId)
    .execute();
}

/** Records a failed test on the endpoint: it has no passed test any more. */
export async function clearEndpointTestPassed(tx: Kysely<Database>, endpointId: string): Promise<void> {
  await tx
    .updateTable("webhook_endpoints")
    .set({ last_test_ok_at: null })
    .where("id", "=", endpointId)
    .execute();
}

/**
 * Starts the endpoint's failure clock unless it runs already; answers since when it fails and
 * whether that is at least `disableAfterSeconds` ago.
 */
export function recordEndpointFailure(
  tx: Kysely<Database>,
  endpointId: string,
  disableAfterSeconds: number,
): Promise<{ failing_since: Date | null; overdue: boolean }> {
  return tx
    .updateTable("webhook_endpoints")
    .set({ failing_since: sql<Date>`coalesce(failing_since, now())` })
    .where("id", "=", endpointId)
    .returning([
      "failing_since",
      sql<boolean>`now() - failing_since >= make_interval(secs => ${disableAfterSeconds})`.as("overdue"),
    ])
    .executeTakeFirstOrThrow();
}

/** Ends a PENDING delivery as FAILED without an attempt (its endpoint is no longer enabled). */
export async function failPendingDelivery(tx: Kysely<Database>, deliveryId: string): Promise<void> {
  await tx
    .updateTable("webhook_deliveries")
    .set({ status: "FAILED", next_attempt_at: null, updated_at: sql<Date>`now()` })
    .where("id", "=", deliveryId)
    .where("status", "=", "PENDING")
    .execute();
}
