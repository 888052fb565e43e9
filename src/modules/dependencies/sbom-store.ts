import { type Kysely, sql } from "kysely";
import { compareCodeUnits, compareIds, insertMissing } from "../../db/insert-missing.ts";
import type { Database, Ecosystem, RepositoryTargetRow, ScaCheckRow } from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import { catalogKey } from "../catalog/catalog-data.ts";
import { isAnalysedRun } from "../runs/run-store.ts";
import { baseScanOf, isLockfileGone, newestScanOfTarget } from "./dependencies-store.ts";

/**
 * What an SBOM upload writes (docs/ingestion-sbom.md): packages and their versions (global, keyed
 * like the demo's so both name a package the same way), the repository's targets, the SCA check
 * of the upload and the dependencies it found. Every function runs in the caller's transaction.
 */

/** Rows per INSERT: far below PostgreSQL's 65,535 parameters for the widest row here. */
const BATCH = 1000;

function batches<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += BATCH) out.push(rows.slice(i, i + BATCH));
  return out;
}

/** A package version to make sure of. */
export interface PackageVersionSpec {
  ecosystem: Ecosystem;
  name: string;
  /** The purl without version, stored on the package. */
  packagePurl: string;
  version: string;
}

/** The identity of a package version in the maps below: `ECOSYSTEM:name@version`. */
export function packageVersionRefOf(
  spec: Pick<PackageVersionSpec, "ecosystem" | "name" | "version">,
): string {
  return `${spec.ecosystem}:${spec.name}@${spec.version}`;
}

/**
 * The row key of a package or version named `name` (`package:NPM:left-pad`), and the one it takes
 * when another row already holds that key. Keys follow from names, so every installation and the
 * demo give a package the same key (and global id); but ten characters of a hash can collide
 * between two of the millions of versions a large installation may see, and the second would
 * otherwise never be stored.
 */
export function rowKeysOf(name: string): { key: string; fallback: string } {
  return { key: catalogKey(name), fallback: catalogKey(`${name}#2`) };
}

/** How versions of an ecosystem compare: semantic versions, or the ecosystem's own ordering. */
function versionTypeOf(ecosystem: Ecosystem): "SEMVER" | "ECOSYSTEM" {
  return ecosystem === "MAVEN" || ecosystem === "PYPI" ? "ECOSYSTEM" : "SEMVER";
}

/**
 * Makes sure every package and package version of `specs` exists (inserting missing ones, filling
 * a package's purl when it had none) and answers their ids by {@link packageVersionRefOf}.
 *
 * One statement inserts the missing packages and reads the known ones, one does the same for the
 * versions (see {@link insertMissing}); a known row is not written again, and the rows go in a
 * fixed order (by ecosystem and name, then by package and version), so two uploads that share
 * packages wait for each other instead of deadlocking.
 */
