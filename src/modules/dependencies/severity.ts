import type { VulnerabilityRow, VulnerabilitySeverity } from "../../db/types.ts";

/**
 * A vulnerability's overall severity. The advisory's own rating wins; when it has none, the
 * highest of its CVSS v2, v3 and v4 ratings stands in, so an advisory scored only by CVSS still
 * sorts and reads with a severity. Used both by the `severity` field and, as SQL
 * (dependencies-store.ts `overallSeverityRankSql`), by the order of vulnerability-occurrence
 * connections, so the two never disagree.
 */

/** The contract's `VulnerabilitySeverity` values, most severe first. */
export const SEVERITIES_MOST_SEVERE_FIRST: readonly VulnerabilitySeverity[] = [
  "CRITICAL",
  "HIGH",
  "MEDIUM",
  "LOW",
  "NONE",
];

/** The rank given to a vulnerability with no severity at all: after every rated one. */
export const UNRATED_RANK = SEVERITIES_MOST_SEVERE_FIRST.length;

type SeverityColumns = Pick<
  VulnerabilityRow,
  "severity" | "cvss_v2_severity" | "cvss_v3_severity" | "cvss_v4_severity"
>;

/** True when `value` is one of the contract's severities (stored CVSS ratings are free text). */
export function isVulnerabilitySeverity(value: unknown): value is VulnerabilitySeverity {
  return SEVERITIES_MOST_SEVERE_FIRST.includes(value as VulnerabilitySeverity);
}

/** Position in {@link SEVERITIES_MOST_SEVERE_FIRST}: 0 for CRITICAL, {@link UNRATED_RANK} for none. */
export function severityRank(severity: VulnerabilitySeverity | null): number {
  return severity === null ? UNRATED_RANK : SEVERITIES_MOST_SEVERE_FIRST.indexOf(severity);
}

/** The stored overall severity, else the highest CVSS severity present, else null. */
export function overallSeverity(vulnerability: SeverityColumns): VulnerabilitySeverity | null {
  if (isVulnerabilitySeverity(vulnerability.severity)) return vulnerability.severity;
  const rated = [
    vulnerability.cvss_v2_severity,
    vulnerability.cvss_v3_severity,
    vulnerability.cvss_v4_severity,
  ]
    .filter(isVulnerabilitySeverity)
    .sort((a, b) => severityRank(a) - severityRank(b));
  return rated[0] ?? null;
}
