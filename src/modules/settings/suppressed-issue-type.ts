import type { TeamSuppressedIssueRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { AccountRef } from "../accounts/account-type.ts";
import { issueById } from "../catalog/catalog-loaders.ts";
import { IssueRef } from "../catalog/catalog-type.ts";
import { visibleUserById } from "../users/user-loaders.ts";
import { UserRef } from "../users/user-type.ts";
import { visibleSuppressedIssueByKey } from "./settings-loaders.ts";
import { issueShortcodeFilter, suppressedIssuesOfAccount } from "./settings-store.ts";

/** An issue an account silenced in all of its repositories. */
export const TeamSuppressedIssueRef = builder
  .objectRef<TeamSuppressedIssueRow>("TeamSuppressedIssue")
  .implement({
    description: "An issue a team silenced in every one of its repositories.",
    interfaces: [NodeInterface],
    fields: (t) => ({
      createdAt: t.field({
        type: "DateTime",
        description: "When the issue was suppressed.",
        resolve: (s) => s.created_at,
      }),
      id: t.id(globalIdField("TeamSuppressedIssue")),
      issue: t.field({
        type: IssueRef,
        description: "The suppressed issue.",
        resolve: async (s, _args, ctx) => (await issueById(ctx).load(s.issue_id))!,
      }),
      user: t.field({
        type: UserRef,
        nullable: true,
        description:
          "Who suppressed it; null when unknown, or when that person no longer shares a team with you.",
        resolve: (s, _args, ctx) => (s.user_id === null ? null : visibleUserById(ctx).load(s.user_id)),
      }),
    }),
  });

const TeamSuppressedIssueConnection = connectionType(
  "TeamSuppressedIssue",
  TeamSuppressedIssueRef,
  "team-suppressed issue",
);

builder.objectField(AccountRef, "suppressedIssues", (t) =>
  t.field({
    type: TeamSuppressedIssueConnection,
    description: "The issues the team suppressed in all of its repositories, newest first.",
    args: {
      ...connectionArgs(t.arg),
      issueShortcode: t.arg.string({
        required: false,
        description: "Only suppressions of issues with this shortcode (such as `PYL-W0611`).",
      }),
    },
    resolve: (account, args, ctx) =>
      ctx.loaders.connections.load<TeamSuppressedIssueRow>(
        suppressedIssuesOfAccount,
        account.id,
        pageArgs(args),
        issueShortcodeFilter(args.issueShortcode),
      ),
  }),
);

registerNodeType("TeamSuppressedIssue", (ctx, key) => visibleSuppressedIssueByKey(ctx).load(key));
