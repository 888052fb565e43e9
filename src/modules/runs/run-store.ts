import { type Kysely, sql } from "kysely";
import type { AnalysisRunRow, Database, NewAnalysisRun } from "../../db/types.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";

function visibleRuns(db: Kysely<Database>, viewerId: string) {
  return db
    .selectFrom("analysis_runs as r")
    .innerJoin("repositories as repo", "repo.id", "r.repository_id")
    .innerJoin("memberships as m", "m.account_id", "repo.account_id")
    .selectAll("r")
    .where("m.user_id", "=", viewerId);
}

/** Runs with these keys in repositories `viewerId` can see. */
export function findVisibleRunsByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<AnalysisRunRow[]> {
  return visibleRuns(db, viewerId).where("r.key", "in", keys).execute();
}

/** A run by its UID, if `viewerId` can see its repository. */
export function findVisibleRunByUid(
  db: Kysely<Database>,
  viewerId: string,
  runUid: string,
): Promise<AnalysisRunRow | undefined> {
  return visibleRuns(db, viewerId).where("r.run_uid", "=", runUid).executeTakeFirst();
}

/**
 * The newest run of a commit among the repositories `viewerId` can see. A commit can be analysed
 * more than once (re-runs, forks); the newest is what a client asking by commit means.
 */
export function findVisibleRunByCommit(
  db: Kysely<Database>,
  viewerId: string,
  commitOid: string,
): Promise<AnalysisRunRow | undefined> {
  return visibleRuns(db, viewerId)
    .where("r.commit_oid", "=", commitOid)
    .orderBy("r.created_at", "desc")
    .orderBy("r.id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** Inserts a run and returns the stored row. */
export function insertRun(db: Kysely<Database>, run: NewAnalysisRun): Promise<AnalysisRunRow> {
  return db.insertInto("analysis_runs").values(run).returningAll().executeTakeFirstOrThrow();
}

/** A repository's runs, newest first. Parent: the repository id. */
export const runsOfRepository: ConnectionSource = {
  name: "runsOfRepository",
  from: sql`analysis_runs`,
  parentColumn: "repository_id",
  order: [
    { column: "created_at", kind: "timestamptz" },
    { column: "key", kind: "text" },
  ],
  direction: "desc",
};

/** The filter `analysisRuns(branch:)` applies. */
export function branchFilter(branch: string | null | undefined) {
  if (branch === null || branch === undefined) return undefined;
  return { key: `branch:${branch}`, condition: sql<boolean>`s.branch_name = ${branch}` };
}

/**
 * The run a repository's current state is read from: its newest SUCCESS or FAILURE run on its
 * default branch, in the order `analysisRuns` lists runs. A lateral subquery over the repository
 * row aliased `repository`; repository issues, issue occurrences and dependency vulnerabilities
 * all read this one run.
 */
export function latestDefaultBranchRun(repository: string) {
  return sql`(
    SELECT lr.* FROM analysis_runs AS lr
    WHERE lr.repository_id = ${sql.ref(`${repository}.id`)}
      AND lr.branch_name = ${sql.ref(`${repository}.default_branch`)}
      AND lr.status IN ('SUCCESS', 'FAILURE')
    ORDER BY lr.created_at DESC, lr.key DESC
    LIMIT 1
  )`;
}
