import { MISRA_C_2012_GROUPS } from "./data/misra-c-2012.ts";
import { OWASP_TOP_10_2021, owaspCategoryOfCwe } from "./data/owasp-top-10-2021.ts";
import { SANS_TOP_25_2023_ENTRIES } from "./data/sans-top-25-2023.ts";

/**
 * The three compliance standards and how an issue's tags place it in their items
 * (docs/reports.md). Tags follow the catalog's convention: `cwe-<n>`,
 * `owasp-top-10-2021-aNN`, `misra-c-2012-rule-<x>.<y>`.
 */

export type ComplianceReportKey = "OWASP_TOP_10" | "SANS_TOP_25" | "MISRA_C";

/** One row of a compliance report: an OWASP category, a CWE entry or a MISRA rule group. */
export interface ComplianceItem {
  key: string;
  title: string;
}

/** A standard: its report title, its items in display order, and the items an issue belongs to. */
export interface ComplianceStandard {
  reportKey: ComplianceReportKey;
  title: string;
  items: readonly ComplianceItem[];
  /** The keys of the items an issue with these tags belongs to, in item order, without repeats. */
  itemsOfTags(tags: readonly string[]): string[];
}

const CWE_TAG = /^cwe-(\d+)$/;
const OWASP_TAG = /^owasp-top-10-2021-a(\d{2})$/;
const MISRA_TAG = /^misra-c-2012-rule-(\d+)\.\d+$/;

/** The CWE ids named by `cwe-<n>` tags. */
export function cwesOfTags(tags: readonly string[]): number[] {
  return tags.flatMap((tag) => {
    const match = CWE_TAG.exec(tag);
    return match ? [Number(match[1])] : [];
  });
}

function inItemOrder(items: readonly ComplianceItem[], keys: ReadonlySet<string>): string[] {
  return items.filter((item) => keys.has(item.key)).map((item) => item.key);
}

const owaspTop10: ComplianceStandard = {
  reportKey: "OWASP_TOP_10",
  title: "OWASP Top 10",
  items: OWASP_TOP_10_2021,
  itemsOfTags(tags) {
    const keys = new Set<string>();
    for (const cwe of cwesOfTags(tags)) {
      const category = owaspCategoryOfCwe(cwe);
      if (category) keys.add(category);
    }
    for (const tag of tags) {
      const match = OWASP_TAG.exec(tag);
      if (match) keys.add(`A${match[1]}`);
    }
    return inItemOrder(this.items, keys);
  },
};

const SANS_ITEMS = SANS_TOP_25_2023_ENTRIES.map(({ cwe, title }) => ({ key: `CWE-${cwe}`, title }));

const sansTop25: ComplianceStandard = {
  reportKey: "SANS_TOP_25",
  title: "CWE/SANS Top 25",
  items: SANS_ITEMS,
  itemsOfTags(tags) {
    return inItemOrder(this.items, new Set(cwesOfTags(tags).map((cwe) => `CWE-${cwe}`)));
  },
};

const misraC: ComplianceStandard = {
  reportKey: "MISRA_C",
  title: "MISRA C",
  items: MISRA_C_2012_GROUPS.map(({ group, title }) => ({
    key: String(group),
    title: `Rules ${group}.x: ${title}`,
  })),
  itemsOfTags(tags) {
    const keys = new Set<string>();
    for (const tag of tags) {
      const match = MISRA_TAG.exec(tag);
      if (match) keys.add(String(Number(match[1])));
    }
    return inItemOrder(this.items, keys);
  },
};

/** Every compliance standard by its report key. */
export const COMPLIANCE_STANDARDS: Readonly<Record<ComplianceReportKey, ComplianceStandard>> = {
  OWASP_TOP_10: owaspTop10,
  SANS_TOP_25: sansTop25,
  MISRA_C: misraC,
};
