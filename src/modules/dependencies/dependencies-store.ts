import { type Kysely, type RawBuilder, sql } from "kysely";
import type {
  Database,
  PackageRow,
  PackageVersionRow,
  RepositoryTargetRow,
  ScaCheckRow,
  VulnerabilityOccurrenceRow,
  VulnerabilityRow,
} from "../../db/types.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { isConclusiveCheck } from "../checks/current-check-store.ts";
import { isAnalysedRun } from "../runs/run-store.ts";
import { SEVERITIES_MOST_SEVERE_FIRST, UNRATED_RANK } from "./severity.ts";

/**
 * Dependencies and their vulnerabilities (SCA). Packages, their versions and vulnerabilities are
 * public advisory data, global like the analyzer catalog, so their lookups take no viewer. Targets,
 * SCA checks and vulnerability occurrences belong to a repository and are read through the
 * viewer's memberships.
 */

/** A vulnerability occurrence with the foreign keys its fields need, besides its own columns. */
export type VulnerabilityOccurrenceNode = VulnerabilityOccurrenceRow & {
  /** The package of the occurrence's package version, so both load in the same tick. */
  package_id: string;
};

/** A vulnerability occurrence read by key, with the repository it was found in. */
export type LocatedVulnerabilityOccurrence = VulnerabilityOccurrenceNode & { repository_id: string };

/** Packages by key. */
export function findPackagesByKeys(db: Kysely<Database>, keys: readonly string[]): Promise<PackageRow[]> {
  return db.selectFrom("packages").selectAll().where("key", "in", keys).execute();
}

/** Packages by internal id. */
export function findPackagesByIds(db: Kysely<Database>, ids: readonly string[]): Promise<PackageRow[]> {
  return db.selectFrom("packages").selectAll().where("id", "in", ids).execute();
}

/** Package versions by key. */
export function findPackageVersionsByKeys(
  db: Kysely<Database>,
  keys: readonly string[],
): Promise<PackageVersionRow[]> {
  return db.selectFrom("package_versions").selectAll().where("key", "in", keys).execute();
}

