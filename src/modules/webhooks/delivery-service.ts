import { type Kysely, sql } from "kysely";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/types.ts";
import type { WebhookDeliveryStatus, WebhookEndpointStatus } from "../../db/types-webhooks.ts";
import type { JobOutcome } from "../../jobs/worker.ts";
import { TEST_EVENT_TYPE } from "../events/outbox.ts";
import { type AttemptResult, deliveryHeaders, postWebhook } from "./delivery-http.ts";
import { describeDuration, retryDelayMs } from "./delivery-policy.ts";
import { webhookEnvelope } from "./payloads.ts";
import { decryptSecret, SecretUnreadableError } from "./secrets.ts";
import { disableEndpoint } from "./webhook-store.ts";

/**
 * Delivering one delivery: what an attempt needs ({@link loadDeliveryContext}), the attempt
 * itself ({@link attemptDelivery}, outside any transaction), and what it leaves behind
 * ({@link settleAttempt}: the attempt's log row, the delivery's status, the endpoint's health).
 * Used by the delivery job and, for test events, by the mutation that sends them.
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

/** The body every attempt of a delivery sends: the same bytes each time. */
export function deliveryBody(
  context: Pick<DeliveryContext, "deliveryId" | "eventType" | "eventCreatedAt" | "data">,
) {
  return JSON.stringify(
    webhookEnvelope(context.deliveryId, context.eventType, context.eventCreatedAt, context.data),
  );
}

/**
 * One attempt: decrypts the secret, signs the body with this moment's timestamp, and posts it
 * (checking the address again and connecting to the one checked). Throws only when `signal`
 * aborts it.
 */
export async function attemptDelivery(
  context: DeliveryContext,
  config: Config,
  signal?: AbortSignal,
): Promise<AttemptResult> {
  let secret: string;
  try {
    secret = decryptSecret(context.secretCiphertext, context.endpointKey, config.tokenPepper);
  } catch (error) {
    if (!(error instanceof SecretUnreadableError)) throw error;
    return {
      attemptedAt: new Date(),
      statusCode: null,
      latencyMs: 0,
      responseExcerpt: null,
      error: `not sent: ${error.message}`,
      succeeded: false,
    };
  }
  const body = deliveryBody(context);
  const headers = deliveryHeaders({
    deliveryId: context.deliveryId,
    eventType: context.eventType,
    secret,
    body,
    timestamp: Math.floor(Date.now() / 1000),
  });
  return postWebhook(context.url, body, headers, {
    timeoutMs: config.webhookTimeoutMs,
    allowHttp: config.webhookAllowHttp,
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    signal,
  });
}

/** The configuration {@link settleAttempt} decides with. */
export type SettleSettings = Pick<
  Config,
  "webhookBackoffBaseMs" | "webhookBackoffMaxMs" | "webhookRetryWindowSeconds" | "webhookDisableAfterSeconds"
>;

/**
 * Records `result` as an attempt of the delivery and moves everything on, in `tx`:
 * - 2xx: the delivery SUCCEEDED; the endpoint's failure count is reset (and a test answered 2xx
 *   enables a PENDING_TEST endpoint).
 * - a failed test: the delivery FAILED (tests are not retried).
 * - any other failure: the endpoint's failure clock starts (or goes on), and disables the
 *   endpoint once it has failed every attempt for too long; otherwise the delivery is retried
 *   after the backoff while it is inside the retry window, or FAILED.
 * Answers what happens to the delivery's job. A delivery that is no longer PENDING (settled by
 * another path) only gets the attempt logged.
 */
export async function settleAttempt(
  tx: Kysely<Database>,
  context: DeliveryContext,
  result: AttemptResult,
  settings: SettleSettings,
): Promise<JobOutcome> {
  const done: JobOutcome = { status: "done" };
  // Endpoint before delivery: the lock order every writer follows.
  const endpoint = await tx
    .selectFrom("webhook_endpoints")
    .select(["id", "status"])
    .where("id", "=", context.endpointId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  const delivery = await tx
    .selectFrom("webhook_deliveries")
    .select([
      "status",
      "attempt_count",
      sql<boolean>`now() < created_at + make_interval(secs => ${settings.webhookRetryWindowSeconds})`.as(
        "in_window",
      ),
    ])
    .where("id", "=", context.deliveryId)
    .forUpdate()
    .executeTakeFirst();
  if (!endpoint || !delivery) return done;
  await tx
    .insertInto("webhook_delivery_attempts")
    .values({
      delivery_id: context.deliveryId,
      attempted_at: result.attemptedAt,
      status_code: result.statusCode,
      latency_ms: result.latencyMs,
      response_excerpt: result.responseExcerpt,
      error: result.error,
    })
    .execute();
  if (delivery.status !== "PENDING") return done;
  const attemptCount = delivery.attempt_count + 1;
  const isTest = context.eventType === TEST_EVENT_TYPE;
  const setDelivery = (status: WebhookDeliveryStatus, nextInMs: number | null) =>
    tx
      .updateTable("webhook_deliveries")
      .set({
        status,
        attempt_count: attemptCount,
        next_attempt_at:
          nextInMs === null ? null : sql<Date>`now() + make_interval(secs => ${nextInMs / 1000})`,
        updated_at: sql<Date>`now()`,
      })
      .where("id", "=", context.deliveryId)
      .execute();

  if (result.succeeded) {
    await setDelivery("SUCCEEDED", null);
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
      .where("id", "=", endpoint.id)
      .execute();
    return done;
  }
  if (isTest) {
    await setDelivery("FAILED", null);
    await tx
      .updateTable("webhook_endpoints")
      .set({ last_test_ok_at: null })
      .where("id", "=", endpoint.id)
      .execute();
    return done;
  }
  const health = await tx
    .updateTable("webhook_endpoints")
    .set({ failing_since: sql<Date>`coalesce(failing_since, now())` })
    .where("id", "=", endpoint.id)
    .returning([
      "failing_since",
      sql<boolean>`now() - failing_since >= make_interval(secs => ${settings.webhookDisableAfterSeconds})`.as(
        "overdue",
      ),
    ])
    .executeTakeFirstOrThrow();
  if (endpoint.status === "ENABLED" && health.overdue) {
    await setDelivery("FAILED", null);
    await disableEndpoint(
      tx,
      endpoint.id,
      `Every delivery attempt failed for ${describeDuration(settings.webhookDisableAfterSeconds)} (since ${new Date(health.failing_since ?? Date.now()).toISOString()}); disabled automatically.`,
    );
    return done;
  }
  if (delivery.in_window && endpoint.status === "ENABLED") {
    const delayMs = retryDelayMs(attemptCount, {
      baseMs: settings.webhookBackoffBaseMs,
      maxMs: settings.webhookBackoffMaxMs,
    });
    await setDelivery("PENDING", delayMs);
    return { status: "retry", delayMs, error: result.error ?? `HTTP ${result.statusCode}` };
  }
  await setDelivery("FAILED", null);
  return done;
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
