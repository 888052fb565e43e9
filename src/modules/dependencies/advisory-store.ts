import { type Kysely, sql } from "kysely";
import type {
  Database,
  Ecosystem,
  VulnerabilityOccurrenceRow,
  VulnerabilitySeverity,
} from "../../db/types.ts";
import type { StoredRange } from "../../db/types-advisories.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import { isAnalysedRun } from "../runs/run-store.ts";
import { baseScanOf, currentScaChecksOf } from "./dependencies-store.ts";

/**
 * SQL of advisory import and matching (docs/advisories.md): vulnerabilities upserted from OSV
 * records with their affected packages, EPSS scores, the package versions of an SCA check, and the
 * check's vulnerability occurrences.
 */

/** One vulnerability as the importer writes it. */
export interface AdvisoryWrite {
  identifier: string;
  aliases: string[];
  summary: string | null;
  details: string | null;
  severity: VulnerabilitySeverity | null;
  cvss: Record<"v2" | "v3" | "v4", { vector: string; score: number; severity: VulnerabilitySeverity } | null>;
  publishedAt: Date;
  modifiedAt: Date;
  withdrawnAt: Date | null;
  introducedVersions: string[];
  fixedVersions: string[];
  referenceUrls: string[];
  packages: { ecosystem: Ecosystem; name: string; ranges: StoredRange[]; versions: string[] }[];
}

/** The `modified` time each of these identifiers was last imported with (absent: never imported). */
export async function findImportedModified(
  db: Kysely<Database>,
  identifiers: readonly string[],
): Promise<Map<string, number>> {
  if (identifiers.length === 0) return new Map();
  const rows = await db
    .selectFrom("vulnerabilities")
    .select(["identifier", "source_modified"])
    .where("identifier", "in", identifiers)
    .execute();
  return new Map(
    rows.flatMap((r) => (r.source_modified ? [[r.identifier, new Date(r.source_modified).getTime()]] : [])),
  );
}

/**
 * Inserts or replaces vulnerabilities by identifier (keeping each one's key, so its global id and
 * occurrences stay), and replaces their affected packages. Returns the ids by identifier.
 */
export async function upsertAdvisories(
  tx: Kysely<Database>,
  advisories: readonly AdvisoryWrite[],
): Promise<Map<string, string>> {
  if (advisories.length === 0) return new Map();
  const rows = await tx
    .insertInto("vulnerabilities")
    .values(
      advisories.map((a) => ({
        key: newRowKey(),
        identifier: a.identifier,
        aliases: a.aliases,
        summary: a.summary,
        details: a.details,
        severity: a.severity,
        cvss_v2_vector: a.cvss.v2?.vector ?? null,
        cvss_v2_base_score: a.cvss.v2?.score ?? null,
        cvss_v2_severity: a.cvss.v2?.severity ?? null,
        cvss_v3_vector: a.cvss.v3?.vector ?? null,
        cvss_v3_base_score: a.cvss.v3?.score ?? null,
        cvss_v3_severity: a.cvss.v3?.severity ?? null,
        cvss_v4_vector: a.cvss.v4?.vector ?? null,
        cvss_v4_base_score: a.cvss.v4?.score ?? null,
        cvss_v4_severity: a.cvss.v4?.severity ?? null,
        published_at: a.publishedAt,
        updated_at: a.modifiedAt,
        source_modified: a.modifiedAt,
        withdrawn_at: a.withdrawnAt,
        introduced_versions: a.introducedVersions,
        fixed_versions: a.fixedVersions,
        reference_urls: a.referenceUrls,
      })),
    )
    .onConflict((oc) =>
      oc.column("identifier").doUpdateSet((eb) => ({
        aliases: eb.ref("excluded.aliases"),
        summary: eb.ref("excluded.summary"),
        details: eb.ref("excluded.details"),
        severity: eb.ref("excluded.severity"),
        cvss_v2_vector: eb.ref("excluded.cvss_v2_vector"),
        cvss_v2_base_score: eb.ref("excluded.cvss_v2_base_score"),
        cvss_v2_severity: eb.ref("excluded.cvss_v2_severity"),
        cvss_v3_vector: eb.ref("excluded.cvss_v3_vector"),
        cvss_v3_base_score: eb.ref("excluded.cvss_v3_base_score"),
        cvss_v3_severity: eb.ref("excluded.cvss_v3_severity"),
        cvss_v4_vector: eb.ref("excluded.cvss_v4_vector"),
        cvss_v4_base_score: eb.ref("excluded.cvss_v4_base_score"),
        cvss_v4_severity: eb.ref("excluded.cvss_v4_severity"),
        published_at: eb.ref("excluded.published_at"),
        updated_at: eb.ref("excluded.updated_at"),
        source_modified: eb.ref("excluded.source_modified"),
        withdrawn_at: eb.ref("excluded.withdrawn_at"),
        introduced_versions: eb.ref("excluded.introduced_versions"),
        fixed_versions: eb.ref("excluded.fixed_versions"),
        reference_urls: eb.ref("excluded.reference_urls"),
      })),
    )
    .returning(["id", "identifier"])
    .execute();
  const ids = new Map(rows.map((r) => [r.identifier, r.id]));
  await tx
    .deleteFrom("advisory_packages")
    .where("vulnerability_id", "in", [...ids.values()])
    .execute();
  const packages = advisories.flatMap((a) =>
    a.packages.map((p) => ({
      vulnerability_id: ids.get(a.identifier)!,
      ecosystem: p.ecosystem,
      name: p.name,
      ranges: JSON.stringify(p.ranges),
      versions: JSON.stringify(p.versions),
    })),
  );
  for (let i = 0; i < packages.length; i += 1000) {
    await tx
      .insertInto("advisory_packages")
      .values(packages.slice(i, i + 1000))
      .execute();
  }
  return ids;
}