export async function upsertPackageVersions(
  tx: Kysely<Database>,
  specs: readonly PackageVersionSpec[],
): Promise<Map<string, { packageId: string; versionId: string }>> {
  const byPackage = new Map<string, PackageVersionSpec>();
  for (const spec of specs) byPackage.set(`${spec.ecosystem}:${spec.name}`, spec);
  const packages = [...byPackage.entries()]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([, spec]) => spec);
  const packageKeys = packages.map((p) => rowKeysOf(`package:${p.ecosystem}:${p.name}`));
  const packageRows = await insertMissing(
    tx,
    sql<{ id: string; ecosystem: Ecosystem; name: string; purl: string | null }>`
      WITH wanted AS (
        SELECT * FROM unnest(${packageKeys.map((k) => k.key)}::text[], ${packageKeys.map((k) => k.fallback)}::text[],
          ${packages.map((p) => p.ecosystem)}::text[], ${packages.map((p) => p.name)}::text[],
          ${packages.map((p) => p.packagePurl)}::text[])
          WITH ORDINALITY AS w (key, fallback_key, ecosystem, name, purl, position)
      ), inserted AS (
        INSERT INTO packages (key, ecosystem, name, purl)
        SELECT CASE WHEN EXISTS (SELECT 1 FROM packages AS taken WHERE taken.key = w.key) THEN w.fallback_key ELSE w.key END,
          ecosystem, name, purl
        FROM wanted AS w ORDER BY position
        ON CONFLICT DO NOTHING
        RETURNING id, ecosystem, name, purl
      )
      SELECT id, ecosystem, name, purl FROM inserted
      UNION ALL
      SELECT p.id, p.ecosystem, p.name, p.purl FROM packages AS p
      JOIN wanted AS w ON p.ecosystem = w.ecosystem AND p.name = w.name`,
    packages.length,
    (found) => {
      const seen = new Set(found.map((row) => `${row.ecosystem}:${row.name}`));
      const rest = packages.filter((p) => !seen.has(`${p.ecosystem}:${p.name}`));
      return sql`
        SELECT p.id, p.ecosystem, p.name, p.purl FROM packages AS p
        JOIN unnest(${rest.map((p) => p.ecosystem)}::text[], ${rest.map((p) => p.name)}::text[]) AS w (ecosystem, name)
          ON p.ecosystem = w.ecosystem AND p.name = w.name`;
    },
  );
  const packageIds = new Map(packageRows.map((row) => [`${row.ecosystem}:${row.name}`, row.id]));
  // A package stored without a purl (by an earlier version) gets the first one an SBOM gives it.
  // The rows are locked in id order first: an UPDATE … FROM locks them in whatever order its plan
  // joins them, and two uploads locking shared rows in different orders could deadlock.
  const purlless = packageRows
    .filter((row) => row.purl === null)
    .map((row) => ({ id: row.id, purl: byPackage.get(`${row.ecosystem}:${row.name}`)!.packagePurl }));
  if (purlless.length > 0) {
    await sql`
      WITH locked AS (
        SELECT id FROM packages WHERE id = ANY(${purlless.map((p) => p.id)}::bigint[]) AND purl IS NULL
        ORDER BY id FOR NO KEY UPDATE
      )
      UPDATE packages SET purl = w.purl
      FROM unnest(${purlless.map((p) => p.id)}::bigint[], ${purlless.map((p) => p.purl)}::text[]) AS w (id, purl)
      WHERE packages.id = w.id AND packages.id IN (SELECT id FROM locked) AND packages.purl IS NULL`.execute(
      tx,
    );
  }

  const byVersion = new Map<string, { spec: PackageVersionSpec; packageId: string }>();
  for (const spec of specs) {
    const packageId = packageIds.get(`${spec.ecosystem}:${spec.name}`)!;
    byVersion.set(`${packageId}@${spec.version}`, { spec, packageId });
  }
  const versions = [...byVersion.values()].sort(
    (a, b) => compareIds(a.packageId, b.packageId) || compareCodeUnits(a.spec.version, b.spec.version),
  );
  const versionKeys = versions.map((v) => rowKeysOf(`package-version:${packageVersionRefOf(v.spec)}`));
  const versionRows = await insertMissing(
    tx,
    sql<{ id: string; package_id: string; version: string }>`
      WITH wanted AS (
        SELECT * FROM unnest(${versionKeys.map((k) => k.key)}::text[], ${versionKeys.map((k) => k.fallback)}::text[],
          ${versions.map((v) => v.packageId)}::bigint[], ${versions.map((v) => v.spec.version)}::text[],
          ${versions.map((v) => versionTypeOf(v.spec.ecosystem))}::text[])
          WITH ORDINALITY AS w (key, fallback_key, package_id, version, version_type, position)
      ), inserted AS (
        INSERT INTO package_versions (key, package_id, version, version_type)
        SELECT CASE WHEN EXISTS (SELECT 1 FROM package_versions AS taken WHERE taken.key = w.key) THEN w.fallback_key ELSE w.key END,
          package_id, version, version_type
        FROM wanted AS w ORDER BY position
        ON CONFLICT DO NOTHING
        RETURNING id, package_id, version
      )
      SELECT id, package_id, version FROM inserted
      UNION ALL
      SELECT v.id, v.package_id, v.version FROM package_versions AS v
      JOIN wanted AS w ON v.package_id = w.package_id AND v.version = w.version`,
    versions.length,
    (found) => {
      const seen = new Set(found.map((row) => `${row.package_id}@${row.version}`));
      const rest = versions.filter((v) => !seen.has(`${v.packageId}@${v.spec.version}`));
      return sql`
        SELECT v.id, v.package_id, v.version FROM package_versions AS v
        JOIN unnest(${rest.map((v) => v.packageId)}::bigint[], ${rest.map((v) => v.spec.version)}::text[])
          AS w (package_id, version) ON v.package_id = w.package_id AND v.version = w.version`;
    },
  );
  const ids = new Map<string, { packageId: string; versionId: string }>();
  for (const row of versionRows) {
    const { spec } = byVersion.get(`${row.package_id}@${row.version}`)!;
    ids.set(packageVersionRefOf(spec), { packageId: row.package_id, versionId: row.id });
  }
  return ids;
}

