import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import type { WebhookObject } from "./payloads.ts";

/**
 * The outbox: a change records the events it causes with {@link recordEvent}, in the change's own
 * transaction, so an event exists exactly when its change committed. Delivery to endpoints happens
 * later, from the stored row (docs/webhooks.md).
 */

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

/** What a change reports: which account's endpoints hear it, the type, and `data`. */
export interface NewEvent {
  /** Internal id of the account whose endpoints receive the event. */
  accountId: string;
  type: WebhookEventType;
  /** The envelope's `data`: usually `object` plus any extra keys of the type; `{ test: true }` for test events. */
  data: { object?: WebhookObject } & Record<string, unknown>;
}

/** Records `event` in the transaction `tx` (never outside one: use the mutation's transaction). */
export async function recordEvent(tx: Kysely<Database>, event: NewEvent): Promise<void> {
  await tx
    .insertInto("webhook_events")
    .values({ account_id: event.accountId, type: event.type, data: JSON.stringify(event.data) })
    .execute();
}
