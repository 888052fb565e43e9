import type { RepositoryRow } from "../../db/types.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import { defineSharedLookup } from "../../graphql/shared-lookup.ts";
import {
  findRepositoriesByIds,
  findVisibleRepositoriesOfViewers,
  type VisibleRepositoryLookup,
  type VisibleRepositoryRow,
} from "./repository-store.ts";

/**
 * Repositories by viewer and key, shared by the requests of this process: the `node(id:)` lookups
 * of concurrent requests, of any viewers, run as one statement.
 */
const visibleRepositories = defineSharedLookup<VisibleRepositoryLookup, VisibleRepositoryRow>({
  keyOfQuery: (lookup) => `${lookup.viewerId}:${lookup.key}`,
  keyOfRow: (row) => `${row.viewer_id}:${row.key}`,
  run: findVisibleRepositoriesOfViewers,
});

/** Repositories by key, limited to accounts the viewer belongs to. */
export const visibleRepositoryByKey = defineLoader<string, RepositoryRow | null>(
  "visibleRepositoryByKey",
  async (ctx, keys) => {
    const viewerId = ctx.viewer.userId;
    const found = await visibleRepositories(ctx.db).load(keys.map((key) => ({ viewerId, key })));
    return found.map((rows) => {
      if (!rows[0]) return null;
      // The viewer the row was found for is the lookup's business, not the row's.
      const { viewer_id: _viewer, ...repository } = rows[0];
      return repository;
    });
  },
);

/** Repositories by internal id; only for foreign keys of rows the viewer already sees. */
export const repositoryById = defineLoader<string, RepositoryRow | null>("repositoryById", async (ctx, ids) =>
  alignRows(ids, await findRepositoriesByIds(ctx.db, ids), (r) => r.id),
);
