import { type Kysely, sql } from "kysely";

/**
 * Webhooks (docs/webhooks.md): the event outbox written in the same transaction as each change,
 * the endpoints events go to, one delivery per (event, endpoint) with its attempts, and the
 * generic job queue that delivers them (and that artifact processing reuses).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      type text NOT NULL,
      -- json, not jsonb: deliveries send the text as written, keys in the order the builders chose.
      data json NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX webhook_events_account_idx ON webhook_events (account_id, id)`.execute(db);

  // The secret is needed to sign, so it is encrypted (AES-256-GCM under a key derived from the
  // token pepper), never stored in the clear; `secret_last_four` is for display.
  // `failing_since`: the first failed attempt since the last successful one (null while healthy).
  // `last_test_ok_at`: the latest test event answered 2xx since the URL or secret last changed.
  await sql`
    CREATE TABLE webhook_endpoints (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      url text NOT NULL,
      event_types text[] NOT NULL CHECK (cardinality(event_types) > 0),
      secret_ciphertext bytea NOT NULL,
      secret_last_four text NOT NULL,
      status text NOT NULL DEFAULT 'PENDING_TEST' CHECK (status IN ('PENDING_TEST', 'ENABLED', 'DISABLED')),
      disabled_reason text,
      disabled_at timestamptz,
      last_test_ok_at timestamptz,
      failing_since timestamptz,
      last_success_at timestamptz,
      created_by bigint REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id, created_at, key)`.execute(
    db,
  );

  // The integer id is the envelope's `id` and the `x-assay-delivery` header: the same on every
  // attempt of one delivery.
  await sql`
    CREATE TABLE webhook_deliveries (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      endpoint_id bigint NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id bigint NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
      event_type text NOT NULL,
      status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
      attempt_count integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`
    CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at, key)`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id)`.execute(db);

  await sql`
    CREATE TABLE webhook_delivery_attempts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      attempted_at timestamptz NOT NULL,
      status_code integer,
      latency_ms integer NOT NULL,
      response_excerpt text,
      error text
    )`.execute(db);
  await sql`
    CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, id)`.execute(
    db,
  );

  // The job queue (src/jobs): claimed with FOR UPDATE SKIP LOCKED under a lease. Finished jobs
  // are deleted; FAILED ones stay for inspection. `dedupe_key` keeps one job per piece of work.
  await sql`
    CREATE TABLE jobs (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      kind text NOT NULL,
      payload jsonb NOT NULL,
      dedupe_key text UNIQUE,
      state text NOT NULL DEFAULT 'QUEUED' CHECK (state IN ('QUEUED', 'FAILED')),
      run_at timestamptz NOT NULL DEFAULT now(),
      attempts integer NOT NULL DEFAULT 0,
      locked_until timestamptz,
      lease_token text,
      locked_by text,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX jobs_due_idx ON jobs (run_at, id) WHERE state = 'QUEUED'`.execute(db);
}

/** Drops everything {@link up} created. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS jobs`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_delivery_attempts`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_deliveries`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_endpoints`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_events`.execute(db);
}