/** A repository target an SBOM implies. */
export interface TargetSpec {
  ecosystem: Ecosystem;
  packageManager: string;
  manifestPath: string | null;
  lockfilePath: string;
}

/**
 * The repository's targets of these lockfiles, created (AUTO) when missing; an existing target
 * (detected before, or configured) is kept as it is. Answers them by lockfile path.
 */
export async function upsertRepositoryTargets(
  tx: Kysely<Database>,
  repositoryId: string,
  targets: readonly TargetSpec[],
): Promise<Map<string, RepositoryTargetRow>> {
  if (targets.length === 0) return new Map();
  const sorted = [...new Map(targets.map((t) => [t.lockfilePath, t])).values()].sort((a, b) =>
    compareCodeUnits(a.lockfilePath, b.lockfilePath),
  );
  const rows = await insertMissing(
    tx,
    sql<RepositoryTargetRow>`
      WITH wanted AS (
        SELECT * FROM unnest(${sorted.map(() => newRowKey())}::text[], ${sorted.map((t) => t.ecosystem)}::text[],
          ${sorted.map((t) => t.packageManager)}::text[], ${sorted.map((t) => t.manifestPath)}::text[],
          ${sorted.map((t) => t.lockfilePath)}::text[])
          WITH ORDINALITY AS w (key, ecosystem, package_manager, manifest_path, lockfile_path, position)
      ), inserted AS (
        INSERT INTO repository_targets (key, repository_id, ecosystem, package_manager, manifest_path, lockfile_path, source)
        SELECT key, ${repositoryId}::bigint, ecosystem, package_manager, manifest_path, lockfile_path, 'AUTO'
        FROM wanted ORDER BY position
        ON CONFLICT (repository_id, lockfile_path) DO NOTHING
        RETURNING *
      )
      SELECT * FROM inserted
      UNION ALL
      SELECT t.* FROM repository_targets AS t
      WHERE t.repository_id = ${repositoryId} AND t.lockfile_path IN (SELECT lockfile_path FROM wanted)`,
    sorted.length,
    (found) => {
      const seen = new Set(found.map((row) => row.lockfile_path));
      const rest = sorted.filter((t) => !seen.has(t.lockfilePath)).map((t) => t.lockfilePath);
      return sql`
        SELECT * FROM repository_targets
        WHERE repository_id = ${repositoryId} AND lockfile_path = ANY(${rest}::text[])`;
    },
  );
  return new Map(rows.map((row) => [row.lockfile_path, row]));
}

/**
 * Removes the run's earlier SCA checks of `targetId` (their dependencies and occurrences go with
 * them): a newer SBOM of the same target in the same run replaces the older one. Answers how many.
 */
export async function deleteScaChecksOfRunTarget(
  tx: Kysely<Database>,
  runId: string,
  targetId: string,
): Promise<number> {
  const deleted = await tx
    .deleteFrom("sca_checks")
    .where("run_id", "=", runId)
    .where("target_id", "=", targetId)
    .returning("id")
    .execute();
  return deleted.length;
}

/** A new SCA check with what its SBOM held. */
export interface NewScaCheck {
  runId: string;
  checkId: string;
  artifactId: string;
  targetId: string | null;
  format: string;
  dependencies: number;
  direct: number;
  transitive: number;
}

