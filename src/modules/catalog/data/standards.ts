import type { IssueCategory } from "../../../db/types.ts";

/**
 * The tag convention of the issue catalog (docs/read-model.md):
 * - the category in kebab case (`bug-risk`, `security`, ...);
 * - one `cwe-<n>` per weakness the rule detects;
 * - `owasp-top-10-2021-a01` ... `a10`, derived here from the CWE ids with {@link OWASP_2021_BY_CWE};
 * - `sans-top-25-2023` when one of the CWE ids is on the 2023 CWE Top 25 list;
 * - `misra-c-2012-rule-<x>.<y>` for C and C++ rules that check a MISRA C:2012 rule.
 *
 * Reports key their rows by CWE id, so the CWE tags are the facts; the OWASP and SANS tags are a
 * convenience for filtering the catalog.
 */

/** The OWASP Top 10 (2021) category of each CWE id the catalog uses, from OWASP's own CWE lists. */
export const OWASP_2021_BY_CWE: ReadonlyMap<number, string> = new Map(
  (
    [
      [
        "a01",
        [22, 23, 35, 59, 200, 201, 276, 284, 285, 352, 359, 377, 425, 552, 601, 639, 668, 862, 863, 922],
      ],
      ["a02", [259, 261, 319, 321, 323, 326, 327, 328, 329, 330, 331, 338, 347, 759, 760, 916]],
      ["a03", [20, 74, 77, 78, 79, 80, 88, 89, 90, 91, 94, 95, 98, 113, 116, 470, 643, 917, 1336]],
      ["a04", [209, 256, 269, 311, 312, 313, 434, 501, 522, 602, 656, 799, 840, 1021]],
      ["a05", [16, 260, 315, 526, 537, 611, 614, 756, 776, 942, 1004]],
      ["a06", [937, 1035, 1104]],
      ["a07", [287, 290, 295, 297, 306, 307, 384, 521, 613, 640, 798, 1391]],
      ["a08", [345, 353, 426, 494, 502, 565, 829, 915]],
      ["a09", [117, 223, 532, 778]],
      ["a10", [918]],
    ] as const
  ).flatMap(([category, cwes]) => cwes.map((cwe) => [cwe, category] as const)),
);

/** The 2023 CWE Top 25 Most Dangerous Software Weaknesses (the list SANS co-publishes). */
export const SANS_TOP_25_2023: ReadonlySet<number> = new Set([
  787, 79, 89, 416, 78, 20, 125, 22, 352, 434, 862, 476, 287, 190, 502, 77, 119, 798, 918, 306, 362, 269, 94,
  863, 276,
]);

/** The tag of the SANS/CWE Top 25 list. */
export const SANS_TOP_25_TAG = "sans-top-25-2023";

/** The tag of one OWASP Top 10 (2021) category, `a01` ... `a10`. */
export function owaspTag(category: string): string {
  return `owasp-top-10-2021-${category}`;
}

/** The tag of one MISRA C:2012 rule, e.g. `misra-c-2012-rule-17.7`. */
export function misraTag(rule: string): string {
  return `misra-c-2012-rule-${rule}`;
}

/** The tags of a rule, following the convention above. */
export function tagsFor(category: IssueCategory, cwes: readonly number[], misra?: string): string[] {
  const tags = withStandardTags([
    category.toLowerCase().replaceAll("_", "-"),
    ...cwes.map((cwe) => `cwe-${cwe}`),
  ]);
  if (misra) tags.push(misraTag(misra));
  return tags;
}

/**
 * `tags` followed by the OWASP and SANS tags their `cwe-<n>` tags imply (the convention above),
 * each tag once. Issues filed from a tool's report get them too, so that filtering issues by
 * these tags finds what the compliance reports, which read the CWE tags, count.
 */
export function withStandardTags(tags: readonly string[]): string[] {
  const cwes = tags.flatMap((tag) => {
    const cwe = /^cwe-(\d+)$/.exec(tag);
    return cwe ? [Number(cwe[1])] : [];
  });
  const owasp = [...new Set(cwes.flatMap((cwe) => OWASP_2021_BY_CWE.get(cwe) ?? []))].sort().map(owaspTag);
  const sans = cwes.some((cwe) => SANS_TOP_25_2023.has(cwe)) ? [SANS_TOP_25_TAG] : [];
  return [...new Set([...tags, ...owasp, ...sans])];
}
