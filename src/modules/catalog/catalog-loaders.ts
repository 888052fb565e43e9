import type { AnalyzerRow, IssueRow } from "../../db/types.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import {
  findAnalyzersByIds,
  findAnalyzersByKeys,
  findAnalyzersByShortcodes,
  findIssuesByIds,
  findIssuesByKeys,
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

/** Issues by key. */
export const issueByKey = defineLoader<string, IssueRow | null>("issueByKey", async (ctx, keys) =>
  alignRows(keys, await findIssuesByKeys(ctx.db, keys), (i) => i.key),
);

/** Issues by internal id. */
export const issueById = defineLoader<string, IssueRow | null>("issueById", async (ctx, ids) =>
  alignRows(ids, await findIssuesByIds(ctx.db, ids), (i) => i.id),
);
