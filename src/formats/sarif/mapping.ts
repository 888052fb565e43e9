import type { IssueCategory, IssueSeverity } from "../../db/types.ts";
import type { SarifLevel, SarifRule } from "./types.ts";

/**
 * How a SARIF rule (and, for one occurrence, its result's level) becomes an Assay issue's
 * category, severity and tags. Pure; documented in docs/ingestion-sarif.md.
 *
 * Category: the first group whose words appear among the rule's tags (case-insensitive, a tag
 * also matching on its last `/`-separated segment), in this order: SECRETS, SECURITY (also when
 * the rule has a CWE tag or a `security-severity`), PERFORMANCE, TYPECHECK, DOCUMENTATION, STYLE,
 * BUG_RISK, ANTI_PATTERN; with no telling tag, BUG_RISK for level `error`, otherwise ANTI_PATTERN.
 *
 * Severity: `security-severity` when present (GitHub's CVSS bands: ≥ 9.0 CRITICAL, ≥ 4.0 MAJOR —
 * high and medium —, below MINOR); otherwise `problem.severity` `error` or level `error` →
 * MAJOR, anything else (warning, note, recommendation, none) → MINOR.
 *
 * Tags: CWE tags in any usual spelling (`external/cwe/cwe-79`, `CWE-079`, `cwe/79`) become
 * `cwe-79`, the form the compliance reports read (src/modules/reports/standards.ts); other tags are
 * kept lower-cased; duplicates dropped.
 */

/** The issue fields a rule maps to. */
export interface IssueClassification {
  category: IssueCategory;
  severity: IssueSeverity;
  tags: string[];
}

const CATEGORY_WORDS: ReadonlyArray<[IssueCategory, ReadonlySet<string>]> = [
  ["SECRETS", new Set(["secret", "secrets", "credentials", "leaked-secret"])],
  ["SECURITY", new Set(["security", "vulnerability", "injection", "xss", "crypto", "owasp"])],
  ["PERFORMANCE", new Set(["performance", "perf", "efficiency"])],
  ["TYPECHECK", new Set(["typecheck", "type-check", "types", "type", "typing", "type-safety"])],
  ["DOCUMENTATION", new Set(["documentation", "docs", "doc", "jsdoc", "comments"])],
  ["STYLE", new Set(["style", "stylistic", "formatting", "layout", "naming", "convention", "readability"])],
  [
    "BUG_RISK",
    new Set(["correctness", "bug", "bug-risk", "reliability", "error-prone", "problem", "possible errors"]),
  ],
  [
    "ANTI_PATTERN",
    new Set([
      "maintainability",
      "anti-pattern",
      "best-practice",
      "best practices",
      "suggestion",
      "code-smell",
      "complexity",
      "useless-code",
    ]),
  ],
];

const CWE = /(?:^|\/)cwe[-_/:]?0*(\d+)$/i;

/** A CWE tag's canonical form `cwe-<n>`, or null when the tag names no CWE. */
export function cweTagOf(tag: string): string | null {
  const match = CWE.exec(tag.trim());
  return match ? `cwe-${match[1]}` : null;
}

/** The rule's tags normalised as described in the module comment. */
export function normaliseTags(tags: readonly string[]): string[] {
  return [
    ...new Set(tags.map((tag) => cweTagOf(tag) ?? tag.trim().toLowerCase()).filter((tag) => tag !== "")),
  ];
}

function categoryOf(rule: SarifRule, tags: readonly string[], level: SarifLevel): IssueCategory {
  const words = new Set(tags.flatMap((tag) => [tag, tag.split("/").at(-1) ?? tag]));
  const hasCwe = tags.some((tag) => tag.startsWith("cwe-"));
  for (const [category, vocabulary] of CATEGORY_WORDS) {
    if ([...words].some((word) => vocabulary.has(word))) return category;
    if (category === "SECRETS" && (hasCwe || rule.securitySeverity !== null)) return "SECURITY";
  }
  return level === "error" ? "BUG_RISK" : "ANTI_PATTERN";
}

function severityOf(rule: SarifRule, level: SarifLevel): IssueSeverity {
  if (rule.securitySeverity !== null) {
    if (rule.securitySeverity >= 9) return "CRITICAL";
    return rule.securitySeverity >= 4 ? "MAJOR" : "MINOR";
  }
  if (rule.problemSeverity !== null) return rule.problemSeverity === "error" ? "MAJOR" : "MINOR";
  return level === "error" ? "MAJOR" : "MINOR";
}

/**
 * Classifies a rule for Assay's issue catalog. `level` is the level to judge by: a result's own
 * level for one occurrence, or (the default) the rule's default level, `warning` when it has none.
 */
export function classifySarifRule(
  rule: SarifRule,
  level: SarifLevel = rule.defaultLevel ?? "warning",
): IssueClassification {
  const tags = normaliseTags(rule.tags);
  return { category: categoryOf(rule, tags, level), severity: severityOf(rule, level), tags };
}
