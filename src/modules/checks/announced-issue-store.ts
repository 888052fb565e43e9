import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/types.ts";
import { latestDefaultBranchRun } from "../runs/run-store.ts";
import { currentChecksOf } from "./current-check-store.ts";

/**
 * The issues the `repository_issue.*` webhook events last announced for each repository, with
 * their open occurrences then (migration 0022; docs/ingestion.md "A late upload to a finished
 * run"). The next events are the difference between this set and the repository's current state.
 */

/** An announced set: open occurrences by issue id, and the run they were taken from. */
export interface AnnouncedIssues {
  runId: string | null;
  issues: ReadonlyMap<string, number>;
}

/**
 * The repository's announced set, its announcement row locked until the transaction ends (made
 * when it has none): two transactions announcing for one repository take turns, the second
 * reading what the first announced.
 */
export async function lockAnnouncedIssues(
  tx: Kysely<Database>,
  repositoryId: string,
): Promise<AnnouncedIssues> {
  await tx
    .insertInto("repository_issue_announcements")
    .values({ repository_id: repositoryId })
    .onConflict((oc) => oc.column("repository_id").doNothing())
    .execute();
  const head = await tx
    .selectFrom("repository_issue_announcements")
    .select("run_id")
    .where("repository_id", "=", repositoryId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const rows = await tx
    .selectFrom("announced_repository_issues")
    .select(["issue_id", "occurrences"])
    .where("repository_id", "=", repositoryId)
    .orderBy("issue_id")
    .execute();
  return {
    runId: head.run_id,
    issues: new Map(rows.map((row) => [String(row.issue_id), row.occurrences])),
  };
}

/**
 * Makes `next` the repository's announced set in place of `previous` (what
 * {@link lockAnnouncedIssues} answered), writing only what differs.
 */
export async function saveAnnouncedIssues(
  tx: Kysely<Database>,
  repositoryId: string,
  next: AnnouncedIssues,
  previous: AnnouncedIssues,
): Promise<void> {
  const gone = [...previous.issues.keys()].filter((id) => !next.issues.has(id));
  const changed = [...next.issues].filter(([id, count]) => previous.issues.get(id) !== count);
  if (gone.length > 0) {
    await tx
      .deleteFrom("announced_repository_issues")
      .where("repository_id", "=", repositoryId)
      .where("issue_id", "in", gone)
      .execute();
  }
  if (changed.length > 0) {
    await sql`
      INSERT INTO announced_repository_issues (repository_id, issue_id, occurrences)
      SELECT ${repositoryId}, u.issue_id, u.occurrences
      FROM unnest(cast(${changed.map(([id]) => id)} as bigint[]), cast(${changed.map(([, n]) => n)} as int[]))
        AS u (issue_id, occurrences)
      ON CONFLICT (repository_id, issue_id) DO UPDATE SET occurrences = excluded.occurrences`.execute(tx);
  }
  if (gone.length > 0 || changed.length > 0 || next.runId !== previous.runId) {
    await tx
      .updateTable("repository_issue_announcements")
      .set({ run_id: next.runId, updated_at: sql<Date>`now()` })
      .where("repository_id", "=", repositoryId)
      .execute();
  }
}

/**
 * Makes each of these repositories' announced set its current state (the open issues of its
 * current findings, noted with its latest analysed default-branch run) without announcing
 * anything: for data written in bulk (the demo), whose history no receiver heard. Answers the
 * rows written per table.
 */
export async function resetAnnouncedIssues(
  tx: Kysely<Database>,
  repositoryIds: readonly string[],
): Promise<{ announcements: number; issues: number }> {
  const ids = sql`cast(${repositoryIds} as bigint[])`;
  await sql`DELETE FROM repository_issue_announcements WHERE repository_id = ANY(${ids})`.execute(tx);
  const heads = await sql`
    INSERT INTO repository_issue_announcements (repository_id, run_id)
    SELECT repo.id, latest.id
    FROM repositories AS repo
    LEFT JOIN LATERAL ${latestDefaultBranchRun("repo")} AS latest ON true
    WHERE repo.id = ANY(${ids})`.execute(tx);
  const issues = await sql`
    INSERT INTO announced_repository_issues (repository_id, issue_id, occurrences)
    SELECT repo.id, k.issue_id, sum(k.occurrences)
    FROM repositories AS repo
    CROSS JOIN LATERAL ${currentChecksOf("repo")} AS cur
    JOIN check_issue_counts AS k ON k.check_id = cur.check_id
    WHERE repo.id = ANY(${ids}) AND k.state <> 'RESOLVED'
    GROUP BY repo.id, k.issue_id`.execute(tx);
  return { announcements: Number(heads.numAffectedRows ?? 0), issues: Number(issues.numAffectedRows ?? 0) };
}
