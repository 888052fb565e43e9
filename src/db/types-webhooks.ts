import type { ColumnType, Generated } from "kysely";
import type { CreatedAt, ForeignKey, Id } from "./types.ts";

/** Tables of migration 0006-webhooks: the event outbox, endpoints, deliveries and their attempts. */

export interface WebhookEventsTable {
  id: Generated<Id>;
  account_id: ForeignKey;
  type: string;
  /** The envelope's `data`, as JSON text on insert. */
  data: ColumnType<unknown, string, never>;
  created_at: CreatedAt;
}

export interface WebhookTables {
  webhook_events: WebhookEventsTable;
}
