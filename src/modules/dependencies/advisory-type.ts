import type { PackageRow, PackageVersionRow, VulnerabilityRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import { globalIdField, NodeInterface } from "../../graphql/relay.ts";
import { packageByKey, packageVersionByKey, vulnerabilityByKey } from "./dependencies-loaders.ts";
import { isVulnerabilitySeverity, overallSeverity } from "./severity.ts";

/**
 * Public advisory data: packages, their versions, and the vulnerabilities published against them.
 * Like the analyzer catalog it is global, so any authenticated user may read it, `node(id:)`
 * included; what links it to a repository (an occurrence) is what access control protects.
 */

/** The contract's `Ecosystem`. */
export const EcosystemEnum = builder.enumType("Ecosystem", {
  description:
    "The package registry a dependency comes from: NPM (npm), PYPI (PyPI), MAVEN (Maven Central), GO (Go modules), RUBYGEMS, NUGET, PACKAGIST (Composer) or CRATES_IO (Cargo).",
  values: ["NPM", "PYPI", "MAVEN", "GO", "RUBYGEMS", "NUGET", "PACKAGIST", "CRATES_IO"] as const,
});

const PackageVersionTypeEnum = builder.enumType("PackageVersionType", {
  description:
    "How a version string is written: SEMVER (semantic versioning), ECOSYSTEM (the registry's own scheme, e.g. PEP 440) or GIT (a commit).",
  values: ["SEMVER", "ECOSYSTEM", "GIT"] as const,
});

const VulnerabilitySeverityEnum = builder.enumType("VulnerabilitySeverity", {
  description:
    "How severe a vulnerability is, from NONE through LOW, MEDIUM and HIGH to CRITICAL (CVSS bands).",
  values: ["NONE", "LOW", "MEDIUM", "HIGH", "CRITICAL"] as const,
});

/** A package of a registry. */
export const PackageRef = builder.objectRef<PackageRow>("Package").implement({
  description: "A package published on a registry, such as `lodash` on npm. Public advisory data.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("Package")),
    ecosystem: t.field({
      type: EcosystemEnum,
      description: "The registry the package is published on.",
      resolve: (p) => p.ecosystem,
    }),
    name: t.string({ description: "The package's name on its registry.", resolve: (p) => p.name }),
    purl: t.string({
      nullable: true,
      description: "The package URL (purl), e.g. `pkg:npm/lodash`, when known.",
      resolve: (p) => p.purl,
    }),
  }),
});

/** One version of a package. */
export const PackageVersionRef = builder.objectRef<PackageVersionRow>("PackageVersion").implement({
  description: "One published version of a package. Public advisory data.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("PackageVersion")),
    version: t.string({
      description: "The version string, as the registry writes it.",
      resolve: (v) => v.version,
    }),
    versionType: t.field({
      type: PackageVersionTypeEnum,
      nullable: true,
      description: "How the version string is written; null when unknown.",
      resolve: (v) => v.version_type,
    }),
  }),
});

/** A CVSS severity column, or null when it holds something other than a contract severity. */
function cvssSeverity(value: string | null) {
  return isVulnerabilitySeverity(value) ? value : null;
}

