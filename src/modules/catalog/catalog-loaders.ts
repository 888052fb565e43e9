import type { AnalyzerRow, CodeFormatterRow, IssueCategory, IssueRow } from "../../db/types.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import {
  countVisibleIssuesByCategory,
  findAnalyzersByIds,
  findAnalyzersByKeys,
  findAnalyzersByShortcodes,
  findCodeFormattersByKeys,
  findCodeFormattersByShortcodes,
  findIssuesByIds,
  findVisibleIssuesByAnalyzerAndShortcode,
  findVisibleIssuesByKeys,
} from "./catalog-store.ts";

/** Analyzers by key. */
export const analyzerByKey = defineLoader<string, AnalyzerRow | null>("analyzerByKey", async (ctx, keys) =>
  alignRows(keys, await findAnalyzersByKeys(ctx.db, keys), (a) => a.key),
);

/** Analyzers by internal id. */
export const analyzerById = defineLoader<string, AnalyzerRow | null>("analyzerById", async (ctx, ids) =>
  alignRows(ids, await findAnalyzersByIds(ctx.db, ids), (a) => a.id),
);

/** Analyzers by shortcode. */
export const analyzerByShortcode = defineLoader<string, AnalyzerRow | null>(
  "analyzerByShortcode",
  async (ctx, shortcodes) =>
    alignRows(shortcodes, await findAnalyzersByShortcodes(ctx.db, shortcodes), (a) => a.shortcode),
);

/** Issues by key, as the viewer may read them: another account's own issue is null. */
export const visibleIssueByKey = defineLoader<string, IssueRow | null>(
  "visibleIssueByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleIssuesByKeys(ctx.db, ctx.viewer.userId, keys), (i) => i.key),
);

/** Issues by internal id. */
export const issueById = defineLoader<string, IssueRow | null>("issueById", async (ctx, ids) =>
  alignRows(ids, await findIssuesByIds(ctx.db, ids), (i) => i.id),
);

/** The loader key of {@link visibleIssueByAnalyzerAndShortcode}: one analyzer's issue by shortcode. */
export function analyzerIssueKey(analyzerId: string, shortcode: string): string {
  return JSON.stringify([analyzerId, shortcode]);
}

/**
 * Issues by {@link analyzerIssueKey} (analyzer id and shortcode), as the viewer may read them: the
 * shared one, else the first filed of the viewer's accounts' own; null when the viewer may read
 * none (another account's own issue answers as a shortcode nobody has).
 */
export const visibleIssueByAnalyzerAndShortcode = defineLoader<string, IssueRow | null>(
  "visibleIssueByAnalyzerAndShortcode",
  async (ctx, keys) => {
    const pairs = keys.map((key) => {
      const [analyzerId, shortcode] = JSON.parse(key) as [string, string];
      return { analyzerId, shortcode };
    });
    const rows = await findVisibleIssuesByAnalyzerAndShortcode(ctx.db, ctx.viewer.userId, pairs);
    return alignRows(keys, rows, (i) => analyzerIssueKey(String(i.analyzer_id), i.shortcode));
  },
);

/**
 * Per analyzer id, how many of its issues the viewer may read fall in each category. One
 * statement answers both `numIssues` and `issueDistribution` for every analyzer of a request.
 */
export const visibleIssueCountsByAnalyzer = defineLoader<string, ReadonlyMap<IssueCategory, number>>(
  "visibleIssueCountsByAnalyzer",
  async (ctx, analyzerIds) => {
    const counts = new Map<string, Map<IssueCategory, number>>(analyzerIds.map((id) => [id, new Map()]));
    for (const row of await countVisibleIssuesByCategory(ctx.db, ctx.viewer.userId, analyzerIds)) {
      counts.get(row.analyzer_id)?.set(row.category, row.count);
    }
    return analyzerIds.map((id) => counts.get(id) ?? new Map());
  },
);

/** Code formatters by key. */
export const codeFormatterByKey = defineLoader<string, CodeFormatterRow | null>(
  "codeFormatterByKey",
  async (ctx, keys) => alignRows(keys, await findCodeFormattersByKeys(ctx.db, keys), (f) => f.key),
);

/** Code formatters by shortcode. */
export const codeFormatterByShortcode = defineLoader<string, CodeFormatterRow | null>(
  "codeFormatterByShortcode",
  async (ctx, shortcodes) =>
    alignRows(shortcodes, await findCodeFormattersByShortcodes(ctx.db, shortcodes), (f) => f.shortcode),
);
