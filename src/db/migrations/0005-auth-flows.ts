import { type Kysely, sql } from "kysely";

/**
 * Device login and session tokens (docs/workflows.md, docs/api.md "Tokens and device login").
 * Secrets (device codes, user codes, refresh tokens) are stored only as HMAC-SHA256 under the
 * token pepper, like personal access tokens.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per `registerDevice`. `user_id` is who approved or denied it; `token_id` the personal
  // access token the exchange issued.
  await sql`
    CREATE TABLE device_authorizations (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      device_code_hash bytea NOT NULL UNIQUE,
      user_code_hash bytea NOT NULL,
      device_type text NOT NULL CHECK (device_type IN ('CLI', 'IDE')),
      status text NOT NULL DEFAULT 'PENDING'
        CHECK (status IN ('PENDING', 'APPROVED', 'DENIED', 'EXCHANGED')),
      user_id bigint REFERENCES users (id) ON DELETE CASCADE,
      token_id bigint REFERENCES personal_access_tokens (id) ON DELETE SET NULL,
      interval_seconds integer NOT NULL CHECK (interval_seconds > 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      last_polled_at timestamptz,
      decided_at timestamptz
    )`.execute(db);
  // A user code names one device while it can still be approved or exchanged.
  await sql`
    CREATE UNIQUE INDEX device_authorizations_open_user_code_idx ON device_authorizations (user_code_hash)
    WHERE status IN ('PENDING', 'APPROVED')`.execute(db);
  await sql`CREATE INDEX device_authorizations_expires_idx ON device_authorizations (expires_at)`.execute(db);

  // A session is one family of refresh tokens: each refresh rotates the token within the family,
  // and revoking the session ends every token of it (and the access tokens that name it).
  await sql`
    CREATE TABLE sessions (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz,
      revoked_reason text CHECK (revoked_reason IN ('REVOKED', 'REUSED'))
    )`.execute(db);
  await sql`CREATE INDEX sessions_user_idx ON sessions (user_id)`.execute(db);
  await sql`
    CREATE TABLE refresh_tokens (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      session_id bigint NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      token_hash bytea NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      rotated_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id)`.execute(db);
}

/** Drops everything {@link up} created. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS refresh_tokens`.execute(db);
  await sql`DROP TABLE IF EXISTS sessions`.execute(db);
  await sql`DROP TABLE IF EXISTS device_authorizations`.execute(db);
}
