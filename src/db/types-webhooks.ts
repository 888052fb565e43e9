import type { ColumnType, Generated, Selectable } from "kysely";
import type { CreatedAt, ForeignKey, Id, NullableTimestamp, Timestamp } from "./types.ts";

/**
 * Tables of migration 0006-webhooks: the event outbox, endpoints, deliveries and their attempts,
 * and the generic job queue.
 */

/** Where an endpoint stands (docs/webhooks.md "Status"). */
export type WebhookEndpointStatus = "PENDING_TEST" | "ENABLED" | "DISABLED";

/** Where a delivery stands: queued or waiting for a retry, answered 2xx, or given up. */
export type WebhookDeliveryStatus = "PENDING" | "SUCCEEDED" | "FAILED";

/** A job is QUEUED until it finishes (and is deleted) or its handler gives up on it (FAILED). */
export type JobState = "QUEUED" | "FAILED";

type WithDefault<T> = ColumnType<T, T | undefined, T>;
type NullableForeignKey = ColumnType<
  string | null,
  string | number | bigint | null | undefined,
  string | number | bigint | null
>;

export interface WebhookEventsTable {
  id: Generated<Id>;
  account_id: ForeignKey;
  type: string;
  /** The envelope's `data`, as JSON text on insert. */
  data: ColumnType<unknown, string, never>;
  created_at: CreatedAt;
}

export interface WebhookEndpointsTable {
  id: Generated<Id>;
  key: string;
  account_id: ForeignKey;
  url: string;
  event_types: string[];
  /** nonce (12 bytes) ‖ GCM tag (16 bytes) ‖ ciphertext of the secret. */
  secret_ciphertext: Buffer;
  secret_last_four: string;
  status: WithDefault<WebhookEndpointStatus>;
  disabled_reason: string | null;
  disabled_at: NullableTimestamp;
  last_test_ok_at: NullableTimestamp;
  failing_since: NullableTimestamp;
  last_success_at: NullableTimestamp;
  created_by: NullableForeignKey;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: Generated<Id>;
  key: string;
  endpoint_id: ForeignKey;
  event_id: ForeignKey;
  event_type: string;
  status: WithDefault<WebhookDeliveryStatus>;
  attempt_count: WithDefault<number>;
  next_attempt_at: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface WebhookDeliveryAttemptsTable {
  id: Generated<Id>;
  delivery_id: ForeignKey;
  attempted_at: Timestamp;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

export interface JobsTable {
  id: Generated<Id>;
  kind: string;
  /** JSON text on insert; parsed on select. */
  payload: ColumnType<unknown, string, string>;
  dedupe_key: string | null;
  state: WithDefault<JobState>;
  run_at: Timestamp;
  attempts: WithDefault<number>;
  locked_until: NullableTimestamp;
  lease_token: string | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface WebhookTables {
  webhook_events: WebhookEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  jobs: JobsTable;
}

export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookDeliveryAttemptRow = Selectable<WebhookDeliveryAttemptsTable>;
export type JobRow = Selectable<JobsTable>;
