import type { AnalysisRunRow } from "../../db/types.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import { findVisibleRunsByKeys } from "./run-store.ts";

/** Runs by key, limited to repositories the viewer can see. */
export const visibleRunByKey = defineLoader<string, AnalysisRunRow | null>(
  "visibleRunByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleRunsByKeys(ctx.db, ctx.viewer.userId, keys), (r) => r.key),
);