/** Inserts one SCA check (SUCCESS: the SBOM was read). */
export function insertScaCheck(tx: Kysely<Database>, check: NewScaCheck): Promise<ScaCheckRow> {
  return tx
    .insertInto("sca_checks")
    .values({
      key: newRowKey(),
      run_id: check.runId,
      check_id: check.checkId,
      artifact_id: check.artifactId,
      target_id: check.targetId,
      format: check.format,
      status: "SUCCESS",
      dependencies_count: check.dependencies,
      direct_dependencies_count: check.direct,
      transitive_dependencies_count: check.transitive,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** One dependency of an SCA check. */
export interface ScaDependencySpec {
  targetId: string;
  packageVersionId: string;
  isDirect: boolean;
  license: string | null;
}

/** Inserts the dependencies an SCA check found (one row per target and package version). */
export async function insertScaCheckDependencies(
  tx: Kysely<Database>,
  scaCheckId: string,
  dependencies: readonly ScaDependencySpec[],
): Promise<void> {
  for (const chunk of batches(dependencies)) {
    await tx
      .insertInto("sca_check_dependencies")
      .values(
        chunk.map((d) => ({
          sca_check_id: scaCheckId,
          target_id: d.targetId,
          package_version_id: d.packageVersionId,
          is_direct: d.isDirect,
          license_expression: d.license,
        })),
      )
      .execute();
  }
}

/**
 * The run's DDP value: how many distinct packages (any version, direct or transitive) the code of
 * the run depends on, over every target of the repository (docs/ingestion-sbom.md "DDP"). A
 * target the run scanned counts its scan; one it did not scan counts its newest scan on the run's
 * branch placed before the run in the history (`placed_at`: a late run of an older commit counts
 * its ancestors' scans, not its descendants'), chosen as its current scan is (docs/read-model.md
 * "Current dependency scans"), so a run whose CI sent one of several SBOMs does not lose the
 * other targets' packages. A deactivated target counts for nothing, its scan in this run
 * included; a scan of no known target counts. A detected target whose lockfile is gone
 * ({@link isLockfileGone}, this run's list included) counts as scanned and empty.
 */
export async function countDistinctPackagesOfRun(tx: Kysely<Database>, runId: string): Promise<number> {
  const { rows } = await sql<{ count: number }>`
    WITH run AS (SELECT id, repository_id, branch_name, placed_at, key FROM analysis_runs WHERE id = ${runId}),
    scans AS (
      SELECT s.id FROM sca_checks AS s
      LEFT JOIN repository_targets AS own_target ON own_target.id = s.target_id
      WHERE s.run_id = ${runId} AND (own_target.id IS NULL OR own_target.is_activated)
      UNION ALL
      SELECT earlier.id
      FROM run
      JOIN repository_targets AS target ON target.repository_id = run.repository_id
      CROSS JOIN LATERAL ${newestScanOfTarget(sql.ref("target.id"), sql.ref("run.branch_name"), {
        placedAt: sql.ref("run.placed_at"),
        key: sql.ref("run.key"),
      })} AS earlier
      WHERE target.is_activated
        AND NOT EXISTS (SELECT 1 FROM sca_checks AS own WHERE own.run_id = run.id AND own.target_id = target.id)
        AND NOT ${isLockfileGone("target", "earlier", sql.ref("run.branch_name"), {
          runId: sql.ref("run.id"),
          placedAt: sql.ref("run.placed_at"),
          key: sql.ref("run.key"),
        })}
    )
    SELECT count(DISTINCT v.package_id)::int AS count
    FROM scans
    JOIN sca_check_dependencies AS d ON d.sca_check_id = scans.id
    JOIN package_versions AS v ON v.id = d.package_version_id`.execute(tx);
  return rows[0]?.count ?? 0;
}

/**
 * The runs of run `runId`'s branch placed after it whose DDP ({@link countDistinctPackagesOfRun})
 * counts something of it: a target it scanned that they did not scan themselves, whose newest
 * scan before them is its; or, for runs sent no list of lockfiles, its list, the newest before
 * them, by which a target's lockfile is gone. Only runs that were sent an SBOM, oldest first,
 * read without locking them: once run `runId` is analysed, their DDP is counted again
 * (docs/ingestion.md "Where a run stands in the history"). With `stopped`, the runs that counted
 * its scans or its list before they stopped counting (a late SBOM failed to process, or the run
 * stopped being analysed): the newest counting scan of the target before them now stands behind
 * it, or there is none; and its list, when the run is no longer analysed.
 */
export async function findRunsCountingScansOf(
  db: Kysely<Database>,
  runId: string,
  { stopped = false } = {},
): Promise<string[]> {
  const newest = newestScanOfTarget(sql.ref("xs.target_id"), sql.ref("r.branch_name"), {
    placedAt: sql.ref("r.placed_at"),
    key: sql.ref("r.key"),
  });
  const counted = stopped
    ? sql`xs.target_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM ${newest} AS newest WHERE (newest.run_created_at, newest.run_key) >= (x.placed_at, x.key))`
    : sql`newest.id = xs.id`;
  const listCounted = stopped ? sql`AND ${isAnalysedRun("x")} IS NOT TRUE` : sql``;
  const { rows } = await sql<{ id: string }>`
    SELECT r.id::text AS id
    FROM analysis_runs AS x
    JOIN analysis_runs AS r ON r.repository_id = x.repository_id AND r.branch_name = x.branch_name
      AND (r.placed_at, r.key) > (x.placed_at, x.key)
    WHERE x.id = ${runId}
      AND EXISTS (SELECT 1 FROM artifacts AS a WHERE a.run_id = r.id AND a.kind = 'SBOM')
      AND (
        EXISTS (
          SELECT 1 FROM sca_checks AS xs ${stopped ? sql`` : sql`CROSS JOIN LATERAL ${newest} AS newest`}
          WHERE xs.run_id = x.id AND ${counted}
            AND NOT EXISTS (SELECT 1 FROM sca_checks AS own WHERE own.run_id = r.id AND own.target_id = xs.target_id))
        OR (x.lockfile_paths IS NOT NULL ${listCounted} AND r.lockfile_paths IS NULL AND NOT EXISTS (
          SELECT 1 FROM analysis_runs AS lr
          WHERE lr.repository_id = x.repository_id AND lr.branch_name = x.branch_name
            AND lr.lockfile_paths IS NOT NULL AND ${isAnalysedRun("lr")}
            AND (lr.placed_at, lr.key) > (x.placed_at, x.key) AND (lr.placed_at, lr.key) < (r.placed_at, r.key)))
      )
    ORDER BY r.created_at, r.key`.execute(db);
  return rows.map((row) => row.id);
}

/**
 * The runs whose scans compare with one of run `runId`'s scans (`findScaCheckWithBase`): runs
 * that scanned a target run `runId` scanned, whose base run is run `runId` or a later run of its
 * branch, and whose base scan of that target ({@link baseScanOf}) is run `runId`'s. Read, without
 * locking them, to match their scans again when run `runId` finishes analysed (it may have come
 * in late, after runs compared through a later run that did not scan the target: docs/ingestion.md
 * "Where a run stands in the history"; or have been sent a late SBOM), or before it leaves its
 * branch. Its scans of the target stand as base only while they count, so a run of another
 * branch (a pull request's) is found too. Read from `analysis_runs_branch_placed_idx`,
 * `analysis_runs_base_run_idx` and `sca_checks_target_branch_idx`. With `stopped`, the runs
 * whose base scan of such a target was run `runId`'s before it stopped counting (a late SBOM
 * failed to process, or the run stopped being analysed): their base scan now stands behind it, or
 * they have none.
 */
export async function findRunsComparingScansOf(
  db: Kysely<Database>,
  runId: string,
  { stopped = false } = {},
): Promise<string[]> {
  const compared = stopped
    ? sql`NOT EXISTS (SELECT 1 FROM ${baseScanOf(sql.ref("xs.target_id"), "b")} AS base
        WHERE (base.run_created_at, base.run_key) >= (x.placed_at, x.key))`
    : sql`EXISTS (SELECT 1 FROM ${baseScanOf(sql.ref("xs.target_id"), "b")} AS base WHERE base.id = xs.id)`;
  const { rows } = await sql<{ id: string }>`
    SELECT DISTINCT r.id::text AS id
    FROM analysis_runs AS x
    JOIN sca_checks AS xs ON xs.run_id = x.id
    JOIN analysis_runs AS b ON b.repository_id = x.repository_id AND b.branch_name = x.branch_name
      AND (b.placed_at, b.key) >= (x.placed_at, x.key)
    JOIN analysis_runs AS r ON r.base_run_id = b.id
    WHERE x.id = ${runId}
      AND EXISTS (SELECT 1 FROM sca_checks AS own WHERE own.run_id = r.id AND own.target_id = xs.target_id)
      AND ${compared}`.execute(db);
  return rows.map((row) => row.id);
}

/** Repository targets by internal id (foreign keys of rows already seen). */
export function findTargetsByIds(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<RepositoryTargetRow[]> {
  return db.selectFrom("repository_targets").selectAll().where("id", "in", ids).execute();
}