/** An affected package of a standing (not withdrawn) advisory. */
export interface AdvisoryPackageMatch {
  id: string;
  vulnerability_id: string;
  ecosystem: Ecosystem;
  name: string;
  ranges: StoredRange[];
  versions: string[];
}

/** The affected packages of standing advisories for these (ecosystem, normalised name) pairs. */
export async function findAdvisoryPackages(
  db: Kysely<Database>,
  keys: readonly { ecosystem: Ecosystem; name: string }[],
): Promise<AdvisoryPackageMatch[]> {
  if (keys.length === 0) return [];
  const result = await sql<AdvisoryPackageMatch>`
    SELECT ap.id, ap.vulnerability_id, ap.ecosystem, ap.name, ap.ranges, ap.versions
    FROM unnest(${keys.map((k) => k.ecosystem)}::text[], ${keys.map((k) => k.name)}::text[]) AS k (ecosystem, name)
    JOIN advisory_packages AS ap ON ap.ecosystem = k.ecosystem AND ap.name = k.name
    JOIN vulnerabilities AS v ON v.id = ap.vulnerability_id
    WHERE v.withdrawn_at IS NULL
  `.execute(db);
  return result.rows.map((row) => ({
    ...row,
    ranges: typeof row.ranges === "string" ? JSON.parse(row.ranges) : row.ranges,
    versions: typeof row.versions === "string" ? JSON.parse(row.versions) : row.versions,
  }));
}

/** One package version an SCA check found. */
export interface CheckDependency {
  package_version_id: string;
  package_id: string;
  ecosystem: Ecosystem;
  name: string;
  version: string;
}

/** The distinct package versions an SCA check found. */
export function findScaCheckDependencies(
  db: Kysely<Database>,
  scaCheckId: string,
): Promise<CheckDependency[]> {
  return db
    .selectFrom("sca_check_dependencies as d")
    .innerJoin("package_versions as pv", "pv.id", "d.package_version_id")
    .innerJoin("packages as p", "p.id", "pv.package_id")
    .select(["pv.id as package_version_id", "p.id as package_id", "p.ecosystem", "p.name", "pv.version"])
    .distinct()
    .where("d.sca_check_id", "=", scaCheckId)
    .execute();
}

