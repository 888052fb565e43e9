import type { RepositoryRow } from "../../db/types.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import { findRepositoriesByIds, findVisibleRepositoriesByKeys } from "./repository-store.ts";

/** Repositories by key, limited to accounts the viewer belongs to. */
export const visibleRepositoryByKey = defineLoader<string, RepositoryRow | null>(
  "visibleRepositoryByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleRepositoriesByKeys(ctx.db, ctx.viewer.userId, keys), (r) => r.key),
);

/** Repositories by internal id; only for foreign keys of rows the viewer already sees. */
export const repositoryById = defineLoader<string, RepositoryRow | null>("repositoryById", async (ctx, ids) =>
  alignRows(ids, await findRepositoriesByIds(ctx.db, ids), (r) => r.id),
);
