import type { UserRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import { globalIdField, NodeInterface } from "../../graphql/relay.ts";
import { userById, visibleUserByKey } from "./user-loaders.ts";

const IdeSubscriptionPlan = builder.enumType("IDESubscriptionPlan", {
  description: "The plan of a user's IDE subscription.",
  values: ["FREE", "PRO", "SPONSORED"] as const,
});

const IdeSubscription = builder
  .objectRef<{ plan: "FREE" | "PRO" | "SPONSORED" }>("IDESubscription")
  .implement({
    description: "A user's IDE subscription.",
    fields: (t) => ({
      plan: t.field({
        type: IdeSubscriptionPlan,
        description: "The plan subscribed to.",
        resolve: (s) => s.plan,
      }),
    }),
  });

/** A person who signs in; the owner of personal access tokens. */
export const UserRef = builder.objectRef<UserRow>("User").implement({
  description: "A person with an Assay login.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("User")),
    firstName: t.string({ description: "Given name (may be empty).", resolve: (u) => u.first_name }),
    lastName: t.string({ description: "Family name (may be empty).", resolve: (u) => u.last_name }),
    email: t.string({ description: "Primary e-mail address.", resolve: (u) => u.email }),
    analyticsId: t.string({
      description: "A stable pseudonymous id for the user, safe to share with analytics tools.",
      resolve: (u) => u.analytics_id,
    }),
    isBetaTester: t.boolean({
      description: "True when the user opted into beta features.",
      resolve: (u) => u.is_beta_tester,
    }),
    ideSubscription: t.field({
      type: IdeSubscription,
      nullable: true,
      description: "The user's IDE subscription, or null when they have none.",
      resolve: (u) => (u.ide_subscription_plan ? { plan: u.ide_subscription_plan } : null),
    }),
  }),
});

builder.queryField("viewer", (t) =>
  t.field({
    type: UserRef,
    nullable: true,
    description: "The user whose personal access token authenticated this request.",
    // The row the credential check read, when it did: no statement for `{ viewer { ... } }`.
    resolve: (_root, _args, ctx) => ctx.viewer.user ?? userById(ctx).load(ctx.viewer.userId),
  }),
);

registerNodeType("User", (ctx, key) => visibleUserByKey(ctx).load(key));
