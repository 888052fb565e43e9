import { type Kysely, sql } from "kysely";

/**
 * A late upload to a finished run (docs/ingestion.md "A late upload to a finished run").
 *
 * `analysis_runs.reopened_from`: the status a finished run had when an artifact uploaded after it
 * finished made it PENDING again; null otherwise. A run reopened from SUCCESS or FAILURE stays
 * its repository's current state while the artifact is processed.
 *
 * `repository_issue_announcements` and `announced_repository_issues`: per repository, the issues
 * the `repository_issue.*` webhook events last said were present, each with its open occurrences
 * then. The next events are the difference between this set and the repository's current state,
 * so an event is never sent twice for one change. The announcement row of a repository is also
 * what two transactions announcing for it lock, one after the other.
 *
 * Filled here from each repository's latest finished (SUCCESS or FAILURE) run on its default
 * branch, which is what the events sent so far described.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE analysis_runs ADD COLUMN reopened_from text
      CHECK (reopened_from IN ('SUCCESS', 'FAILURE', 'TIMEOUT', 'CANCEL', 'READY', 'SKIPPED')),
    ADD CONSTRAINT analysis_runs_reopened_pending CHECK (reopened_from IS NULL OR status = 'PENDING')`.execute(
    db,
  );
  await sql`
    CREATE TABLE repository_issue_announcements (
      repository_id bigint PRIMARY KEY REFERENCES repositories (id) ON DELETE CASCADE,
      run_id bigint REFERENCES analysis_runs (id) ON DELETE SET NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`
    CREATE TABLE announced_repository_issues (
      repository_id bigint NOT NULL REFERENCES repository_issue_announcements (repository_id) ON DELETE CASCADE,
      issue_id bigint NOT NULL REFERENCES issues (id),
      occurrences integer NOT NULL CHECK (occurrences > 0),
      PRIMARY KEY (repository_id, issue_id)
    )`.execute(db);
  await sql`CREATE INDEX announced_repository_issues_issue_idx ON announced_repository_issues (issue_id)`.execute(
    db,
  );
  await sql`
    INSERT INTO repository_issue_announcements (repository_id, run_id)
    SELECT repo.id, latest.id
    FROM repositories AS repo
    CROSS JOIN LATERAL (
      SELECT lr.id FROM analysis_runs AS lr
      WHERE lr.repository_id = repo.id AND lr.branch_name = repo.default_branch
        AND lr.status IN ('SUCCESS', 'FAILURE')
      ORDER BY lr.created_at DESC, lr.key DESC
      LIMIT 1
    ) AS latest`.execute(db);
  await sql`
    INSERT INTO announced_repository_issues (repository_id, issue_id, occurrences)
    SELECT a.repository_id, k.issue_id, sum(k.occurrences)
    FROM repository_issue_announcements AS a
    JOIN checks AS c ON c.run_id = a.run_id
    JOIN check_issue_counts AS k ON k.check_id = c.id
    WHERE k.state <> 'RESOLVED'
    GROUP BY a.repository_id, k.issue_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS announced_repository_issues`.execute(db);
  await sql`DROP TABLE IF EXISTS repository_issue_announcements`.execute(db);
  await sql`
    ALTER TABLE analysis_runs DROP CONSTRAINT IF EXISTS analysis_runs_reopened_pending,
    DROP COLUMN IF EXISTS reopened_from`.execute(db);
}
