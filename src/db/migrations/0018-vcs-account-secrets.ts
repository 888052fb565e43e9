import { type Kysely, sql } from "kysely";

/**
 * Account-wide incoming webhook secrets and Bitbucket deliveries (docs/vcs-events.md): one
 * encrypted secret per account that authenticates deliveries for every repository of the account
 * without a secret of its own (a GitHub App's single webhook secret, a GitLab group webhook's
 * token), and `BITBUCKET` among the providers a recorded delivery may come from.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE account_vcs_secrets (
      account_id bigint PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
      secret_encrypted bytea NOT NULL,
      secret_last_four text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`ALTER TABLE vcs_deliveries DROP CONSTRAINT vcs_deliveries_provider_check`.execute(db);
  await sql`
    ALTER TABLE vcs_deliveries ADD CONSTRAINT vcs_deliveries_provider_check
      CHECK (provider IN ('GITHUB', 'GITLAB', 'BITBUCKET'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM vcs_deliveries WHERE provider = 'BITBUCKET'`.execute(db);
  await sql`ALTER TABLE vcs_deliveries DROP CONSTRAINT vcs_deliveries_provider_check`.execute(db);
  await sql`
    ALTER TABLE vcs_deliveries ADD CONSTRAINT vcs_deliveries_provider_check
      CHECK (provider IN ('GITHUB', 'GITLAB'))`.execute(db);
  await sql`DROP TABLE IF EXISTS account_vcs_secrets`.execute(db);
}
