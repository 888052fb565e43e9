import { builder } from "../../graphql/builder.ts";
import { AssayError, badUserInput, ErrorCode } from "../../graphql/errors.ts";
import {
  clientMutationIdInput,
  clientMutationIdOutput,
  echoOf,
  inTransaction,
  type MutationEcho,
} from "../../graphql/mutations.ts";
import { userById } from "../users/user-loaders.ts";
import {
  REFRESH_TOKEN_DAYS,
  refreshSession,
  revokeSessionByRefreshToken,
  type SessionTokens,
  startSession,
  verifyAccessToken,
} from "./session-service.ts";

/**
 * Session tokens (docs/api.md, "Tokens and device login"). `verifyToken`, `refreshToken` and
 * `revokeToken` carry their own credential in their argument, so they are answered without a
 * token too (src/http/public-operations.ts) and never read `ctx.viewer`. `createSessionToken`
 * starts a session for the signed-in caller.
 */

// graphql-jwt's messages, which clients of the contract match (the CLI looks for the first).
const SIGNATURE_EXPIRED = "Signature has expired";
const DECODING_ERROR = "Error decoding signature";
const INVALID_REFRESH_TOKEN = "Invalid refresh token";
const REFRESH_TOKEN_EXPIRED = "Refresh token is expired";

/** Fields of the contract's `Refresh`, shared with `CreateSessionTokenPayload`. */
function sessionTokenFields<P extends SessionTokens>(
  t: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypes, P>,
) {
  return {
    payload: t.field({
      type: "GenericScalar",
      description:
        "The access token's claims: `sub` (your user id), `email`, `sid` (the session), `iat`, `exp`, `jti`.",
      resolve: (p) => p.payload,
    }),
    refreshExpiresIn: t.int({
      description: `When the refresh token expires, in Unix seconds (${REFRESH_TOKEN_DAYS} days after it was issued).`,
      resolve: (p) => p.refreshExpiresIn,
    }),
    token: t.string({
      description:
        "The access token: a JWT that works as `Authorization: Bearer` for 15 minutes. Get another with `refreshToken`.",
      resolve: (p) => p.token,
    }),
    refreshToken: t.string({
      description: "The refresh token; each use spends it and answers a new one. Keep it secret.",
      resolve: (p) => p.refreshToken,
    }),
  };
}

type SchemaTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const RefreshRef = builder.objectRef<SessionTokens>("Refresh").implement({
  description: "A new access token and refresh token; the refresh token sent is spent.",
  fields: (t) => sessionTokenFields(t),
});

const VerifyRef = builder.objectRef<{ payload: unknown }>("Verify").implement({
  description: "The claims of a valid access token.",
  fields: (t) => ({
    payload: t.field({
      type: "GenericScalar",
      description: "The token's claims: `sub`, `email`, `sid`, `iat`, `exp`, `jti`.",
      resolve: (p) => p.payload,
    }),
  }),
});

const RevokeRef = builder.objectRef<{ revoked: number }>("Revoke").implement({
  description: "The answer of `revokeToken`.",
  fields: (t) => ({
    revoked: t.int({
      description: "When the session was revoked, in Unix seconds (the first time, if it already was).",
      resolve: (p) => p.revoked,
    }),
  }),
});

builder.mutationField("verifyToken", (t) =>
  t.field({
    type: VerifyRef,
    nullable: true,
    description:
      "Checks an access token and answers its claims. Needs no other token. Expired: EXPIRED_TOKEN, `Signature has expired`; not ours, tampered with or of a revoked session: BAD_USER_INPUT naming `token`.",
    args: { token: t.arg.string({ required: false, description: "The access token to check." }) },
    resolve: async (_root, args, ctx) => {
      const verified = await verifyAccessToken(ctx.db, ctx.config.sessionSecret, args.token);
      if (verified === "expired") throw new AssayError(SIGNATURE_EXPIRED, ErrorCode.EXPIRED_TOKEN);
      if (verified === "revoked") throw badUserInput("The session of this token has been revoked.", "token");
      if (typeof verified === "string") throw badUserInput(DECODING_ERROR, "token");
      return { payload: verified.claims };
    },
  }),
);

builder.mutationField("refreshToken", (t) =>
  t.field({
    type: RefreshRef,
    nullable: true,
    description:
      "Trades a refresh token for a new access token and refresh token. Needs no other token. A refresh token works once: presenting a spent one revokes its whole session. Unknown, spent or revoked: BAD_USER_INPUT naming `refreshToken`; expired: EXPIRED_TOKEN.",
    args: { refreshToken: t.arg.string({ required: false, description: "The refresh token to spend." }) },
    resolve: async (_root, args, ctx) => {
      const refreshed = await inTransaction(ctx, (tx) =>
        refreshSession(tx, args.refreshToken, {
          pepper: ctx.config.tokenPepper,
          secret: ctx.config.sessionSecret,
        }),
      );
      // Raised after the commit: a reused token's session stays revoked.
      if (refreshed === "expired") throw new AssayError(REFRESH_TOKEN_EXPIRED, ErrorCode.EXPIRED_TOKEN);
      if (typeof refreshed === "string") throw badUserInput(INVALID_REFRESH_TOKEN, "refreshToken");
      return refreshed;
    },
  }),
);

builder.mutationField("revokeToken", (t) =>
  t.field({
    type: RevokeRef,
    nullable: true,
    description:
      "Ends the session of a refresh token: its refresh tokens and access tokens stop working at once. Needs no other token. Revoking again answers the first revocation's time.",
    args: {
      refreshToken: t.arg.string({ required: false, description: "Any refresh token of the session." }),
    },
    resolve: async (_root, args, ctx) => {
      const revoked = await inTransaction(ctx, (tx) =>
        revokeSessionByRefreshToken(tx, args.refreshToken, { pepper: ctx.config.tokenPepper }),
      );
      if (revoked === "invalid") throw badUserInput(INVALID_REFRESH_TOKEN, "refreshToken");
      return { revoked };
    },
  }),
);

const CreateSessionTokenInput = builder.inputType("CreateSessionTokenInput", {
  description: "Input of `createSessionToken`.",
  fields: (t) => ({ clientMutationId: clientMutationIdInput(t) }),
});

const CreateSessionTokenPayload = builder
  .objectRef<MutationEcho & SessionTokens>("CreateSessionTokenPayload")
  .implement({
    description:
      "The answer of `createSessionToken`: the first access token and refresh token of a new session.",
    fields: (t) => ({ ...sessionTokenFields(t), clientMutationId: clientMutationIdOutput(t) }),
  });

builder.mutationField("createSessionToken", (t) =>
  t.field({
    type: CreateSessionTokenPayload,
    nullable: true,
    description:
      "Starts a session for you: a short-lived access token and a refresh token to renew it with `refreshToken`, end it with `revokeToken`.",
    args: {
      input: t.arg({ type: CreateSessionTokenInput, required: true, description: "Nothing but the echo." }),
    },
    resolve: async (_root, { input }, ctx) => {
      const user = await userById(ctx).load(ctx.viewer.userId);
      if (!user) throw new Error("the viewer's user row is missing");
      const tokens = await inTransaction(ctx, (tx) =>
        startSession(tx, user, { pepper: ctx.config.tokenPepper, secret: ctx.config.sessionSecret }),
      );
      return { ...echoOf(input), ...tokens };
    },
  }),
);
