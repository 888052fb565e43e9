import { type Kysely, sql } from "kysely";

/**
 * Users, accounts, memberships, personal access tokens, repositories, analysis runs and the
 * installation. Every row that the API exposes as a node has a `key`: the short random string
 * inside its global id, so integer primary keys never leave the database.
 *
 * Enumerations are text with CHECK constraints rather than PostgreSQL enums: adding a value later
 * is then a constraint swap inside a transaction, which both PostgreSQL 15 and PGlite run.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE installation (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      singleton boolean NOT NULL DEFAULT true UNIQUE CHECK (singleton),
      name text NOT NULL,
      logo_url text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  await sql`
    CREATE TABLE users (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      email text NOT NULL,
      first_name text NOT NULL DEFAULT '',
      last_name text NOT NULL DEFAULT '',
      analytics_id uuid NOT NULL,
      is_beta_tester boolean NOT NULL DEFAULT false,
      ide_subscription_plan text CHECK (ide_subscription_plan IN ('FREE', 'PRO', 'SPONSORED')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX users_email_lower_idx ON users (lower(email))`.execute(db);

  await sql`
    CREATE TABLE accounts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      login text NOT NULL,
      vcs_provider text NOT NULL CHECK (vcs_provider IN
        ('GITHUB', 'GITLAB', 'BITBUCKET', 'BITBUCKET_DATACENTER', 'GITHUB_ENTERPRISE', 'GSR', 'ADS')),
      type text NOT NULL CHECK (type IN ('INDIVIDUAL', 'TEAM')),
      avatar_url text,
      vcs_url text,
      is_beta_tester boolean NOT NULL DEFAULT false,
      subscription_plan text NOT NULL DEFAULT 'FREE'
        CHECK (subscription_plan IN ('FREE', 'STARTER', 'BUSINESS', 'ENTERPRISE')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX accounts_provider_login_idx ON accounts (vcs_provider, lower(login))`.execute(
    db,
  );

  await sql`
    CREATE TABLE memberships (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('ADMIN', 'MEMBER', 'CONTRIBUTOR')),
      is_owner boolean NOT NULL DEFAULT false,
      joined_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (account_id, user_id)
    )`.execute(db);
  // Keyset order of a user's accounts and of an account's members.
  await sql`CREATE INDEX memberships_user_idx ON memberships (user_id, account_id)`.execute(db);
  await sql`CREATE INDEX memberships_account_joined_idx ON memberships (account_id, joined_at, key)`.execute(
    db,
  );

  await sql`
    CREATE TABLE personal_access_tokens (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL,
      token_hash bytea NOT NULL UNIQUE,
      last_four text NOT NULL,
      expires_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX personal_access_tokens_user_idx ON personal_access_tokens (user_id, created_at)`.execute(
    db,
  );

  await sql`
    CREATE TABLE repositories (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      name text NOT NULL,
      vcs_url text,
      is_private boolean NOT NULL DEFAULT true,
      is_activated boolean NOT NULL DEFAULT false,
      default_branch text,
      latest_commit_oid text,
      config_json jsonb,
      dsn_generation integer NOT NULL DEFAULT 1,
      allow_autofix_ai boolean NOT NULL DEFAULT false,
      use_legacy_autofix boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX repositories_account_name_idx ON repositories (account_id, lower(name))`.execute(
    db,
  );
  // Keyset order of an account's repositories: by name, then key.
  await sql`CREATE INDEX repositories_account_order_idx ON repositories (account_id, name, key)`.execute(db);

  await sql`
    CREATE TABLE analysis_runs (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      run_uid uuid NOT NULL UNIQUE,
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      branch_name text,
      base_oid text,
      commit_oid text NOT NULL,
      status text NOT NULL CHECK (status IN
        ('PENDING', 'SUCCESS', 'FAILURE', 'TIMEOUT', 'CANCEL', 'READY', 'SKIPPED')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    )`.execute(db);
  // Newest first, per repository and per (repository, branch); the random key breaks ties.
  await sql`CREATE INDEX analysis_runs_repository_order_idx ON analysis_runs (repository_id, created_at DESC, key DESC)`.execute(
    db,
  );
  await sql`CREATE INDEX analysis_runs_branch_order_idx ON analysis_runs (repository_id, branch_name, created_at DESC, key DESC)`.execute(
    db,
  );
  await sql`CREATE INDEX analysis_runs_commit_idx ON analysis_runs (commit_oid)`.execute(db);
}

/** Drops everything {@link up} created. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "analysis_runs",
    "repositories",
    "personal_access_tokens",
    "memberships",
    "accounts",
    "users",
    "installation",
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
