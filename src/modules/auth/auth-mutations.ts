import type { PersonalAccessTokenRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { forbidden } from "../../graphql/errors.ts";
import {
  clientMutationIdInput,
  clientMutationIdOutput,
  echoOf,
  inTransaction,
  keyOfId,
  type MutationEcho,
} from "../../graphql/mutations.ts";
import { noSuchId } from "../accounts/access.ts";
import { userById } from "../users/user-loaders.ts";
import { UserRef } from "../users/user-type.ts";
import { forgetRevokedToken } from "./identity-cache.ts";
import {
  createOwnToken,
  refreshPersonalAccessToken,
  revokeCallingToken,
  revokeOwnToken,
} from "./pat-service.ts";
import { PersonalAccessTokenRef } from "./token-type.ts";
import "./device-mutations.ts";
import "./session-mutations.ts";

/**
 * Personal access token mutations: the contract's `refreshPat` and `revokePat`, which act on the
 * token the request is authenticated with, and `createPersonalAccessToken` /
 * `revokePersonalAccessToken` for managing your own tokens. Importing this file also adds device
 * login and session tokens (the auth module's entry point, listed in modules/index.ts).
 */

/** The calling personal access token's id; FORBIDDEN when a session token authenticated the request. */
function callingTokenId(ctx: GraphQLContext): string {
  const { tokenId } = ctx.viewer;
  if (tokenId === null) {
    throw forbidden(
      "This acts on the personal access token the request is authenticated with, and this request used a session token.",
    );
  }
  return tokenId;
}

/** The contract's `RevokePAT` payload. */
const RevokePatRef = builder.objectRef<{ ok: boolean }>("RevokePAT").implement({
  description: "The answer of `revokePat`.",
  fields: (t) => ({
    ok: t.boolean({
      nullable: true,
      description: "True when the calling token is now revoked.",
      resolve: (p) => p.ok,
    }),
  }),
});

builder.mutationField("revokePat", (t) =>
  t.field({
    type: RevokePatRef,
    nullable: true,
    description:
      "Revokes the personal access token this request is authenticated with. It stops working at once on the instance that answers, and within a second on every other.",
    resolve: async (_root, _args, ctx) => {
      const tokenId = callingTokenId(ctx);
      const ok = await inTransaction(ctx, (tx) => revokeCallingToken(tx, tokenId));
      // Committed: no request of this process may be answered from a cached identity of it.
      forgetRevokedToken(tokenId);
      return { ok };
    },
  }),
);

/** A token handed out by `refreshPat` or `requestPatWithDeviceCode`. */
export interface IssuedPat {
  token: string;
  expiry: Date | null;
  userId: string;
}

/** The contract's `RefreshPAT` payload. */
const RefreshPatRef = builder.objectRef<IssuedPat>("RefreshPAT").implement({
  description: "The answer of `refreshPat`: the new token, which replaces the one the request was sent with.",
  fields: (t) => ({
    token: t.string({
      nullable: true,
      description: "The new personal access token. Shown this once; keep it.",
      resolve: (p) => p.token,
    }),
    expiry: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the new token expires; null when it never does.",
      resolve: (p) => p.expiry,
    }),
    user: t.field({
      type: UserRef,
      nullable: true,
      description: "The token's owner.",
      resolve: (p, _args, ctx) => userById(ctx).load(p.userId),
    }),
  }),
});

builder.mutationField("refreshPat", (t) =>
  t.field({
    type: RefreshPatRef,
    nullable: true,
    description:
      "Trades the personal access token this request is authenticated with for a new one with the same name and a fresh lifetime of the same length, and revokes the old one. Accepts a token that expired less than 7 days ago (only for this mutation, sent alone); never a revoked one.",
    resolve: async (_root, _args, ctx) => {
      const oldTokenId = callingTokenId(ctx);
      const issued = await inTransaction(ctx, async (tx) => {
        const { token, row } = await refreshPersonalAccessToken(tx, ctx.config.tokenPepper, oldTokenId);
        return { token, expiry: row.expires_at, userId: row.user_id };
      });
      forgetRevokedToken(oldTokenId);
      return issued;
    },
  }),
);

const CreatePersonalAccessTokenInput = builder.inputType("CreatePersonalAccessTokenInput", {
  description: "Input of `createPersonalAccessToken`.",
  fields: (t) => ({
    name: t.string({ required: true, description: "What the token is for, 1 to 100 characters." }),
    expiresInDays: t.int({
      required: false,
      defaultValue: 90,
      description: "Days until the token expires, 1 to 3650 (default 90).",
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const CreatePersonalAccessTokenPayload = builder
  .objectRef<MutationEcho & { token: string; row: PersonalAccessTokenRow }>(
    "CreatePersonalAccessTokenPayload",
  )
  .implement({
    description: "The answer of `createPersonalAccessToken`.",
    fields: (t) => ({
      token: t.string({
        description: "The new personal access token. This is the only time it is shown; keep it.",
        resolve: (p) => p.token,
      }),
      personalAccessToken: t.field({
        type: PersonalAccessTokenRef,
        description: "What is kept of the token, as `viewer.personalAccessTokens` lists it.",
        resolve: (p) => p.row,
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });

builder.mutationField("createPersonalAccessToken", (t) =>
  t.field({
    type: CreatePersonalAccessTokenPayload,
    nullable: true,
    description: "Creates a personal access token for you. It carries all your access, like every token.",
    args: {
      input: t.arg({
        type: CreatePersonalAccessTokenInput,
        required: true,
        description: "The token to create.",
      }),
    },
    resolve: async (_root, { input }, ctx) => {
      const issued = await inTransaction(ctx, (tx) =>
        createOwnToken(tx, ctx.config.tokenPepper, {
          userId: ctx.viewer.userId,
          name: input.name,
          expiresInDays: input.expiresInDays,
        }),
      );
      return { ...echoOf(input), ...issued };
    },
  }),
);

const RevokePersonalAccessTokenInput = builder.inputType("RevokePersonalAccessTokenInput", {
  description: "Input of `revokePersonalAccessToken`.",
  fields: (t) => ({
    id: t.id({ required: true, description: "The id of one of your personal access tokens." }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const RevokePersonalAccessTokenPayload = builder
  .objectRef<MutationEcho & { row: PersonalAccessTokenRow }>("RevokePersonalAccessTokenPayload")
  .implement({
    description: "The answer of `revokePersonalAccessToken`.",
    fields: (t) => ({
      ok: t.boolean({
        description: "True: the token is revoked (also when it already was).",
        resolve: () => true,
      }),
      personalAccessToken: t.field({
        type: PersonalAccessTokenRef,
        description: "The revoked token.",
        resolve: (p) => p.row,
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });

builder.mutationField("revokePersonalAccessToken", (t) =>
  t.field({
    type: RevokePersonalAccessTokenPayload,
    nullable: true,
    description:
      "Revokes one of your personal access tokens; it stops working at once on the instance that answers, and within a second on every other. Revoking a revoked token changes nothing.",
    args: {
      input: t.arg({
        type: RevokePersonalAccessTokenInput,
        required: true,
        description: "The token to revoke.",
      }),
    },
    resolve: async (_root, { input }, ctx) => {
      const key = keyOfId(input.id, "PersonalAccessToken", "id");
      const row = await inTransaction(ctx, (tx) => revokeOwnToken(tx, ctx.viewer.userId, key));
      if (!row) noSuchId(input.id);
      forgetRevokedToken(row.id);
      return { ...echoOf(input), row };
    },
  }),
);
