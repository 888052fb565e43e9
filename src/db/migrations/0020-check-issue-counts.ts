import { type Kysely, sql } from "kysely";

/**
 * How many published occurrences each check has of each issue, by the finding's own severity,
 * state and suppression: the counts the API answers (a check's and a run's summaries, a
 * repository's issues, an issue's `occurrences.totalCount`) without reading the occurrences
 * themselves. A summary is rewritten for a check whenever what its reads show changes: when an
 * artifact is published, when a check loses its RESOLVED rows, and when the demo writes its data
 * (docs/design-issue-counts.md). Deleting a check deletes its summary.
 *
 * `severity` is the occurrences' own and null for those that take their issue's, which is looked
 * up when read: an issue's severity can still be graded after its findings were counted.
 *
 * The table is filled here from the occurrences already stored, the published ones (those of no
 * artifact, or of an artifact no longer QUEUED); an artifact QUEUED now writes its check's summary
 * when it is published.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE check_issue_counts (
      check_id bigint NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
      issue_id bigint NOT NULL REFERENCES issues (id),
      severity text CHECK (severity IN ('CRITICAL', 'MAJOR', 'MINOR')),
      state text NOT NULL CHECK (state IN ('INTRODUCED', 'EXISTING', 'RESOLVED')),
      is_suppressed boolean NOT NULL,
      occurrences integer NOT NULL CHECK (occurrences > 0)
    )`.execute(db);
  await sql`CREATE INDEX check_issue_counts_check_issue_idx ON check_issue_counts (check_id, issue_id)`.execute(
    db,
  );
  await sql`CREATE INDEX check_issue_counts_issue_idx ON check_issue_counts (issue_id)`.execute(db);
  await sql`
    INSERT INTO check_issue_counts (check_id, issue_id, severity, state, is_suppressed, occurrences)
    SELECT o.check_id, o.issue_id, o.severity, o.state, o.is_suppressed, count(*)
    FROM occurrences AS o
    WHERE o.artifact_id IS NULL OR o.artifact_id NOT IN (SELECT q.id FROM artifacts AS q WHERE q.status = 'QUEUED')
    GROUP BY o.check_id, o.issue_id, o.severity, o.state, o.is_suppressed`.execute(db);
  await sql`ANALYZE check_issue_counts`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS check_issue_counts`.execute(db);
}
