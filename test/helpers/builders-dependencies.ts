import type { Insertable, Kysely } from "kysely";
import type {
  AnalysisRunRow,
  CheckRow,
  Database,
  Ecosystem,
  FindingState,
  PackageRow,
  PackageVersionRow,
  RepositoryRow,
  RepositoryTargetRow,
  ScaCheckRow,
  VulnerabilitiesTable,
  VulnerabilityOccurrenceRow,
  VulnerabilityRow,
  VulnerabilitySeverity,
} from "../../src/db/types.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";

/**
 * Builders for the dependency model: packages, versions and vulnerabilities (global), and a
 * repository's targets, SCA checks and vulnerability occurrences. Names are unique by default so
 * tests sharing one database never collide.
 */

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${newRowKey().slice(0, 4)}`;

/** Inserts a package. */
export function aPackage(
  db: Kysely<Database>,
  fields: Partial<{ ecosystem: Ecosystem; name: string; purl: string | null }> = {},
): Promise<PackageRow> {
  const name = fields.name ?? unique("pkg");
  const ecosystem = fields.ecosystem ?? "NPM";
  return db
    .insertInto("packages")
    .values({
      key: newRowKey(),
      ecosystem,
      name,
      purl: fields.purl === undefined ? `pkg:${ecosystem.toLowerCase()}/${name}` : fields.purl,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Inserts a version of `pkg`. */
export function aPackageVersion(
  db: Kysely<Database>,
  pkg: PackageRow,
  fields: Partial<{ version: string; versionType: PackageVersionRow["version_type"] }> = {},
): Promise<PackageVersionRow> {
  return db
    .insertInto("package_versions")
    .values({
      key: newRowKey(),
      package_id: pkg.id,
      version: fields.version ?? `1.${++counter}.0`,
      version_type: fields.versionType === undefined ? "SEMVER" : fields.versionType,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

type VulnerabilityFields = Omit<
  Insertable<VulnerabilitiesTable>,
  "key" | "identifier" | "published_at" | "updated_at"
> &
  Partial<Pick<Insertable<VulnerabilitiesTable>, "identifier" | "published_at" | "updated_at">>;

/** Inserts a vulnerability; by default only identifier, dates and `severity` (MEDIUM) are set. */
export function aVulnerability(
  db: Kysely<Database>,
  fields: VulnerabilityFields & { severity?: VulnerabilitySeverity | null } = {},
): Promise<VulnerabilityRow> {
  return db
    .insertInto("vulnerabilities")
    .values({
      identifier: unique("GHSA"),
      published_at: new Date("2025-01-02T03:04:05.000Z"),
      updated_at: new Date("2025-02-03T04:05:06.000Z"),
      severity: "MEDIUM",
      ...fields,
      key: newRowKey(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Inserts a dependency-scanning target of `repository`. */
export function aTarget(
  db: Kysely<Database>,
  repository: RepositoryRow,
  fields: Partial<{
    ecosystem: Ecosystem;
    packageManager: string;
    manifestPath: string | null;
    lockfilePath: string;
    source: "AUTO" | "CUSTOM";
    isActivated: boolean;
  }> = {},
): Promise<RepositoryTargetRow> {
  return db
    .insertInto("repository_targets")
    .values({
      key: newRowKey(),
      repository_id: repository.id,
      ecosystem: fields.ecosystem ?? "NPM",
      package_manager: fields.packageManager ?? "NPM",
      manifest_path: fields.manifestPath === undefined ? "package.json" : fields.manifestPath,
      lockfile_path: fields.lockfilePath ?? `${unique("app")}/package-lock.json`,
      source: fields.source ?? "AUTO",
      is_activated: fields.isActivated ?? true,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Inserts a SCA check of `run`: a scan of `target` when given, belonging to the run's `sca` check
 * `check` when given (scans stored before migration 0015 have none).
 */
export function anScaCheck(
  db: Kysely<Database>,
  run: AnalysisRunRow,
  fields: Partial<{ target: RepositoryTargetRow; check: CheckRow; createdAt: Date | string }> = {},
): Promise<ScaCheckRow> {
  return db
    .insertInto("sca_checks")
    .values({
      key: newRowKey(),
      run_id: run.id,
      check_id: fields.check?.id ?? null,
      target_id: fields.target?.id ?? null,
      created_at: fields.createdAt ?? new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What one occurrence needs; the rest defaults (state EXISTING, reachability and fixability too). */
export interface OccurrenceSpec {
  vulnerability: VulnerabilityRow;
  version: PackageVersionRow;
  state?: FindingState;
  reachability?: VulnerabilityOccurrenceRow["reachability"];
  fixability?: VulnerabilityOccurrenceRow["fixability"];
  key?: string;
}

/** Inserts occurrences found by `check`, in one statement, in the order given. */
export async function vulnerabilityOccurrences(
  db: Kysely<Database>,
  check: ScaCheckRow,
  specs: readonly OccurrenceSpec[],
): Promise<VulnerabilityOccurrenceRow[]> {
  if (specs.length === 0) return [];
  const keys = specs.map((spec) => spec.key ?? newRowKey());
  const rows = await db
    .insertInto("vulnerability_occurrences")
    .values(
      specs.map((spec, i) => ({
        key: keys[i]!,
        sca_check_id: check.id,
        vulnerability_id: spec.vulnerability.id,
        package_version_id: spec.version.id,
        state: spec.state ?? "EXISTING",
        reachability: spec.reachability ?? "UNKNOWN",
        fixability: spec.fixability ?? "POSSIBLY_FIXABLE",
      })),
    )
    .returningAll()
    .execute();
  const byKey = new Map(rows.map((row) => [row.key, row]));
  return keys.map((key) => byKey.get(key)!);
}

/** Inserts one occurrence found by `check`. */
export async function aVulnerabilityOccurrence(
  db: Kysely<Database>,
  check: ScaCheckRow,
  spec: OccurrenceSpec,
): Promise<VulnerabilityOccurrenceRow> {
  const [row] = await vulnerabilityOccurrences(db, check, [spec]);
  return row!;
}

/** Records that SCA check `check` found these versions in `target` (as SBOM processing does). */
export async function scaCheckDependencies(
  db: Kysely<Database>,
  check: ScaCheckRow,
  target: RepositoryTargetRow,
  versions: readonly PackageVersionRow[],
): Promise<void> {
  if (versions.length === 0) return;
  await db
    .insertInto("sca_check_dependencies")
    .values(
      versions.map((version) => ({
        sca_check_id: check.id,
        target_id: target.id,
        package_version_id: version.id,
        is_direct: true,
      })),
    )
    .execute();
}