/** A published vulnerability advisory. */
export const VulnerabilityRef = builder.objectRef<VulnerabilityRow>("Vulnerability").implement({
  description:
    "A published security advisory (CVE, GHSA, OSV…) affecting some versions of a package. Public advisory data.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("Vulnerability")),
    identifier: t.string({
      description: "The advisory's primary identifier, e.g. `GHSA-xxxx-xxxx-xxxx` or `CVE-2024-12345`.",
      resolve: (v) => v.identifier,
    }),
    aliases: t.stringList({
      description: "Other identifiers of the same advisory.",
      resolve: (v) => v.aliases,
    }),
    summary: t.string({ nullable: true, description: "A one-line summary.", resolve: (v) => v.summary }),
    details: t.string({
      nullable: true,
      description: "The full description, in Markdown.",
      resolve: (v) => v.details,
    }),
    severity: t.field({
      type: VulnerabilitySeverityEnum,
      nullable: true,
      description:
        "The overall severity: the advisory's own rating, or when it has none the highest of its CVSS v2, v3 and v4 severities; null when it has no rating at all.",
      resolve: (v) => overallSeverity(v),
    }),
    cvssV2Vector: t.string({
      nullable: true,
      description: "The CVSS v2 vector string.",
      resolve: (v) => v.cvss_v2_vector,
    }),
    cvssV2BaseScore: t.float({
      nullable: true,
      description: "The CVSS v2 base score (0–10).",
      resolve: (v) => v.cvss_v2_base_score,
    }),
    cvssV2Severity: t.field({
      type: VulnerabilitySeverityEnum,
      nullable: true,
      description: "The severity band of the CVSS v2 score.",
      resolve: (v) => cvssSeverity(v.cvss_v2_severity),
    }),
    cvssV3Vector: t.string({
      nullable: true,
      description: "The CVSS v3 vector string.",
      resolve: (v) => v.cvss_v3_vector,
    }),
    cvssV3BaseScore: t.float({
      nullable: true,
      description: "The CVSS v3 base score (0–10).",
      resolve: (v) => v.cvss_v3_base_score,
    }),
    cvssV3Severity: t.field({
      type: VulnerabilitySeverityEnum,
      nullable: true,
      description: "The severity band of the CVSS v3 score.",
      resolve: (v) => cvssSeverity(v.cvss_v3_severity),
    }),
    cvssV4Vector: t.string({
      nullable: true,
      description: "The CVSS v4 vector string.",
      resolve: (v) => v.cvss_v4_vector,
    }),
    cvssV4BaseScore: t.float({
      nullable: true,
      description: "The CVSS v4 base score (0–10).",
      resolve: (v) => v.cvss_v4_base_score,
    }),
    cvssV4Severity: t.field({
      type: VulnerabilitySeverityEnum,
      nullable: true,
      description: "The severity band of the CVSS v4 score.",
      resolve: (v) => cvssSeverity(v.cvss_v4_severity),
    }),
    publishedAt: t.field({
      type: "DateTime",
      description: "When the advisory was published.",
      resolve: (v) => v.published_at,
    }),
    updatedAt: t.field({
      type: "DateTime",
      description: "When the advisory last changed.",
      resolve: (v) => v.updated_at,
    }),
    withdrawnAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the advisory was withdrawn; null while it stands.",
      resolve: (v) => v.withdrawn_at,
    }),
    epssScore: t.float({
      nullable: true,
      description: "The EPSS score: the estimated probability (0–1) of exploitation in the next 30 days.",
      resolve: (v) => v.epss_score,
    }),
    epssPercentile: t.float({
      nullable: true,
      description: "Where the EPSS score ranks among all scored vulnerabilities (0–1).",
      resolve: (v) => v.epss_percentile,
    }),
    introducedVersions: t.stringList({
      nullable: { list: false, items: true },
      description: "The versions in which the vulnerability first appears.",
      resolve: (v) => v.introduced_versions,
    }),
    fixedVersions: t.stringList({
      nullable: { list: false, items: true },
      description: "The versions that fix it; empty when no fix is released.",
      resolve: (v) => v.fixed_versions,
    }),
    referenceUrls: t.stringList({
      nullable: { list: false, items: true },
      description: "Links to the advisory, fixes and write-ups.",
      resolve: (v) => v.reference_urls,
    }),
  }),
});

registerNodeType("Package", (ctx, key) => packageByKey(ctx).load(key));
registerNodeType("PackageVersion", (ctx, key) => packageVersionByKey(ctx).load(key));
registerNodeType("Vulnerability", (ctx, key) => vulnerabilityByKey(ctx).load(key));
