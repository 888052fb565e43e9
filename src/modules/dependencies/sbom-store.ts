import { type Kysely, sql } from "kysely";
import type { Database, Ecosystem, RepositoryTargetRow, ScaCheckRow } from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import { catalogKey } from "../catalog/catalog-data.ts";

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

/** How versions of an ecosystem compare: semantic versions, or the ecosystem's own ordering. */
function versionTypeOf(ecosystem: Ecosystem): "SEMVER" | "ECOSYSTEM" {
  return ecosystem === "MAVEN" || ecosystem === "PYPI" ? "ECOSYSTEM" : "SEMVER";
}

/**
 * Makes sure every package and package version of `specs` exists (inserting missing ones, filling
 * a package's purl when it had none) and answers their ids by {@link packageVersionRefOf}.
 */
export async function upsertPackageVersions(
  tx: Kysely<Database>,
  specs: readonly PackageVersionSpec[],
): Promise<Map<string, { packageId: string; versionId: string }>> {
  const packages = new Map<string, PackageVersionSpec>();
  for (const spec of specs) packages.set(`${spec.ecosystem}:${spec.name}`, spec);
  const packageIds = new Map<string, string>();
  for (const chunk of batches([...packages.values()])) {
    await tx
      .insertInto("packages")
      .values(
        chunk.map((p) => ({
          key: catalogKey(`package:${p.ecosystem}:${p.name}`),
          ecosystem: p.ecosystem,
          name: p.name,
          purl: p.packagePurl,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["ecosystem", "name"]).doUpdateSet({ purl: sql`coalesce(packages.purl, excluded.purl)` }),
      )
      .execute();
    const stored = await tx
      .selectFrom("packages")
      .select(["id", "ecosystem", "name"])
      .where(
        sql<boolean>`(ecosystem, name) IN (${sql.join(chunk.map((p) => sql`(${p.ecosystem}, ${p.name})`))})`,
      )
      .execute();
    for (const row of stored) packageIds.set(`${row.ecosystem}:${row.name}`, row.id);
  }

  const versions = new Map<string, PackageVersionSpec>();
  for (const spec of specs) versions.set(packageVersionRefOf(spec), spec);
  const ids = new Map<string, { packageId: string; versionId: string }>();
  for (const chunk of batches([...versions.values()])) {
    const rows = chunk.map((v) => ({
      key: catalogKey(`package-version:${packageVersionRefOf(v)}`),
      package_id: packageIds.get(`${v.ecosystem}:${v.name}`)!,
      version: v.version,
      version_type: versionTypeOf(v.ecosystem),
    }));
    await tx
      .insertInto("package_versions")
      .values(rows)
      .onConflict((oc) => oc.columns(["package_id", "version"]).doNothing())
      .execute();
    const stored = await tx
      .selectFrom("package_versions")
      .select(["id", "package_id", "version"])
      .where(
        sql<boolean>`(package_id, version) IN (${sql.join(rows.map((r) => sql`(${r.package_id}::bigint, ${r.version})`))})`,
      )
      .execute();
    const byPackage = new Map(
      chunk.map((v) => [`${packageIds.get(`${v.ecosystem}:${v.name}`)}@${v.version}`, v]),
    );
    for (const row of stored) {
      const spec = byPackage.get(`${row.package_id}@${row.version}`);
      if (spec) ids.set(packageVersionRefOf(spec), { packageId: row.package_id, versionId: row.id });
    }
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
  await tx
    .insertInto("repository_targets")
    .values(
      targets.map((t) => ({
        key: newRowKey(),
        repository_id: repositoryId,
        ecosystem: t.ecosystem,
        package_manager: t.packageManager,
        manifest_path: t.manifestPath,
        lockfile_path: t.lockfilePath,
        source: "AUTO" as const,
      })),
    )
    .onConflict((oc) => oc.columns(["repository_id", "lockfile_path"]).doNothing())
    .execute();
  const rows = await tx
    .selectFrom("repository_targets")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where(
      "lockfile_path",
      "in",
      targets.map((t) => t.lockfilePath),
    )
    .execute();
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
 * How many distinct packages the run's SCA checks found (any version, direct or transitive, every
 * target): the run's DDP value.
 */
export async function countDistinctPackagesOfRun(tx: Kysely<Database>, runId: string): Promise<number> {
  const row = await tx
    .selectFrom("sca_check_dependencies as d")
    .innerJoin("sca_checks as s", "s.id", "d.sca_check_id")
    .innerJoin("package_versions as v", "v.id", "d.package_version_id")
    .select(sql<number>`count(DISTINCT v.package_id)::int`.as("count"))
    .where("s.run_id", "=", runId)
    .executeTakeFirstOrThrow();
  return row.count;
}

/** Repository targets by internal id (foreign keys of rows already seen). */
export function findTargetsByIds(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<RepositoryTargetRow[]> {
  return db.selectFrom("repository_targets").selectAll().where("id", "in", ids).execute();
}
