import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import { enqueueJobs, type NewJob } from "../../jobs/job-store.ts";
import { findSubscribedEndpointIds, insertDeliveries, insertWebhookEvents } from "./event-store.ts";

/**
 * The outbox: a change records the events it causes with {@link recordEvent}, in the change's own
 * transaction, so an event exists exactly when its change committed. In that same transaction
 * the event gets one delivery per enabled endpoint subscribed to its type, each with a queued
 * job; the worker delivers them later, from the stored rows (docs/webhooks.md).
 *
 * This module sits below every domain whose changes cause events (accounts, repositories, the
 * ingestion pipeline's runs); the webhooks module, which manages endpoints and delivers, sits
 * above them. Each domain builds the payload objects of its own rows (`account-events.ts`,
 * `repository-events.ts`, the webhooks module's `payloads.ts` for runs and issues).
 */

/** A JSON object in a webhook payload: `object` names its GraphQL type (api-notes §10.4). */
export type WebhookObject = { object: string } & Record<string, unknown>;

/** UNIX seconds of a timestamp, as webhook payloads carry them. */
export function unixSeconds(at: Date | string | null): number | null {
  if (at === null) return null;
  return Math.floor(new Date(at).getTime() / 1000);
}

/** The contract's event types (api-notes §10.3) that Assay sends. */
export const WEBHOOK_EVENT_TYPES = [
  "analysis_run.started",
  "analysis_run.updated",
  "repository.analysis.activated",
  "repository.analysis.deactivated",
  "repository_issue.introduced",
  "repository_issue.resolved",
  "team_member.added",
  "team_member.removed",
  "team_member.updated",
  "test.event",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The test event: sent on demand to one endpoint, never subscribed to. */
export const TEST_EVENT_TYPE = "test.event" satisfies WebhookEventType;

/** The event types an endpoint can subscribe to: all but the test event. */
export const SUBSCRIBABLE_EVENT_TYPES: readonly WebhookEventType[] = WEBHOOK_EVENT_TYPES.filter(
  (type) => type !== TEST_EVENT_TYPE,
);

/** What a change reports: which account's endpoints hear it, the type, and `data`. */
export interface NewEvent {
  /** Internal id of the account whose endpoints receive the event. */
  accountId: string;
  type: WebhookEventType;
  /** The envelope's `data`: usually `object` plus any extra keys of the type; `{ test: true }` for test events. */
  data: { object?: WebhookObject } & Record<string, unknown>;
}

/** The job kind that delivers one webhook delivery. */
export const DELIVERY_JOB_KIND = "webhook.deliver";

/** The job that delivers delivery `deliveryId` (one per delivery, by its dedupe key). */
export function deliveryJob(deliveryId: string, delayMs = 0): NewJob {
  return { kind: DELIVERY_JOB_KIND, payload: { deliveryId }, dedupeKey: deliveryJobKey(deliveryId), delayMs };
}

/** The dedupe key of {@link deliveryJob}. */
export function deliveryJobKey(deliveryId: string): string {
  return `${DELIVERY_JOB_KIND}:${deliveryId}`;
}

/**
 * Records `event` in the transaction `tx` (never outside one: use the mutation's transaction),
 * with a delivery and its job for every enabled endpoint of the account subscribed to the type.
 */
export function recordEvent(tx: Kysely<Database>, event: NewEvent): Promise<void> {
  return recordEvents(tx, [event]);
}

/**
 * Records `events`, in order, as {@link recordEvent} does each, in a few statements whatever
 * their number: the events, the subscribed endpoints of each (account, type), the deliveries and
 * their jobs.
 */
export async function recordEvents(tx: Kysely<Database>, events: readonly NewEvent[]): Promise<void> {
  const eventIds = await insertWebhookEvents(tx, events);
  const endpointsOf = new Map<string, string[]>();
  const deliveries: Array<{ key: string; endpointId: string; eventId: string; eventType: string }> = [];
  for (const [index, event] of events.entries()) {
    if (event.type === TEST_EVENT_TYPE) continue;
    const subscribers = `${event.accountId}:${event.type}`;
    let endpointIds = endpointsOf.get(subscribers);
    if (endpointIds === undefined) {
      endpointIds = await findSubscribedEndpointIds(tx, event.accountId, event.type);
      endpointsOf.set(subscribers, endpointIds);
    }
    for (const endpointId of endpointIds)
      deliveries.push({ key: newRowKey(), endpointId, eventId: eventIds[index]!, eventType: event.type });
  }
  const deliveryIds = await insertDeliveries(tx, deliveries);
  await enqueueJobs(
    tx,
    deliveryIds.map((deliveryId) => deliveryJob(deliveryId)),
  );
}
