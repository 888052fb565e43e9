import type { AccountRow, MembershipRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { userById } from "../users/user-loaders.ts";
import { UserRef } from "../users/user-type.ts";
import { accountById, visibleAccountByKey, visibleMembershipByKey } from "./account-loaders.ts";
import {
  accountsOfUser,
  findVisibleAccountByLogin,
  membersOfAccount,
  sharedWithViewer,
} from "./account-store.ts";
import { accountAvatarUrl, accountVcsUrl, VCS_PROVIDERS } from "./vcs.ts";

/** The contract's `VCSProvider` enum. */
export const VcsProviderEnum = builder.enumType("VCSProvider", {
  description: "Where an account and its repositories are hosted.",
  values: VCS_PROVIDERS,
});

const AccountType = builder.enumType("AccountType", {
  description: "Whether an account belongs to one person or to a team.",
  values: ["INDIVIDUAL", "TEAM"] as const,
});

/** The contract's `TeamMemberRole` enum. */
export const TeamMemberRoleEnum = builder.enumType("TeamMemberRole", {
  description: "A member's role in a team: ADMIN manages the team; MEMBER and CONTRIBUTOR use it.",
  values: ["ADMIN", "MEMBER", "CONTRIBUTOR"] as const,
});

const AccountSubscriptionPlan = builder.enumType("AccountSubscriptionPlan", {
  description: "The plan an account is on.",
  values: ["FREE", "STARTER", "BUSINESS", "ENTERPRISE"] as const,
});

const AccountSubscription = builder
  .objectRef<{ plan: AccountRow["subscription_plan"] }>("AccountSubscription")
  .implement({
    description: "An account's subscription.",
    fields: (t) => ({
      plan: t.field({ type: AccountSubscriptionPlan, description: "The plan.", resolve: (s) => s.plan }),
    }),
  });

/** A user's membership in an account. */
export const TeamMemberRef = builder.objectRef<MembershipRow>("TeamMember").implement({
  description: "A user's membership in an account, with their role.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("TeamMember")),
    user: t.field({
      type: UserRef,
      description: "The member.",
      resolve: async (m, _args, ctx) => (await userById(ctx).load(m.user_id))!,
    }),
    role: t.field({ type: TeamMemberRoleEnum, description: "The member's role.", resolve: (m) => m.role }),
    isOwner: t.boolean({ description: "True for the account's owner.", resolve: (m) => m.is_owner }),
    joinedAt: t.field({
      type: "DateTime",
      description: "When the user joined.",
      resolve: (m) => m.joined_at,
    }),
  }),
});

const TeamMemberConnection = connectionType("TeamMember", TeamMemberRef, "team member");

/** An individual or team account on a VCS provider. */
export const AccountRef = builder.objectRef<AccountRow>("Account").implement({
  description: "An individual or team account on a VCS provider; it owns repositories.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("Account")),
    login: t.string({ description: "The account's login on its provider.", resolve: (a) => a.login }),
    type: t.field({ type: AccountType, description: "INDIVIDUAL or TEAM.", resolve: (a) => a.type }),
    vcsProvider: t.field({
      type: VcsProviderEnum,
      description: "Where the account is hosted.",
      resolve: (a) => a.vcs_provider,
    }),
    isBetaTester: t.boolean({
      description: "True when the account opted into beta features.",
      resolve: (a) => a.is_beta_tester,
    }),
    avatarUrl: t.string({
      nullable: true,
      description: "URL of the account's avatar image.",
      resolve: accountAvatarUrl,
    }),
    vcsUrl: t.string({
      nullable: true,
      description: "The account's page on its provider.",
      resolve: accountVcsUrl,
    }),
    subscription: t.field({
      type: AccountSubscription,
      description: "The account's plan.",
      resolve: (a) => ({ plan: a.subscription_plan }),
    }),
    members: t.field({
      type: TeamMemberConnection,
      description: "The account's members, oldest membership first.",
      args: connectionArgs(t.arg),
      resolve: (a, args, ctx) =>
        ctx.loaders.connections.load<MembershipRow>(membersOfAccount, a.id, pageArgs(args)),
    }),
  }),
});

/** `XConnection` of accounts, for `User.accounts`. */
export const AccountConnection = connectionType("Account", AccountRef, "account");

builder.objectField(UserRef, "accounts", (t) =>
  t.field({
    type: AccountConnection,
    nullable: true,
    description: "The accounts the user belongs to, ordered by login.",
    args: connectionArgs(t.arg),
    resolve: (user, args, ctx) =>
      ctx.loaders.connections.load<AccountRow>(
        accountsOfUser,
        user.id,
        pageArgs(args),
        // Another user's memberships are theirs to tell: through a team, only shared accounts show.
        user.id === ctx.viewer.userId ? undefined : sharedWithViewer(ctx.viewer.userId),
      ),
  }),
);

builder.queryField("account", (t) =>
  t.field({
    type: AccountRef,
    nullable: true,
    description: "An account you belong to, by login and provider; null when there is none you can see.",
    args: {
      login: t.arg.string({ required: true, description: "The account's login." }),
      vcsProvider: t.arg({ type: VcsProviderEnum, required: true, description: "The account's provider." }),
    },
    resolve: async (_root, args, ctx) =>
      (await findVisibleAccountByLogin(ctx.db, ctx.viewer.userId, args.login, args.vcsProvider)) ?? null,
  }),
);

registerNodeType("Account", (ctx, key) => visibleAccountByKey(ctx).load(key));
registerNodeType("TeamMember", (ctx, key) => visibleMembershipByKey(ctx).load(key));

export { accountById };
