import { type Kysely, sql } from "kysely";
import type { Database, Ecosystem, VulnerabilitySeverity } from "../../db/types.ts";
import { catalogKey } from "../catalog/catalog-data.ts";
import { KINDS, PACKAGES, PURL_TYPE } from "./advisory-data.ts";
import { cvss2BaseScore, cvss2Severity, cvss3BaseScore, cvss3Severity } from "./cvss.ts";
import { Random } from "./random.ts";

/**
 * A fixed set of packages, versions and vulnerabilities for the dependency data. The packages
 * and version numbers look like real ones; the advisories are invented: their ids are drawn at
 * random in the GHSA and CVE formats, their texts are written from templates, and their scores
 * are computed from their vectors. The set does not depend on the generator's seed, so every
 * generated database shares it.
 */

/** A package with its versions, oldest first. */
export interface PackageSpec {
  ecosystem: Ecosystem;
  name: string;
  purl: string;
  versions: string[];
}

/** A vulnerability and the package versions it affects. */
export interface VulnerabilitySpec {
  identifier: string;
  aliases: string[];
  summary: string;
  details: string;
  cvssV2Vector: string | null;
  cvssV2Score: number | null;
  cvssV2Severity: VulnerabilitySeverity | null;
  cvssV3Vector: string;
  cvssV3Score: number;
  cvssV3Severity: VulnerabilitySeverity;
  publishedAt: Date;
  updatedAt: Date;
  withdrawnAt: Date | null;
  epssScore: number;
  epssPercentile: number;
  /** Index into the dataset's packages. */
  packageIndex: number;
  /** The affected versions of that package. */
  affected: Set<string>;
  introducedVersions: string[];
  fixedVersions: string[];
  referenceUrls: string[];
}

const GHSA_ALPHABET = "23456789cfghjmpqrvwx";
const DAY = 86_400_000;
const FIRST_PUBLISHED = Date.UTC(2019, 0, 1);
const LAST_PUBLISHED = Date.UTC(2026, 8, 30);
/** NVD stopped scoring new entries with CVSS v2 in July 2022. */
const LAST_V2 = Date.UTC(2022, 6, 13);

function versionsOf(rand: Random, start: string, count: number): string[] {
  const prefix = start.startsWith("v") ? "v" : "";
  let [major = 0, minor = 0, patch = 0] = start.replace(/^v/, "").split(".").map(Number);
  const versions: string[] = [];
  for (let i = 0; i < count; i++) {
    versions.push(`${prefix}${major}.${minor}.${patch}`);
    const roll = rand.next();
    if (roll < 0.65) patch += 1;
    else if (roll < 0.95) [minor, patch] = [minor + 1, 0];
    else [major, minor, patch] = [major + 1, 0, 0];
  }
  return versions;
}

function ghsa(rand: Random): string {
  const group = () => Array.from({ length: 4 }, () => rand.pick([...GHSA_ALPHABET])).join("");
  return `GHSA-${group()}-${group()}-${group()}`;
}

/** Varies one exploitability metric so the scores spread around the kind's typical value. */
function varyVector(rand: Random, vector: string): string {
  const roll = rand.next();
  if (roll < 0.2) return vector.replace("PR:N", "PR:L");
  if (roll < 0.35) return vector.replace("AC:L", "AC:H");
  if (roll < 0.45) return vector.replace("UI:N", "UI:R");
  return vector;
}

/** A CVSS v2 vector of about the same shape as a v3 one. */
function v2VectorOf(v3: string): string {
  const level = (m: string) => (v3.includes(`${m}:H`) ? "C" : v3.includes(`${m}:L`) ? "P" : "N");
  const ac = v3.includes("AC:H") ? "H" : v3.includes("UI:R") ? "M" : "L";
  const au = v3.includes("PR:N") ? "N" : "S";
  return `AV:N/AC:${ac}/Au:${au}/C:${level("C")}/I:${level("I")}/A:${level("A")}`;
}

