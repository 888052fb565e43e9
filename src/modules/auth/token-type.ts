import type { PersonalAccessTokenRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { UserRef } from "../users/user-type.ts";
import { PAT_PREFIX } from "./pat.ts";
import { ownTokenByKey } from "./token-loaders.ts";
import { tokensOfUser } from "./token-store.ts";

/**
 * A personal access token as its owner sees it: never the token itself, which exists only in the
 * answer that created it, but what tells tokens apart (name, last four characters) and its dates.
 * Only the owner can reach a token: through `viewer.personalAccessTokens` or `node(id:)`.
 */
export const PersonalAccessTokenRef = builder
  .objectRef<PersonalAccessTokenRow>("PersonalAccessToken")
  .implement({
    description:
      "One of your personal access tokens. The token itself is shown only once, when it is created; this is what is kept.",
    interfaces: [NodeInterface],
    fields: (t) => ({
      id: t.id(globalIdField("PersonalAccessToken")),
      name: t.string({
        description: "What the token is for, as named when it was created.",
        resolve: (r) => r.name,
      }),
      lastFour: t.string({
        description: "The token's last four characters, to tell it apart from your others.",
        resolve: (r) => r.last_four,
      }),
      preview: t.string({
        description: "The token masked for display: its prefix, an ellipsis and its last four characters.",
        resolve: (r) => `${PAT_PREFIX}…${r.last_four}`,
      }),
      createdAt: t.field({
        type: "DateTime",
        description: "When it was created.",
        resolve: (r) => r.created_at,
      }),
      expiresAt: t.field({
        type: "DateTime",
        nullable: true,
        description: "When it stops working; null for a token that never expires.",
        resolve: (r) => r.expires_at,
      }),
      lastUsedAt: t.field({
        type: "DateTime",
        nullable: true,
        description: "When it last authenticated a request (recorded at most once a minute); null if never.",
        resolve: (r) => r.last_used_at,
      }),
      revokedAt: t.field({
        type: "DateTime",
        nullable: true,
        description: "When it was revoked; null while it is not.",
        resolve: (r) => r.revoked_at,
      }),
      isRevoked: t.boolean({
        description: "True once the token is revoked.",
        resolve: (r) => r.revoked_at !== null,
      }),
      isExpired: t.boolean({
        description: "True once the token is past its expiry.",
        resolve: (r) => r.expires_at !== null && r.expires_at.getTime() <= Date.now(),
      }),
      isCurrent: t.boolean({
        description: "True for the token that authenticated this request.",
        resolve: (r, _args, ctx) => r.id === ctx.viewer.tokenId,
      }),
    }),
  });

const PersonalAccessTokenConnection = connectionType(
  "PersonalAccessToken",
  PersonalAccessTokenRef,
  "personal access token",
);

builder.objectField(UserRef, "personalAccessTokens", (t) =>
  t.field({
    type: PersonalAccessTokenConnection,
    nullable: true,
    description:
      "Your personal access tokens, newest first, revoked and expired ones included. Only on `viewer`: null on any other user.",
    args: connectionArgs(t.arg),
    resolve: (user, args, ctx) =>
      user.id === ctx.viewer.userId
        ? ctx.loaders.connections.load<PersonalAccessTokenRow>(tokensOfUser, user.id, pageArgs(args))
        : null,
  }),
);

registerNodeType("PersonalAccessToken", (ctx, key) => ownTokenByKey(ctx).load(key));
