import type { AccountRow, MembershipRow } from "../../db/types.ts";
import { alignRows, defineLoader } from "../../graphql/context.ts";
import {
  findAccountsByIds,
  findMembershipsOfUser,
  findVisibleAccountsByKeys,
  findVisibleMembershipsByKeys,
} from "./account-store.ts";

/** Accounts by key, limited to those the viewer belongs to. */
export const visibleAccountByKey = defineLoader<string, AccountRow | null>(
  "visibleAccountByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleAccountsByKeys(ctx.db, ctx.viewer.userId, keys), (a) => a.key),
);

/** Accounts by internal id; only for foreign keys of rows the viewer already sees. */
export const accountById = defineLoader<string, AccountRow | null>("accountById", async (ctx, ids) =>
  alignRows(ids, await findAccountsByIds(ctx.db, ids), (a) => a.id),
);

/** Team memberships by key, limited to teams the viewer belongs to. */
export const visibleMembershipByKey = defineLoader<string, MembershipRow | null>(
  "visibleMembershipByKey",
  async (ctx, keys) =>
    alignRows(keys, await findVisibleMembershipsByKeys(ctx.db, ctx.viewer.userId, keys), (m) => m.key),
);

/** The viewer's own membership in an account (their role), by account id. */
export const viewerMembershipByAccountId = defineLoader<string, MembershipRow | null>(
  "viewerMembershipByAccountId",
  async (ctx, accountIds) =>
    alignRows(
      accountIds,
      await findMembershipsOfUser(ctx.db, ctx.viewer.userId, accountIds),
      (m) => m.account_id,
    ),
);
