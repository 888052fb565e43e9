import type { DeviceType } from "../../db/types-auth-flows.ts";
import { builder } from "../../graphql/builder.ts";
import {
  clientMutationIdInput,
  clientMutationIdOutput,
  echoOf,
  inTransaction,
  type MutationEcho,
  okPayloadType,
} from "../../graphql/mutations.ts";
import { userById } from "../users/user-loaders.ts";
import { UserRef } from "../users/user-type.ts";
import {
  decideDeviceLogin,
  pollDeviceLogin,
  pollError,
  type RegisteredDevice,
  registerDevice,
} from "./device-service.ts";
import { validTokenName } from "./pat-service.ts";

/**
 * Device login (docs/api.md, "Tokens and device login"). `registerDevice` and
 * `requestPatWithDeviceCode` are answered without a token (src/http/public-operations.ts), so they
 * never read `ctx.viewer`; `approveDevice` and `denyDevice` need a signed-in user.
 */

const DeviceTypeEnum = builder.enumType("DeviceType", {
  description: "The kind of client that asks to log in.",
  values: {
    CLI: { description: "A command-line client." },
    IDE: { description: "An editor or IDE plugin." },
  } as const,
});

const RegisterDeviceInput = builder.inputType("RegisterDeviceInput", {
  description: "Input of `registerDevice`.",
  fields: (t) => ({
    deviceType: t.field({
      type: DeviceTypeEnum,
      required: false,
      defaultValue: "CLI",
      description: "The kind of client logging in; names the token it receives.",
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const RegisterDevicePayload = builder
  .objectRef<MutationEcho & RegisteredDevice>("RegisterDevicePayload")
  .implement({
    description: "The answer of `registerDevice`: what the client shows its user, and what it polls with.",
    fields: (t) => ({
      deviceCode: t.string({
        nullable: true,
        description:
          "The secret to poll `requestPatWithDeviceCode` with. Keep it to the client; never show it.",
        resolve: (p) => p.deviceCode,
      }),
      userCode: t.string({
        nullable: true,
        description: "The code to show the user, e.g. `BCDF-GHJK`; they approve it while signed in.",
        resolve: (p) => p.userCode,
      }),
      verificationUri: t.string({
        nullable: true,
        description: "The page that tells the user how to approve the code.",
        resolve: (p) => p.verificationUri,
      }),
      verificationUriComplete: t.string({
        nullable: true,
        description: "`verificationUri` with the user code filled in.",
        resolve: (p) => p.verificationUriComplete,
      }),
      expiresIn: t.int({
        nullable: true,
        description: "Seconds until both codes expire (900).",
        resolve: (p) => p.expiresIn,
      }),
      interval: t.int({
        nullable: true,
        description: "Seconds to wait between polls (5); polling faster answers SLOW_DOWN.",
        resolve: (p) => p.interval,
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });

builder.mutationField("registerDevice", (t) =>
  t.field({
    type: RegisterDevicePayload,
    nullable: true,
    description:
      "Starts a device login. Needs no token. Show `userCode` to the user (or open `verificationUriComplete`), then poll `requestPatWithDeviceCode` every `interval` seconds.",
    args: {
      input: t.arg({ type: RegisterDeviceInput, required: true, description: "The client logging in." }),
    },
    resolve: async (_root, { input }, ctx) => {
      const registered = await inTransaction(ctx, (tx) =>
        registerDevice(tx, {
          pepper: ctx.config.tokenPepper,
          publicUrl: ctx.config.publicUrl,
          deviceType: (input.deviceType ?? "CLI") as DeviceType,
        }),
      );
      return { ...echoOf(input), ...registered };
    },
  }),
);

const RequestPatWithDeviceCodeInput = builder.inputType("RequestPATWithDeviceCodeInput", {
  description: "Input of `requestPatWithDeviceCode`.",
  fields: (t) => ({
    deviceCode: t.string({ required: true, description: "The `deviceCode` `registerDevice` answered." }),
    description: t.string({
      required: false,
      description:
        'Name of the token to issue, 1 to 100 characters (e.g. "CLI on my laptop"); default "Device login (CLI)" or "(IDE)".',
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const RequestPatWithDeviceCodePayload = builder
  .objectRef<MutationEcho & { token: string; expiry: Date | null; userId: string }>(
    "RequestPATWithDeviceCodePayload",
  )
  .implement({
    description: "The answer of `requestPatWithDeviceCode` once the login is approved.",
    fields: (t) => ({
      token: t.string({
        nullable: true,
        description: "A new personal access token for the user who approved. Shown this once; keep it.",
        resolve: (p) => p.token,
      }),
      expiry: t.field({
        type: "DateTime",
        nullable: true,
        description: "When the token expires (90 days after it is issued).",
        resolve: (p) => p.expiry,
      }),
      user: t.field({
        type: UserRef,
        nullable: true,
        description:
          "The token's owner. Without a token on this request, only the user's own fields answer (`id`, names, `email`); use the new token for the rest.",
        resolve: (p, _args, ctx) => userById(ctx).load(p.userId),
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });

builder.mutationField("requestPatWithDeviceCode", (t) =>
  t.field({
    type: RequestPatWithDeviceCodePayload,
    nullable: true,
    description:
      "Polls a device login. Needs no token. Until the user approves it, answers an error with `extensions.code` AUTHORIZATION_PENDING (keep polling), SLOW_DOWN (wait `extensions.interval` seconds between polls from now on), ACCESS_DENIED or EXPIRED_TOKEN (stop). Once approved, issues a personal access token, exactly once: the device code is then spent.",
    args: {
      input: t.arg({
        type: RequestPatWithDeviceCodeInput,
        required: true,
        description: "The device code to poll with.",
      }),
    },
    resolve: async (_root, { input }, ctx) => {
      if (input.description?.trim()) validTokenName(input.description, "description");
      const poll = await inTransaction(ctx, (tx) =>
        pollDeviceLogin(tx, {
          pepper: ctx.config.tokenPepper,
          deviceCode: input.deviceCode,
          description: input.description,
        }),
      );
      // Raised after the commit, so the poll's time (and a longer interval) is kept.
      if (poll.kind !== "issued") throw pollError(poll);
      const { token, row } = poll.issued;
      return { ...echoOf(input), token, expiry: row.expires_at, userId: row.user_id };
    },
  }),
);

const DeviceDecisionInput = (name: string, verb: string) =>
  builder.inputType(name, {
    description: `Input of \`${verb}\`.`,
    fields: (t) => ({
      userCode: t.string({
        required: true,
        description:
          "The code the device shows, e.g. `BCDF-GHJK` (case, spaces and the hyphen do not matter).",
      }),
      clientMutationId: clientMutationIdInput(t),
    }),
  });

const DeviceDecisionPayload = (name: string, verb: string) =>
  okPayloadType(name, `The answer of \`${verb}\`.`, "True: the decision is recorded.");

const ApproveDeviceInput = DeviceDecisionInput("ApproveDeviceInput", "approveDevice");
const ApproveDevicePayload = DeviceDecisionPayload("ApproveDevicePayload", "approveDevice");
const DenyDeviceInput = DeviceDecisionInput("DenyDeviceInput", "denyDevice");
const DenyDevicePayload = DeviceDecisionPayload("DenyDevicePayload", "denyDevice");

builder.mutationField("approveDevice", (t) =>
  t.field({
    type: ApproveDevicePayload,
    nullable: true,
    description:
      "Approves a device login as you: the device's next poll receives a new personal access token for your account. Only approve a code you started yourself.",
    args: { input: t.arg({ type: ApproveDeviceInput, required: true, description: "The code to approve." }) },
    resolve: async (_root, { input }, ctx) => {
      await inTransaction(ctx, (tx) =>
        decideDeviceLogin(tx, {
          pepper: ctx.config.tokenPepper,
          userId: ctx.viewer.userId,
          userCode: input.userCode,
          approve: true,
        }),
      );
      return { ok: true, ...echoOf(input) };
    },
  }),
);

builder.mutationField("denyDevice", (t) =>
  t.field({
    type: DenyDevicePayload,
    nullable: true,
    description:
      "Refuses a device login (one you did not start, or approved by mistake before the device collected its token). Its next poll answers ACCESS_DENIED.",
    args: { input: t.arg({ type: DenyDeviceInput, required: true, description: "The code to refuse." }) },
    resolve: async (_root, { input }, ctx) => {
      await inTransaction(ctx, (tx) =>
        decideDeviceLogin(tx, {
          pepper: ctx.config.tokenPepper,
          userId: ctx.viewer.userId,
          userCode: input.userCode,
          approve: false,
        }),
      );
      return { ok: true, ...echoOf(input) };
    },
  }),
);
