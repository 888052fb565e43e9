import { type Kysely, sql } from "kysely";

/**
 * `issues.account_id`: the account an issue belongs to, or none for the shared catalog
 * (docs/ingestion-sarif.md "An account's issues are its own", docs/decisions.md). An issue that an
 * upload files for a rule the shared catalog does not have (every rule of a COMMUNITY analyzer, a
 * rule a CORE analyzer does not know yet) now belongs to the uploading repository's account, so
 * no other account's upload can rewrite what that account reads of it. Its shortcode is unique
 * within its analyzer and account; a shared issue's, within its analyzer among shared ones.
 *
 * Every issue stored before is shared, as it was filed. A COMMUNITY analyzer's issue that one
 * account alone uses (its checks counted findings of it, or its team or one of its repositories
 * silences it) becomes that account's: the account's uploads keep describing it as before, and no
 * other account's reach it. One that several accounts use, or none, stays shared; uploads no
 * longer rewrite a shared issue, so it keeps what it says now, and an account without findings of
 * it files its own from its next upload on. No row is removed or repointed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE issues ADD COLUMN account_id bigint REFERENCES accounts (id) ON DELETE CASCADE`.execute(
    db,
  );
  await sql`ALTER TABLE issues DROP CONSTRAINT issues_analyzer_id_shortcode_key`.execute(db);
  await sql`
    CREATE UNIQUE INDEX issues_shared_shortcode_key ON issues (analyzer_id, shortcode)
    WHERE account_id IS NULL`.execute(db);
  await sql`
    CREATE UNIQUE INDEX issues_account_shortcode_key ON issues (analyzer_id, account_id, shortcode)
    WHERE account_id IS NOT NULL`.execute(db);
  await sql`
    UPDATE issues AS i SET account_id = used.account_id
    FROM (
      SELECT uses.issue_id, min(uses.account_id) AS account_id
      FROM (
        SELECT k.issue_id, r.account_id
        FROM check_issue_counts AS k
        JOIN checks AS c ON c.id = k.check_id
        JOIN analysis_runs AS run ON run.id = c.run_id
        JOIN repositories AS r ON r.id = run.repository_id
        UNION
        SELECT g.issue_id, r.account_id
        FROM ignore_rules AS g JOIN repositories AS r ON r.id = g.repository_id
        UNION
        SELECT t.issue_id, t.account_id FROM team_suppressed_issues AS t
      ) AS uses
      GROUP BY uses.issue_id
      HAVING count(DISTINCT uses.account_id) = 1
    ) AS used, analyzers AS a
    WHERE i.id = used.issue_id AND a.id = i.analyzer_id AND a.type = 'COMMUNITY'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS issues_account_shortcode_key`.execute(db);
  await sql`DROP INDEX IF EXISTS issues_shared_shortcode_key`.execute(db);
  await sql`ALTER TABLE issues DROP COLUMN IF EXISTS account_id`.execute(db);
  await sql`ALTER TABLE issues ADD CONSTRAINT issues_analyzer_id_shortcode_key UNIQUE (analyzer_id, shortcode)`.execute(
    db,
  );
}