/** The ids of the run's SCA checks, in order of creation. */
export async function findScaCheckIdsOfRun(db: Kysely<Database>, runId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("sca_checks")
    .select("id")
    .where("run_id", "=", runId)
    .orderBy("id")
    .execute();
  return rows.map((row) => String(row.id));
}

/**
 * The SCA check, locked for the caller's transaction (two matchings of one check, e.g. SBOM
 * processing and an import, take turns), with the id of its base scan ({@link baseScanOf}): the
 * newest scan of the same target on its run's base run's branch at or before the base run, so a
 * base run that did not scan the target says nothing. A scan of no target (its SBOM had no
 * dependency) has none.
 */
export async function findScaCheckWithBase(
  db: Kysely<Database>,
  scaCheckId: string,
): Promise<{ id: string; base_check_id: string | null } | undefined> {
  const result = await sql<{ id: string; base_check_id: string | null }>`
    SELECT c.id, (
      SELECT b.id FROM analysis_runs AS base
      CROSS JOIN LATERAL ${baseScanOf(sql.ref("c.target_id"), "base")} AS b
      WHERE base.id = r.base_run_id
    ) AS base_check_id
    FROM sca_checks AS c
    JOIN analysis_runs AS r ON r.id = c.run_id
    WHERE c.id = ${scaCheckId}
    FOR NO KEY UPDATE OF c
  `.execute(db);
  return result.rows[0];
}

/** What matching compares of a stored occurrence. */
export type StoredOccurrence = Pick<
  VulnerabilityOccurrenceRow,
  "id" | "vulnerability_id" | "package_version_id" | "state" | "fixability" | "fix_version"
>;

/**
 * Every occurrence of an SCA check, RESOLVED ones included: the columns matching compares (a
 * check can have tens of thousands, so no keys or timestamps it does not need).
 */
export function findCheckOccurrences(db: Kysely<Database>, scaCheckId: string): Promise<StoredOccurrence[]> {
  return db
    .selectFrom("vulnerability_occurrences")
    .select(["id", "vulnerability_id", "package_version_id", "state", "fixability", "fix_version"])
    .where("sca_check_id", "=", scaCheckId)
    .execute();
}

/** An occurrence as matching wants it. */
export interface OccurrenceWrite {
  vulnerability_id: string;
  package_version_id: string;
  state: "INTRODUCED" | "EXISTING" | "RESOLVED";
  fixability: "UNFIXABLE" | "MANUALLY_FIXABLE";
  fix_version: string | null;
}

/** Rows per insert or update statement: a few hundred KB of parameters at most. */
const OCCURRENCE_WRITE_BATCH = 5000;

/**
 * Inserts new occurrences of a check, updates changed ones by id, deletes gone ones by id: one
 * statement per batch of each, the rows passed as one array per column (`unnest`), so a check
 * with thousands of occurrences costs a few statements, not one per row.
 */
