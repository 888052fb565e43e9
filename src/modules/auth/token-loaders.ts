import type { PersonalAccessTokenRow } from "../../db/types.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import { findTokensOfUserByKeys } from "./token-store.ts";

/** The viewer's own tokens by key; anyone else's token is null, exactly like a missing one. */
export const ownTokenByKey = defineLoader<string, PersonalAccessTokenRow | null>(
  "ownTokenByKey",
  async (ctx, keys) =>
    alignRows(keys, await findTokensOfUserByKeys(ctx.db, ctx.viewer.userId, keys), (t) => t.key),
);
