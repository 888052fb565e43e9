import { type Kysely, sql } from "kysely";

/**
 * Pull requests from the providers' webhooks (docs/vcs-events.md): each repository's incoming
 * webhook secret (encrypted), the deliveries already applied (for idempotency, kept for a
 * while), the heads of its branches, and on each pull request its head and base commits, the
 * provider's time of the last change applied (so an older event never undoes a newer one) and the
 * merge base when the provider says it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`
    CREATE TABLE repository_vcs_secrets (
      repository_id bigint PRIMARY KEY REFERENCES repositories (id) ON DELETE CASCADE,
      secret_encrypted bytea NOT NULL,
      secret_last_four text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  await run(sql`
    CREATE TABLE vcs_deliveries (
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      delivery_id text NOT NULL,
      provider text NOT NULL CHECK (provider IN ('GITHUB', 'GITLAB')),
      event text NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (repository_id, delivery_id)
    )`);
  await run(sql`CREATE INDEX vcs_deliveries_received_idx ON vcs_deliveries (received_at)`);
  await run(sql`
    CREATE TABLE branch_heads (
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      branch text NOT NULL,
      commit_oid text NOT NULL,
      pushed_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (repository_id, branch)
    )`);
  await run(sql`ALTER TABLE pull_requests ADD COLUMN head_commit_oid text`);
  await run(sql`ALTER TABLE pull_requests ADD COLUMN base_commit_oid text`);
  await run(sql`ALTER TABLE pull_requests ADD COLUMN merge_base_oid text`);
  await run(sql`ALTER TABLE pull_requests ADD COLUMN vcs_updated_at timestamptz`);
  await run(
    sql`CREATE INDEX pull_requests_head_commit_idx ON pull_requests (repository_id, head_commit_oid) WHERE head_commit_oid IS NOT NULL`,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS pull_requests_head_commit_idx`.execute(db);
  for (const column of ["vcs_updated_at", "merge_base_oid", "base_commit_oid", "head_commit_oid"]) {
    await sql`ALTER TABLE pull_requests DROP COLUMN IF EXISTS ${sql.ref(column)}`.execute(db);
  }
  for (const table of ["branch_heads", "vcs_deliveries", "repository_vcs_secrets"]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
