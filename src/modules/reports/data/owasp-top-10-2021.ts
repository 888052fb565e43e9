import { OWASP_2021_BY_CWE } from "../../catalog/data/standards.ts";

/**
 * The ten categories of the OWASP Top 10 (2021), A01 to A10. Which CWE ids belong to each comes
 * from the catalog's table (`OWASP_2021_BY_CWE`, OWASP's own CWE lists), so the catalog's tags and
 * the report agree by construction.
 */
export const OWASP_TOP_10_2021: ReadonlyArray<{ key: string; title: string }> = [
  { key: "A01", title: "Broken Access Control" },
  { key: "A02", title: "Cryptographic Failures" },
  { key: "A03", title: "Injection" },
  { key: "A04", title: "Insecure Design" },
  { key: "A05", title: "Security Misconfiguration" },
  { key: "A06", title: "Vulnerable and Outdated Components" },
  { key: "A07", title: "Identification and Authentication Failures" },
  { key: "A08", title: "Software and Data Integrity Failures" },
  { key: "A09", title: "Security Logging and Monitoring Failures" },
  { key: "A10", title: "Server-Side Request Forgery" },
];

/** The OWASP category key (`A03`) of a CWE id, when it has one. */
export function owaspCategoryOfCwe(cwe: number): string | undefined {
  return OWASP_2021_BY_CWE.get(cwe)?.toUpperCase();
}
