import type { Kysely } from "kysely";
import type { Database, Ecosystem } from "../../db/types.ts";
import { cvssScore } from "../../formats/osv/cvss.ts";
import { importAdvisories, importEpss } from "../dependencies/advisory-import.ts";
import { KINDS, PACKAGES, PURL_TYPE } from "./advisory-data.ts";
import { Random } from "./random.ts";

/**
 * A fixed set of packages, versions and vulnerabilities for the dependency data. The packages
 * and version numbers look like real ones; the advisories are invented, and say so: their ids are
 * `DEMO-<year>-xxxx-xxxx` (a database prefix no real source uses, so a real import can never
 * update one and one matched on a real SBOM is recognisable), their CVE aliases are numbered from
 * 9,000,000 up (a range the CVE program has not assigned, so a real EPSS file scores none of
 * them), and their texts are written from templates. They are
 * written out as OSV records and an EPSS file and stored by the same import `advisories import`
 * and `advisories epss` run, so their ratings come from the real CVSS computation and their
 * affected ranges are matched by the real matching. The set does not depend on the generator's
 * seed, so every generated database shares it.
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
  cvssV3Vector: string;
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
  /** For some advisories without a fix: the newest version known affected (OSV `last_affected`). */
  lastAffected: string | null;
  fixedVersions: string[];
  referenceUrls: string[];
}

/** The characters of the demo ids' groups (GitHub's advisory id alphabet). */
const ID_ALPHABET = "23456789cfghjmpqrvwx";
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

