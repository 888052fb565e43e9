import type { UserRow } from "../../db/types.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import { findUsersByIds, findVisibleUsersByIds, findVisibleUsersByKeys } from "./user-store.ts";

/** Users by key, limited to those the viewer may see. */
export const visibleUserByKey = defineLoader<string, UserRow | null>("visibleUserByKey", async (ctx, keys) =>
  alignRows(keys, await findVisibleUsersByKeys(ctx.db, ctx.viewer.userId, keys), (u) => u.key),
);

/** Users by internal id; only for foreign keys of rows the viewer already sees. */
export const userById = defineLoader<string, UserRow | null>("userById", async (ctx, ids) =>
  alignRows(ids, await findUsersByIds(ctx.db, ids), (u) => u.id),
);

/** Users by internal id, limited to those the viewer may see (null otherwise). */
export const visibleUserById = defineLoader<string, UserRow | null>("visibleUserById", async (ctx, ids) =>
  alignRows(ids, await findVisibleUsersByIds(ctx.db, ctx.viewer.userId, ids), (u) => u.id),
);
