import type { IssueCategory, IssueSeverity } from "../../../db/types.ts";

/** One rule of the catalog as written in the data files. */
export interface IssueDefinition {
  shortcode: string;
  title: string;
  category: IssueCategory;
  severity: IssueSeverity;
  /** One sentence: the short description. */
  summary: string;
  /** Why it matters and how to fix it; the description is the summary followed by this. */
  detail: string;
  /** CWE ids the rule detects. */
  cwe: number[];
  /** The MISRA C:2012 rule it checks, e.g. `17.7`. */
  misra?: string;
  autofix: boolean;
  recommended: boolean;
}

/** Optional facts of a rule. */
interface RuleExtras {
  cwe?: number[];
  misra?: string;
  autofix?: boolean;
  recommended?: boolean;
}

/** A rule, compactly: the data files are long lists of these calls. */
export function rule(
  shortcode: string,
  category: IssueCategory,
  severity: IssueSeverity,
  title: string,
  summary: string,
  detail: string,
  extras: RuleExtras = {},
): IssueDefinition {
  return {
    shortcode,
    title,
    category,
    severity,
    summary,
    detail,
    cwe: extras.cwe ?? [],
    ...(extras.misra !== undefined && { misra: extras.misra }),
    autofix: extras.autofix ?? false,
    recommended: extras.recommended ?? severity !== "MINOR",
  };
}
