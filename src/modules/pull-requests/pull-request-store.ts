import { type Kysely, sql } from "kysely";
import type { AnalysisRunRow, Database, PullRequestRow } from "../../db/types.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { overallSeverityRankSql } from "../dependencies/dependencies-store.ts";

/**
 * Pull requests and what is read from their newest run. A pull request belongs to a repository
 * and is seen through the viewer's memberships; its runs are `analysis_runs` rows whose
 * `pull_request_id` points at it.
 */

/** Pull requests with these keys in repositories `viewerId` can see. */
export function findVisiblePullRequestsByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<PullRequestRow[]> {
  return db
    .selectFrom("pull_requests as pr")
    .innerJoin("repositories as repo", "repo.id", "pr.repository_id")
    .innerJoin("memberships as m", "m.account_id", "repo.account_id")
    .selectAll("pr")
    .where("m.user_id", "=", viewerId)
    .where("pr.key", "in", keys)
    .execute();
}

/**
 * Pull requests by (repository id, number). Callers pass repositories the viewer already sees,
 * so no membership check is repeated here.
 */
export async function findPullRequestsByNumbers(
  db: Kysely<Database>,
  pairs: ReadonlyArray<{ repositoryId: string; number: number }>,
): Promise<PullRequestRow[]> {
  const result = await sql<PullRequestRow>`
    SELECT pr.* FROM pull_requests AS pr
    WHERE (pr.repository_id, pr.number) IN (
      SELECT * FROM unnest(cast(${pairs.map((p) => p.repositoryId)} as bigint[]),
                           cast(${pairs.map((p) => p.number)} as integer[])))`.execute(db);
  return result.rows;
}

/**
 * The latest run of each of these pull requests that has a run, with the pull request id it was
 * found for: the run of its head commit when there is one (a head stored abbreviated matches the
 * commits it abbreviates), else its newest run (by `created_at`, then key). So a late job of a
 * head that a force-push replaced does not become the latest. One statement for all of them.
 */
export async function findLatestRunsOfPullRequests(
  db: Kysely<Database>,
  pullRequestIds: readonly string[],
): Promise<Array<AnalysisRunRow & { pull_request_id: string }>> {
  const result = await sql<AnalysisRunRow & { pull_request_id: string }>`
    SELECT DISTINCT ON (r.pull_request_id) r.*
    FROM analysis_runs AS r
    JOIN pull_requests AS p ON p.id = r.pull_request_id
    WHERE r.pull_request_id = ANY(cast(${pullRequestIds} as bigint[]))
    ORDER BY r.pull_request_id,
      coalesce(r.commit_oid = p.head_commit_oid
        OR (length(p.head_commit_oid) < 40 AND starts_with(r.commit_oid, p.head_commit_oid)), false) DESC,
      r.created_at DESC, r.key DESC`.execute(db);
  return result.rows;
}

/** The ids of the checks of these runs, one row per check. */
export function findCheckIdsOfRuns(
  db: Kysely<Database>,
  runIds: readonly string[],
): Promise<Array<{ id: string; run_id: string }>> {
  return db.selectFrom("checks").select(["id", "run_id"]).where("run_id", "in", runIds).execute();
}

/** A repository's pull requests, newest first. Parent: the repository id. */
export const pullRequestsOfRepository: ConnectionSource = {
  name: "pullRequestsOfRepository",
  from: sql`pull_requests`,
  parentColumn: "repository_id",
  order: [
    { column: "created_at", kind: "timestamptz" },
    { column: "key", kind: "text" },
  ],
  direction: "desc",
};

/** The filter `pullRequests(branch:)` applies: the pull request's source branch. */
export function pullRequestBranchFilter(branch: string | null | undefined) {
  if (branch === null || branch === undefined) return undefined;
  return { key: `branch:${branch}`, condition: sql<boolean>`s.branch = ${branch}` };
}

/**
 * The vulnerability occurrences the SCA checks of a run found, RESOLVED ones left out, in the
 * order of every vulnerability-occurrence connection: overall severity (CRITICAL first, unrated
 * last), then key. Parent: the run id.
 */
export const vulnerabilityOccurrencesOfRun: ConnectionSource = {
  name: "vulnerabilityOccurrencesOfRun",
  from: sql`(
    SELECT vo.*, pv.package_id, sc.run_id, ${overallSeverityRankSql("v")} AS severity_rank
    FROM sca_checks AS sc
    JOIN vulnerability_occurrences AS vo ON vo.sca_check_id = sc.id
    JOIN package_versions AS pv ON pv.id = vo.package_version_id
    JOIN vulnerabilities AS v ON v.id = vo.vulnerability_id
    WHERE vo.state <> 'RESOLVED'
  )`,
  parentColumn: "run_id",
  order: [
    { column: "severity_rank", kind: "integer" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};