/** Package versions by internal id. */
export function findPackageVersionsByIds(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<PackageVersionRow[]> {
  return db.selectFrom("package_versions").selectAll().where("id", "in", ids).execute();
}

/** Vulnerabilities by key. */
export function findVulnerabilitiesByKeys(
  db: Kysely<Database>,
  keys: readonly string[],
): Promise<VulnerabilityRow[]> {
  return db.selectFrom("vulnerabilities").selectAll().where("key", "in", keys).execute();
}

/** Vulnerabilities by internal id. */
export function findVulnerabilitiesByIds(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<VulnerabilityRow[]> {
  return db.selectFrom("vulnerabilities").selectAll().where("id", "in", ids).execute();
}

/** Repository targets with these keys in repositories of accounts `viewerId` belongs to. */
export function findVisibleTargetsByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<RepositoryTargetRow[]> {
  return db
    .selectFrom("repository_targets as t")
    .innerJoin("repositories as repo", "repo.id", "t.repository_id")
    .innerJoin("memberships as m", "m.account_id", "repo.account_id")
    .selectAll("t")
    .where("m.user_id", "=", viewerId)
    .where("t.key", "in", keys)
    .execute();
}

/** SCA checks with these keys in runs of repositories `viewerId` can see. */
export function findVisibleScaChecksByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<ScaCheckRow[]> {
  return db
    .selectFrom("sca_checks as c")
    .innerJoin("analysis_runs as r", "r.id", "c.run_id")
    .innerJoin("repositories as repo", "repo.id", "r.repository_id")
    .innerJoin("memberships as m", "m.account_id", "repo.account_id")
    .selectAll("c")
    .where("m.user_id", "=", viewerId)
    .where("c.key", "in", keys)
    .execute();
}

/** Vulnerability occurrences with these keys in runs of repositories `viewerId` can see. */
export function findVisibleVulnerabilityOccurrencesByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<LocatedVulnerabilityOccurrence[]> {
  return db
    .selectFrom("vulnerability_occurrences as vo")
    .innerJoin("package_versions as pv", "pv.id", "vo.package_version_id")
    .innerJoin("sca_checks as c", "c.id", "vo.sca_check_id")
    .innerJoin("analysis_runs as r", "r.id", "c.run_id")
    .innerJoin("repositories as repo", "repo.id", "r.repository_id")
    .innerJoin("memberships as m", "m.account_id", "repo.account_id")
    .selectAll("vo")
    .select(["pv.package_id", "r.repository_id"])
    .where("m.user_id", "=", viewerId)
    .where("vo.key", "in", keys)
    .execute();
}

/** A repository's targets by lockfile path, then key. Parent: the repository id. */
export const targetsOfRepository: ConnectionSource = {
  name: "targetsOfRepository",
  from: sql`repository_targets`,
  parentColumn: "repository_id",
  order: [
    { column: "lockfile_path", kind: "text" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};

/** A run's SCA checks, oldest first. Parent: the run id. */
export const scaChecksOfRun: ConnectionSource = {
  name: "scaChecksOfRun",
  from: sql`sca_checks`,
  parentColumn: "run_id",
  order: [
    { column: "created_at", kind: "timestamptz" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};

// The order every vulnerability-occurrence connection shares: the vulnerability's overall severity
// (CRITICAL first, unrated last), then the occurrence's key.
const bySeverity = [
  { column: "severity_rank", kind: "integer" },
  { column: "key", kind: "text" },
] as const;

/**
 * The occurrences a SCA check found in its commit: INTRODUCED and EXISTING ones. RESOLVED rows
 * record a finding of the base that is gone and are only counted, never listed. Parent: the check.
 */
export const vulnerabilityOccurrencesOfScaCheck: ConnectionSource = {
  name: "vulnerabilityOccurrencesOfScaCheck",
  from: sql`(
    SELECT vo.*, pv.package_id, ${overallSeverityRankSql("v")} AS severity_rank
    FROM vulnerability_occurrences AS vo
    JOIN package_versions AS pv ON pv.id = vo.package_version_id
    JOIN vulnerabilities AS v ON v.id = vo.vulnerability_id
    WHERE vo.state <> 'RESOLVED'
  )`,
  parentColumn: "sca_check_id",
  order: bySeverity,
  direction: "asc",
};

/**
 * The current scan of each target of the repository row aliased `repository` (docs/read-model.md
 * "Current dependency scans"), as a lateral subquery of `sca_checks` rows: the target's newest
 * scan on the default branch in history order (`placed_at`: the order `analysisRuns` lists runs,
 * except that a late run of an older commit stands before its descendants'), of an analysed run
 * (`isAnalysedRun`) whose `sca` check says what the code holds (`isConclusiveCheck`): the rule an
 * analyzer's current check follows, applied per target. A newer run whose SBOM failed to process,
 * or that sent none of the target, leaves the target's vulnerabilities as they were; a newer scan
 * that finds none clears them. The configuration's `analyzers` list does not apply: it names code
 * analyzers, and dependency scanning is turned on by sending SBOMs. A scan stored before scans
 * belonged to an `sca` check (no `check_id`) is judged by its run alone. A detected target whose
 * lockfile is gone ({@link isLockfileGone}) has none. A deactivated target
 * (`is_activated` false: `deactivateRepositoryTarget`) has none, unless `deactivated` is
 * "include" (an advisory import matches its scan too, so reactivating it shows today's matches).
 * Each target's scan is read from `sca_checks_target_branch_idx` newest first, so the cost does
 * not grow with the length of the branch's history.
 */
export function currentScaChecksOf(
  repository: string,
  deactivated: "exclude" | "include" = "exclude",
): RawBuilder<unknown> {
  const repo = (name: string) => sql.ref(`${repository}.${name}`);
  const activated = deactivated === "exclude" ? sql`AND target.is_activated` : sql``;
  return sql`(
    SELECT newest.*
    FROM repository_targets AS target
    CROSS JOIN LATERAL ${newestScanOfTarget(sql.ref("target.id"), repo("default_branch"))} AS newest
    WHERE target.repository_id = ${repo("id")} ${activated}
      AND NOT ${isLockfileGone("target", "newest", repo("default_branch"))}
  )`;
}

/**
 * SQL true when the lockfile of the target aliased `target` is gone from the project as of its
 * newest scan aliased `scan` (a `sca_checks` row) on `branch` (docs/read-model.md "Current
 * dependency scans"): the target is AUTO (detected; a CUSTOM one is the user's to keep), the run
 * of its scan listed the lockfile among those git tracked (`analysis_runs.lockfile_paths`), and
 * the branch's newest analysed run with such a list, placed after that scan's run in the history
 * (`placed_at`, docs/ingestion.md "Where a run stands in the history"), does not. The target then
 * counts as scanned and empty. With `asOf`, the lists of runs placed up to that run count, that
 * run's own even while it is being processed (its DDP). The list is read from
 * `analysis_runs_lockfile_lists_placed_idx` (migration 0040), the `asOf` bound one of its
 * conditions.
 */
export function isLockfileGone(
  target: string,
  scan: string,
  branch: RawBuilder<unknown>,
  asOf?: { runId: RawBuilder<unknown>; placedAt: RawBuilder<unknown>; key: RawBuilder<unknown> },
): RawBuilder<boolean> {
  const t = (name: string) => sql.ref(`${target}.${name}`);
  const s = (name: string) => sql.ref(`${scan}.${name}`);
  const counted = asOf
    ? sql`(${isAnalysedRun("lr")} OR lr.id = ${asOf.runId})
        AND (lr.placed_at, lr.key) <= (${asOf.placedAt}, ${asOf.key})`
    : isAnalysedRun("lr");
  return sql<boolean>`(${t("source")} = 'AUTO'
    AND EXISTS (
      SELECT 1 FROM analysis_runs AS scanned
      WHERE scanned.id = ${s("run_id")} AND ${t("lockfile_path")} = ANY (scanned.lockfile_paths)
    )
    AND EXISTS (
      SELECT 1 FROM (
        SELECT lr.lockfile_paths, lr.placed_at, lr.key FROM analysis_runs AS lr
        WHERE lr.repository_id = ${t("repository_id")} AND lr.branch_name = ${branch}
          AND lr.lockfile_paths IS NOT NULL AND ${counted}
        ORDER BY lr.placed_at DESC, lr.key DESC
        LIMIT 1
      ) AS listed
      WHERE (listed.placed_at, listed.key) > (${s("run_created_at")}, ${s("run_key")})
        AND NOT (${t("lockfile_path")} = ANY (listed.lockfile_paths))
    ))`;
}

/**
 * A lateral subquery of one `sca_checks` row, or none: the newest scan of target `targetId` on
 * `branch` in history order that counts as a current scan ({@link currentScaChecksOf}), of a run
 * placed before `before` (its `placed_at` and key) when given, or at it too when `before.orAt`
 * (an SCA check's base scan: {@link baseScanOf}). A scan's `run_created_at` is its run's
 * `placed_at` (copied by the `checks_copy_run` trigger since migration 0035), so a late run of an
 * older commit stands before its descendants' scans. Both read `sca_checks_target_branch_idx`.
 */
export function newestScanOfTarget(
  targetId: RawBuilder<unknown>,
  branch: RawBuilder<unknown>,
  before?: { placedAt: RawBuilder<unknown>; key: RawBuilder<unknown>; orAt?: boolean },
): RawBuilder<unknown> {
  const earlier = before
    ? sql`AND (s.run_created_at, s.run_key) ${before.orAt ? sql`<=` : sql`<`} (${before.placedAt}, ${before.key})`
    : sql``;
  return sql`(
    SELECT s.* FROM sca_checks AS s
    JOIN analysis_runs AS sr ON sr.id = s.run_id
    LEFT JOIN checks AS sc ON sc.id = s.check_id
    WHERE s.target_id = ${targetId} AND s.branch_name = ${branch} ${earlier} AND ${isAnalysedRun("sr")}
      AND (s.check_id IS NULL OR ${isConclusiveCheck("sc")})
    ORDER BY s.run_created_at DESC, s.run_key DESC
    LIMIT 1
  )`;
}

/**
 * A lateral subquery of one `sca_checks` row, or none: the base scan of a scan of target
 * `targetId` whose run's base run is the `analysis_runs` row aliased `baseRun` (docs/ingestion.md
 * "Base"): the target's newest scan on the base run's branch at or before the base run in history
 * order that counts as a current scan ({@link newestScanOfTarget}): of an analysed run whose `sca`
 * check says what the code holds, so a scan of a run whose SBOM failed to process, or that sent
 * nothing storable (NEUTRAL), is walked past, as a run that did not scan the target is. The walk
 * a findings check's base check takes (`baseCheckOf`), per target.
 */
export function baseScanOf(targetId: RawBuilder<unknown>, baseRun: string): RawBuilder<unknown> {
  const base = (name: string) => sql.ref(`${baseRun}.${name}`);
  return newestScanOfTarget(targetId, base("branch_name"), {
    placedAt: base("placed_at"),
    key: base("key"),
    orAt: true,
  });
}

/**
 * A repository's current vulnerability occurrences: those of the current scan of each of its
 * targets ({@link currentScaChecksOf}), RESOLVED ones left out. Parent: the repository id.
 */
export const vulnerabilityOccurrencesOfRepository: ConnectionSource = {
  name: "vulnerabilityOccurrencesOfRepository",
  from: sql`(
    SELECT vo.*, pv.package_id, repo.id AS repository_id, ${overallSeverityRankSql("v")} AS severity_rank
    FROM repositories AS repo
    CROSS JOIN LATERAL ${currentScaChecksOf("repo")} AS cur
    JOIN vulnerability_occurrences AS vo ON vo.sca_check_id = cur.id
    JOIN package_versions AS pv ON pv.id = vo.package_version_id
    JOIN vulnerabilities AS v ON v.id = vo.vulnerability_id
    WHERE vo.state <> 'RESOLVED'
  )`,
  parentColumn: "repository_id",
  order: bySeverity,
  direction: "asc",
};

/** SQL for the rank of one severity column: 0 for CRITICAL … 4 for NONE, null for anything else. */
function rankOf(column: RawBuilder<unknown>): RawBuilder<number | null> {
  const cases = SEVERITIES_MOST_SEVERE_FIRST.map(
    (severity, rank) => sql`WHEN ${sql.lit(severity)} THEN ${sql.lit(rank)}`,
  );
  return sql<number | null>`(CASE ${column} ${sql.join(cases, sql` `)} END)`;
}

/**
 * SQL for severity.ts `severityRank` of `overallSeverity` of the vulnerability aliased `alias`;
 * never null. (`least` skips nulls in PostgreSQL, so it picks the highest CVSS rating present.)
 */
export function overallSeverityRankSql(alias: string): RawBuilder<number> {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<number>`coalesce(${rankOf(column("severity"))}, least(${rankOf(column("cvss_v2_severity"))}, ${rankOf(
    column("cvss_v3_severity"),
  )}, ${rankOf(column("cvss_v4_severity"))}), ${sql.lit(UNRATED_RANK)})`;
}
