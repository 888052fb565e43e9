import { type Kysely, sql } from "kysely";

/**
 * Webhooks (docs/webhooks.md): the event outbox written in the same transaction as each change,
 * and what delivery needs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      type text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX webhook_events_account_idx ON webhook_events (account_id, id)`.execute(db);
}

/** Drops everything {@link up} created. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS webhook_events`.execute(db);
}