function vulnerability(rand: Random, pkg: PackageSpec, packageIndex: number, taken: Set<string>) {
  const kinds = KINDS.filter((k) => !k.memory || pkg.ecosystem === "CRATES_IO");
  const kind = rand.pick(kinds);
  let identifier = ghsa(rand);
  while (taken.has(identifier)) identifier = ghsa(rand);
  taken.add(identifier);
  const published = new Date(FIRST_PUBLISHED + Math.floor(rand.next() * (LAST_PUBLISHED - FIRST_PUBLISHED)));
  const year = published.getUTCFullYear();
  const aliases = rand.chance(0.85) ? [`CVE-${year}-${rand.int(1000, 52999)}`] : [];
  if (pkg.ecosystem === "GO") aliases.push(`GO-${year}-${rand.int(1000, 3200)}`);
  if (pkg.ecosystem === "PYPI" && rand.chance(0.6)) aliases.push(`PYSEC-${year}-${rand.int(10, 900)}`);
  const introIndex = rand.int(0, Math.max(0, pkg.versions.length - 3));
  const fixIndex = rand.chance(0.15)
    ? pkg.versions.length
    : rand.int(introIndex + 1, pkg.versions.length - 1);
  const affected = new Set(pkg.versions.slice(introIndex, fixIndex));
  const fixed = fixIndex < pkg.versions.length ? [pkg.versions[fixIndex]!] : [];
  const v3 = `CVSS:3.1/${varyVector(rand, kind.vector)}`;
  const v3Score = cvss3BaseScore(v3);
  const v2 = published.getTime() < LAST_V2 ? v2VectorOf(v3) : null;
  const v2Score = v2 ? cvss2BaseScore(v2) : null;
  const epss = rand.next() ** 4 * 0.9;
  const short = pkg.name.split(/[/:]/).at(-1)!;
  const range =
    fixed.length > 0
      ? `from ${pkg.versions[introIndex]} before ${fixed[0]}`
      : `from ${pkg.versions[introIndex]} on`;
  return {
    identifier,
    aliases,
    summary: `${kind.title} in ${short}`,
    details:
      `Versions of ${pkg.name} ${range} ${kind.sentence} (CWE-${kind.cwe}).\n\n` +
      (fixed.length > 0
        ? `Upgrade to ${fixed[0]} or later.`
        : "No fixed version is available yet; avoid passing untrusted input to the affected functions."),
    cvssV2Vector: v2,
    cvssV2Score: v2Score,
    cvssV2Severity: v2Score === null ? null : cvss2Severity(v2Score),
    cvssV3Vector: v3,
    cvssV3Score: v3Score,
    cvssV3Severity: cvss3Severity(v3Score),
    publishedAt: published,
    updatedAt: new Date(published.getTime() + rand.int(0, 200) * DAY),
    withdrawnAt: rand.chance(0.02) ? new Date(published.getTime() + rand.int(5, 60) * DAY) : null,
    epssScore: Math.round(epss * 100_000) / 100_000,
    epssPercentile: Math.round(Math.min(0.99999, epss ** 0.25 + 0.05) * 100_000) / 100_000,
    packageIndex,
    affected,
    introducedVersions: [pkg.versions[introIndex]!],
    fixedVersions: fixed,
    referenceUrls: [
      `https://github.com/advisories/${identifier}`,
      ...aliases.filter((a) => a.startsWith("CVE-")).map((cve) => `https://nvd.nist.gov/vuln/detail/${cve}`),
    ],
  } satisfies VulnerabilitySpec;
}

let dataset: { packages: PackageSpec[]; vulnerabilities: VulnerabilitySpec[] } | undefined;

/** The packages and vulnerabilities (computed once; the same on every call and machine). */
export function advisoryDataset(): { packages: PackageSpec[]; vulnerabilities: VulnerabilitySpec[] } {
  if (dataset) return dataset;
  const rand = Random.derive(0, "advisories", 1);
  const packages = PACKAGES.map(([ecosystem, name, start]) => ({
    ecosystem,
    name,
    purl: `pkg:${PURL_TYPE[ecosystem]}/${name.replace(":", "/")}`,
    versions: versionsOf(rand, start, rand.int(6, 11)),
  }));
  const taken = new Set<string>();
  const vulnerabilities = packages.flatMap((pkg, index) =>
    Array.from({ length: rand.int(1, 3) }, () => vulnerability(rand, pkg, index, taken)),
  );
  dataset = { packages, vulnerabilities };
  return dataset;
}