export async function writeCheckOccurrences(
  tx: Kysely<Database>,
  scaCheckId: string,
  changes: {
    insert: readonly OccurrenceWrite[];
    update: readonly (OccurrenceWrite & { id: string })[];
    remove: readonly string[];
  },
): Promise<void> {
  for (let i = 0; i < changes.remove.length; i += OCCURRENCE_WRITE_BATCH) {
    const ids = changes.remove.slice(i, i + OCCURRENCE_WRITE_BATCH);
    await sql`DELETE FROM vulnerability_occurrences WHERE id = ANY(${ids}::bigint[])`.execute(tx);
  }
  for (let i = 0; i < changes.update.length; i += OCCURRENCE_WRITE_BATCH) {
    const rows = changes.update.slice(i, i + OCCURRENCE_WRITE_BATCH);
    await sql`
      UPDATE vulnerability_occurrences AS vo
      SET state = u.state, fixability = u.fixability, fix_version = u.fix_version
      FROM unnest(${rows.map((r) => r.id)}::bigint[], ${rows.map((r) => r.state)}::text[],
        ${rows.map((r) => r.fixability)}::text[], ${rows.map((r) => r.fix_version)}::text[])
        AS u (id, state, fixability, fix_version)
      WHERE vo.id = u.id
    `.execute(tx);
  }
  for (let i = 0; i < changes.insert.length; i += OCCURRENCE_WRITE_BATCH) {
    const rows = changes.insert.slice(i, i + OCCURRENCE_WRITE_BATCH);
    await sql`
      INSERT INTO vulnerability_occurrences
        (key, sca_check_id, vulnerability_id, package_version_id, state, fixability, fix_version)
      SELECT u.key, ${scaCheckId}, u.vulnerability_id, u.package_version_id, u.state, u.fixability,
        u.fix_version
      FROM unnest(${rows.map(() => newRowKey())}::text[], ${rows.map((r) => r.vulnerability_id)}::bigint[],
        ${rows.map((r) => r.package_version_id)}::bigint[], ${rows.map((r) => r.state)}::text[],
        ${rows.map((r) => r.fixability)}::text[], ${rows.map((r) => r.fix_version)}::text[])
        AS u (key, vulnerability_id, package_version_id, state, fixability, fix_version)
    `.execute(tx);
  }
}

/**
 * The SCA checks an advisory import matches again, those whose dependencies include a package of
 * one of `ecosystems`: of each repository, the scans of its latest analysed run (`isAnalysedRun`,
 * on any branch) in history order (`placed_at`: a late run of an older commit is not the latest,
 * docs/ingestion.md "Where a run stands in the history"; read from
 * `analysis_runs_repository_placed_idx`) and the current scan of each of its targets
 * (`currentScaChecksOf`), which may be of an older run when the newest did not scan that target;
 * deactivated targets' too, so one activated again shows what today's advisories say of it.
 */
export async function findLatestScaChecks(
  db: Kysely<Database>,
  ecosystems: readonly Ecosystem[],
): Promise<string[]> {
  if (ecosystems.length === 0) return [];
  const result = await sql<{ id: string }>`
    SELECT DISTINCT c.id
    FROM repositories AS repo
    CROSS JOIN LATERAL (
      SELECT lc.id FROM (
        SELECT lr.id FROM analysis_runs AS lr
        WHERE lr.repository_id = repo.id AND ${isAnalysedRun("lr")}
        ORDER BY lr.placed_at DESC, lr.key DESC
        LIMIT 1
      ) AS latest
      JOIN sca_checks AS lc ON lc.run_id = latest.id
      UNION
      SELECT cur.id FROM ${currentScaChecksOf("repo", "include")} AS cur
    ) AS c
    WHERE EXISTS (
      SELECT 1 FROM sca_check_dependencies AS d
      JOIN package_versions AS pv ON pv.id = d.package_version_id
      JOIN packages AS p ON p.id = pv.package_id
      WHERE d.sca_check_id = c.id AND p.ecosystem = ANY (${ecosystems as Ecosystem[]}::text[])
    )
    ORDER BY c.id
  `.execute(db);
  return result.rows.map((r) => r.id);
}

/** Ids of vulnerabilities by each CVE they are known by (identifier or alias). */
export async function findVulnerabilityIdsByCve(db: Kysely<Database>): Promise<Map<string, string[]>> {
  const result = await sql<{ id: string; cve: string }>`
    SELECT v.id, c.cve FROM vulnerabilities AS v
    CROSS JOIN LATERAL unnest(array_append(v.aliases, v.identifier)) AS c (cve)
    WHERE c.cve LIKE 'CVE-%'
  `.execute(db);
  const byCve = new Map<string, string[]>();
  for (const row of result.rows) {
    const list = byCve.get(row.cve) ?? [];
    list.push(row.id);
    byCve.set(row.cve, list);
  }
  return byCve;
}

