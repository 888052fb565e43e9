import type { Kysely } from "kysely";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/types.ts";
import type { WebhookDeliveryStatus } from "../../db/types-webhooks.ts";
import type { JobOutcome } from "../../jobs/worker.ts";
import { TEST_EVENT_TYPE } from "../events/outbox.ts";
import { type AttemptResult, deliveryHeaders, postWebhook } from "./delivery-http.ts";
import { describeDuration, retryDelayMs } from "./delivery-policy.ts";
import {
  clearEndpointTestPassed,
  type DeliveryContext,
  insertDeliveryAttempt,
  lockDeliveryForSettling,
  lockEndpointForSettling,
  recordEndpointFailure,
  recordEndpointSuccess,
  updateDeliveryStatus,
} from "./delivery-store.ts";
import { webhookEnvelope } from "./payloads.ts";
import { decryptSecret, SecretUnreadableError } from "./secrets.ts";
import { disableEndpoint } from "./webhook-store.ts";

/**
 * Delivering one delivery: what an attempt needs (delivery-store.ts `loadDeliveryContext`), the attempt
 * itself ({@link attemptDelivery}, outside any transaction), and what it leaves behind
 * ({@link settleAttempt}: the attempt's log row, the delivery's status, the endpoint's health).
 * Used by the delivery job and, for test events, by the mutation that sends them.
 */

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
  const endpoint = await lockEndpointForSettling(tx, context.endpointId);
  const delivery = await lockDeliveryForSettling(tx, context.deliveryId, settings.webhookRetryWindowSeconds);
  if (!endpoint || !delivery) return done;
  await insertDeliveryAttempt(tx, context.deliveryId, result);
  if (delivery.status !== "PENDING") return done;
  const attemptCount = delivery.attempt_count + 1;
  const isTest = context.eventType === TEST_EVENT_TYPE;
  const setDelivery = (status: WebhookDeliveryStatus, nextInMs: number | null) =>
    updateDeliveryStatus(tx, context.deliveryId, status, attemptCount, nextInMs);

  if (result.succeeded) {
    await setDelivery("SUCCEEDED", null);
    await recordEndpointSuccess(tx, endpoint.id, isTest);
    return done;
  }
  if (isTest) {
    await setDelivery("FAILED", null);
    await clearEndpointTestPassed(tx, endpoint.id);
    return done;
  }
  const health = await recordEndpointFailure(tx, endpoint.id, settings.webhookDisableAfterSeconds);
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