/** Database ids of the dataset's rows. */
export interface AdvisoryIds {
  /** By `${ecosystem}:${name}@${version}`. */
  packageVersion: Map<string, string>;
  /** By identifier. */
  vulnerability: Map<string, string>;
}

/** The lookup key of a package version in {@link AdvisoryIds.packageVersion}. */
export function packageVersionRef(pkg: PackageSpec, version: string): string {
  return `${pkg.ecosystem}:${pkg.name}@${version}`;
}

/** Inserts the dataset's rows that are missing (by their natural keys) and returns all their ids. */
export async function ensureAdvisories(trx: Kysely<Database>): Promise<AdvisoryIds> {
  const { packages, vulnerabilities } = advisoryDataset();
  await trx
    .insertInto("packages")
    .values(packages.map((p) => ({ key: catalogKey(`package:${p.ecosystem}:${p.name}`), ...pick(p) })))
    .onConflict((oc) => oc.columns(["ecosystem", "name"]).doNothing())
    .execute();
  const storedPackages = await trx
    .selectFrom("packages")
    .select(["id", "ecosystem", "name"])
    .where(
      sql<boolean>`(ecosystem, name) IN (${sql.join(packages.map((p) => sql`(${p.ecosystem}, ${p.name})`))})`,
    )
    .execute();
  const packageId = new Map(storedPackages.map((p) => [`${p.ecosystem}:${p.name}`, p.id]));
  await trx
    .insertInto("package_versions")
    .values(
      packages.flatMap((p) =>
        p.versions.map((version) => ({
          key: catalogKey(`package-version:${packageVersionRef(p, version)}`),
          package_id: packageId.get(`${p.ecosystem}:${p.name}`)!,
          version,
          version_type:
            p.ecosystem === "MAVEN" || p.ecosystem === "PYPI" ? ("ECOSYSTEM" as const) : ("SEMVER" as const),
        })),
      ),
    )
    .onConflict((oc) => oc.columns(["package_id", "version"]).doNothing())
    .execute();
  const storedVersions = await trx
    .selectFrom("package_versions as v")
    .innerJoin("packages as p", "p.id", "v.package_id")
    .select(["v.id", "v.version", "p.ecosystem", "p.name"])
    .where("v.package_id", "in", [...packageId.values()])
    .execute();
  await trx
    .insertInto("vulnerabilities")
    .values(vulnerabilities.map(vulnerabilityRow))
    .onConflict((oc) => oc.column("identifier").doNothing())
    .execute();
  const storedVulnerabilities = await trx
    .selectFrom("vulnerabilities")
    .select(["id", "identifier"])
    .where(
      "identifier",
      "in",
      vulnerabilities.map((v) => v.identifier),
    )
    .execute();
  return {
    packageVersion: new Map(storedVersions.map((v) => [`${v.ecosystem}:${v.name}@${v.version}`, v.id])),
    vulnerability: new Map(storedVulnerabilities.map((v) => [v.identifier, v.id])),
  };
}

function pick(p: PackageSpec) {
  return { ecosystem: p.ecosystem, name: p.name, purl: p.purl };
}

function vulnerabilityRow(v: VulnerabilitySpec) {
  return {
    key: catalogKey(`vulnerability:${v.identifier}`),
    identifier: v.identifier,
    aliases: v.aliases,
    summary: v.summary,
    details: v.details,
    cvss_v2_vector: v.cvssV2Vector,
    cvss_v2_base_score: v.cvssV2Score,
    cvss_v2_severity: v.cvssV2Severity,
    cvss_v3_vector: v.cvssV3Vector,
    cvss_v3_base_score: v.cvssV3Score,
    cvss_v3_severity: v.cvssV3Severity,
    severity: v.cvssV3Severity,
    published_at: v.publishedAt,
    updated_at: v.updatedAt,
    withdrawn_at: v.withdrawnAt,
    epss_score: v.epssScore,
    epss_percentile: v.epssPercentile,
    introduced_versions: v.introducedVersions,
    fixed_versions: v.fixedVersions,
    reference_urls: v.referenceUrls,
  };
}