/** An invented advisory's id: `DEMO-2023-x4mq-9prw`. */
function demoId(rand: Random, year: number): string {
  const group = () => Array.from({ length: 4 }, () => rand.pick([...ID_ALPHABET])).join("");
  return `DEMO-${year}-${group()}-${group()}`;
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
  const published = new Date(FIRST_PUBLISHED + Math.floor(rand.next() * (LAST_PUBLISHED - FIRST_PUBLISHED)));
  const year = published.getUTCFullYear();
  let identifier = demoId(rand, year);
  while (taken.has(identifier)) identifier = demoId(rand, year);
  taken.add(identifier);
  // Invented CVE numbers from 9,000,000 up: never a real CVE's, so real EPSS files miss them.
  const aliases = rand.chance(0.85) ? [`CVE-${year}-${rand.int(9_000_000, 9_999_999)}`] : [];
  const introIndex = rand.int(0, Math.max(0, pkg.versions.length - 3));
  const fixIndex = rand.chance(0.15)
    ? pkg.versions.length
    : rand.int(introIndex + 1, pkg.versions.length - 1);
  const affected = new Set(pkg.versions.slice(introIndex, fixIndex));
  const fixed = fixIndex < pkg.versions.length ? [pkg.versions[fixIndex]!] : [];
  const v3 = `CVSS:3.1/${varyVector(rand, kind.vector)}`;
  const v2 = published.getTime() < LAST_V2 ? v2VectorOf(v3) : null;
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
    cvssV3Vector: v3,
    publishedAt: published,
    updatedAt: new Date(published.getTime() + rand.int(0, 200) * DAY),
    withdrawnAt: rand.chance(0.02) ? new Date(published.getTime() + rand.int(5, 60) * DAY) : null,
    epssScore: Math.round(epss * 100_000) / 100_000,
    epssPercentile: Math.round(Math.min(0.99999, epss ** 0.25 + 0.05) * 100_000) / 100_000,
    packageIndex,
    affected,
    introducedVersions: [pkg.versions[introIndex]!],
    // Half of the unfixed ones say how far the report goes (every version known so far).
    lastAffected:
      fixed.length === 0 && identifier.charCodeAt(identifier.length - 1) % 2 === 0
        ? pkg.versions.at(-1)!
        : null,
    fixedVersions: fixed,
    // example.com is reserved for documentation: an invented advisory links to no real page.
    referenceUrls: [`https://advisories.example.com/${identifier}`],
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

/** OSV's name of each ecosystem (`affected[].package.ecosystem`). */
const OSV_ECOSYSTEM: Record<Ecosystem, string> = {
  NPM: "npm",
  PYPI: "PyPI",
  MAVEN: "Maven",
  GO: "Go",
  RUBYGEMS: "RubyGems",
  NUGET: "NuGet",
  PACKAGIST: "Packagist",
  CRATES_IO: "crates.io",
};

/** GitHub's rating words (`database_specific.severity`) for a CVSS band. */
const GITHUB_SEVERITY = { NONE: "LOW", LOW: "LOW", MEDIUM: "MODERATE", HIGH: "HIGH", CRITICAL: "CRITICAL" };

/** OSV writes Go versions without the `v` the module versions (and purls) carry. */
function osvVersion(ecosystem: Ecosystem, version: string): string {
  return ecosystem === "GO" ? version.replace(/^v/, "") : version;
}

/**
 * The affected entry of `v`, as the databases write one: npm, Go and crates.io with a SEMVER
 * range, the other ecosystems with an ECOSYSTEM range and the explicit versions it covers. A
 * range without a fix ends at its last affected version when the record names one.
 */
function affectedOf(v: VulnerabilitySpec, pkg: PackageSpec) {
  const semver = pkg.ecosystem === "NPM" || pkg.ecosystem === "GO" || pkg.ecosystem === "CRATES_IO";
  const events: Array<Record<string, string>> = [
    { introduced: osvVersion(pkg.ecosystem, v.introducedVersions[0]!) },
  ];
  if (v.fixedVersions.length > 0) events.push({ fixed: osvVersion(pkg.ecosystem, v.fixedVersions[0]!) });
  else if (v.lastAffected) events.push({ last_affected: osvVersion(pkg.ecosystem, v.lastAffected) });
  return {
    package: { ecosystem: OSV_ECOSYSTEM[pkg.ecosystem], name: pkg.name, purl: pkg.purl },
    ranges: [{ type: semver ? "SEMVER" : "ECOSYSTEM", events }],
    ...(!semver && { versions: pkg.versions.filter((version) => v.affected.has(version)) }),
  };
}

/** The dataset's vulnerability `v` as an OSV record (https://ossf.github.io/osv-schema/). */
export function osvRecordOf(v: VulnerabilitySpec): Record<string, unknown> {
  const pkg = advisoryDataset().packages[v.packageIndex]!;
  const severity = [
    { type: "CVSS_V3", score: v.cvssV3Vector },
    ...(v.cvssV2Vector ? [{ type: "CVSS_V2", score: v.cvssV2Vector }] : []),
  ];
  const band = cvssScore(v.cvssV3Vector)?.severity ?? "NONE";
  return {
    schema_version: "1.6.0",
    id: v.identifier,
    modified: v.updatedAt.toISOString(),
    published: v.publishedAt.toISOString(),
    ...(v.withdrawnAt && { withdrawn: v.withdrawnAt.toISOString() }),
    aliases: v.aliases,
    summary: v.summary,
    details: v.details,
    severity,
    affected: [affectedOf(v, pkg)],
    references: v.referenceUrls.map((url) => ({
      type: url.includes("/advisories/") ? "ADVISORY" : "WEB",
      url,
    })),
    database_specific: { severity: GITHUB_SEVERITY[band], github_reviewed: true },
  };
}

/** The dataset's EPSS scores as FIRST publishes them: one row per CVE an advisory names. */
export function epssLines(): string[] {
  const lines = ["#model_version:v2025.03.14,score_date:2026-11-01T00:00:00+0000", "cve,epss,percentile"];
  const seen = new Set<string>();
  for (const v of advisoryDataset().vulnerabilities) {
    for (const cve of v.aliases.filter((a) => a.startsWith("CVE-"))) {
      if (seen.has(cve)) continue;
      seen.add(cve);
      lines.push(`${cve},${v.epssScore.toFixed(5)},${v.epssPercentile.toFixed(5)}`);
    }
  }
  return lines;
}

/**
 * Stores the dataset's advisories through the advisory import (its own transactions; importing
 * the same records again changes nothing), then their EPSS scores. Nothing is matched here: the
 * demo's SCA checks are matched as their SBOMs are processed.
 */
export async function importDemoAdvisories(db: Kysely<Database>): Promise<void> {
  const records = advisoryDataset().vulnerabilities.map((v) => ({
    name: `${v.identifier}.json`,
    text: JSON.stringify(osvRecordOf(v)),
  }));
  const summary = await importAdvisories(db, records, { rematch: false });
  if (summary.invalid > 0)
    throw new Error(`the demo's advisories do not import: ${summary.problems.join("; ")}`);
  async function* lines() {
    yield* epssLines();
  }
  await importEpss(db, lines());
}