/** Sets EPSS score and percentile of vulnerabilities by id. */
export async function updateEpss(
  tx: Kysely<Database>,
  scores: readonly { id: string; score: number; percentile: number }[],
): Promise<void> {
  for (let i = 0; i < scores.length; i += 1000) {
    const chunk = scores.slice(i, i + 1000);
    await sql`
      UPDATE vulnerabilities AS v SET epss_score = e.score, epss_percentile = e.percentile
      FROM unnest(${chunk.map((s) => s.id)}::bigint[], ${chunk.map((s) => s.score)}::float8[], ${chunk.map(
        (s) => s.percentile,
      )}::float8[]) AS e (id, score, percentile)
      WHERE v.id = e.id
    `.execute(tx);
  }
}

/** What `advisories sync` last saw of `url`. */
export function findAdvisorySource(db: Kysely<Database>, url: string) {
  return db.selectFrom("advisory_sources").selectAll().where("url", "=", url).executeTakeFirst();
}

/** Every URL `advisories sync` has checked, by URL. */
export function findAdvisorySources(db: Kysely<Database>) {
  return db.selectFrom("advisory_sources").selectAll().orderBy("url").execute();
}

/**
 * Seconds since each of `urls` was last checked, by the database's clock; a URL never checked is
 * absent.
 */
export async function findSecondsSinceChecked(
  db: Kysely<Database>,
  urls: readonly string[],
): Promise<Map<string, number>> {
  if (urls.length === 0) return new Map();
  const rows = await db
    .selectFrom("advisory_sources")
    .select(["url", sql<number>`extract(epoch FROM now() - checked_at)::float8`.as("seconds")])
    .where("url", "in", urls)
    .where("checked_at", "is not", null)
    .execute();
  return new Map(rows.map((row) => [row.url, Number(row.seconds)]));
}

/** The validators of an export as its server sent them. */
export interface SourceValidators {
  etag: string | null;
  lastModified: string | null;
}

/**
 * Records a check of `url` the server answered 304: the export is the one imported last. Newer
 * validators sent with the 304 replace the stored ones.
 */
export async function recordSourceNotModified(
  db: Kysely<Database>,
  url: string,
  validators: SourceValidators,
): Promise<void> {
  await db
    .insertInto("advisory_sources")
    .values({
      url,
      etag: validators.etag,
      last_modified: validators.lastModified,
      checked_at: sql<Date>`now()`,
      status: "NOT_MODIFIED",
    })
    .onConflict((oc) =>
      oc.column("url").doUpdateSet({
        etag: sql<string | null>`coalesce(excluded.etag, advisory_sources.etag)`,
        last_modified: sql<string | null>`coalesce(excluded.last_modified, advisory_sources.last_modified)`,
        checked_at: sql<Date>`now()`,
        status: "NOT_MODIFIED",
        error: null,
      }),
    )
    .execute();
}

/** Records an export of `url` downloaded and imported: its validators, size and import summary. */
export async function recordSourceImported(
  db: Kysely<Database>,
  url: string,
  imported: SourceValidators & { bytes: number; summary: unknown },
): Promise<void> {
  const values = {
    etag: imported.etag,
    last_modified: imported.lastModified,
    checked_at: sql<Date>`now()`,
    imported_at: sql<Date>`now()`,
    status: "IMPORTED" as const,
    error: null,
    downloaded_bytes: imported.bytes,
    import_summary: JSON.stringify(imported.summary),
  };
  await db
    .insertInto("advisory_sources")
    .values({ url, ...values })
    .onConflict((oc) => oc.column("url").doUpdateSet(values))
    .execute();
}

/**
 * Records a failed check of `url` with `error` (a sentence of ours, never a response body). The
 * validators and summary of the last import stay, so the next check asks for what changed since.
 */
export async function recordSourceFailed(db: Kysely<Database>, url: string, error: string): Promise<void> {
  await db
    .insertInto("advisory_sources")
    .values({ url, checked_at: sql<Date>`now()`, status: "FAILED", error })
    .onConflict((oc) =>
      oc.column("url").doUpdateSet({ checked_at: sql<Date>`now()`, status: "FAILED", error }),
    )
    .execute();
}
