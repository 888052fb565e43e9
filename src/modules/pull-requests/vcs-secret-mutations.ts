import type { VcsProvider } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { badUserInput, forbidden } from "../../graphql/errors.ts";
import {
  clientMutationIdInput,
  clientMutationIdOutput,
  echoOf,
  inTransaction,
  type MutationEcho,
  type OkPayload,
  okPayloadType,
} from "../../graphql/mutations.ts";
import { administeredAccount, type RepositoryAccess } from "../accounts/access.ts";
import { visibleAccountByKey } from "../accounts/account-loaders.ts";
import { AccountRef, VcsProviderEnum } from "../accounts/account-type.ts";
import { visibleRepositoryByKey } from "../repositories/repository-loaders.ts";
import { changeRepository } from "../repositories/repository-service.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { setAccountVcsSecret, setRepositoryVcsSecret } from "./vcs-secret-service.ts";
import { deleteAccountVcsSecret, deleteVcsSecret } from "./vcs-secret-store.ts";
import { secretProblem } from "./vcs-secrets.ts";

/**
 * The mutations that set and remove a repository's or an account's incoming webhook secret
 * (docs/vcs-events.md), for ADMINs of the account. The secret is answered once, when it is set.
 */

const ADMIN_ONLY = "Only ADMINs of the repository's account may manage its VCS webhook secret.";

function requireRepositoryAdmin(access: RepositoryAccess): void {
  if (access.membership.role !== "ADMIN") throw forbidden(ADMIN_ONLY);
}

interface SecretPayload extends MutationEcho {
  repositoryKey: string;
  secret: string;
}

async function setSecret(
  ctx: GraphQLContext,
  input: { repositoryId: string | number; secret?: string | null; clientMutationId?: string | null },
): Promise<SecretPayload> {
  const chosen = input.secret ?? null;
  const problem = chosen === null ? undefined : secretProblem(chosen);
  if (problem) throw badUserInput(`secret ${problem}.`, "secret");
  const result = await changeRepository(ctx, input.repositoryId, "repositoryId", async (tx, access) => {
    requireRepositoryAdmin(access);
    const secret = await setRepositoryVcsSecret(tx, access.repository, ctx.config.tokenPepper, chosen);
    return { repositoryKey: access.repository.key, secret };
  });
  return { ...result, ...echoOf(input) };
}

async function removeSecret(
  ctx: GraphQLContext,
  input: { repositoryId: string | number; clientMutationId?: string | null },
): Promise<OkPayload> {
  const removed = await changeRepository(ctx, input.repositoryId, "repositoryId", async (tx, access) => {
    requireRepositoryAdmin(access);
    return deleteVcsSecret(tx, access.repository.id);
  });
  return { ok: removed, ...echoOf(input) };
}

const SetRepositoryVcsWebhookSecretInput = builder.inputType("SetRepositoryVcsWebhookSecretInput", {
  description: "The repository whose VCS webhook secret is set, and optionally the secret.",
  fields: (t) => ({
    repositoryId: t.id({ required: true, description: "The global id of the repository." }),
    secret: t.string({
      required: false,
      description:
        "The secret to use: 16 to 256 printable ASCII characters without spaces. Omitted: a new random secret is generated.",
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const SetRepositoryVcsWebhookSecretPayload = builder
  .objectRef<SecretPayload>("SetRepositoryVcsWebhookSecretPayload")
  .implement({
    description: "The answer of `setRepositoryVcsWebhookSecret`.",
    fields: (t) => ({
      repository: t.field({
        type: RepositoryRef,
        nullable: true,
        description: "The repository, as it is now.",
        resolve: (p, _args, ctx) => visibleRepositoryByKey(ctx).load(p.repositoryKey),
      }),
      secret: t.string({
        description:
          "The secret, shown only in this answer: enter it in the provider's webhook settings (GitHub's Secret, GitLab's Secret token).",
        resolve: (p) => p.secret,
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });

builder.mutationField("setRepositoryVcsWebhookSecret", (t) =>
  t.field({
    type: SetRepositoryVcsWebhookSecretPayload,
    nullable: true,
    description:
      "Sets the secret that authenticates the repository's incoming GitHub or GitLab webhook deliveries (`/webhooks/github`, `/webhooks/gitlab`; docs/vcs-events.md), replacing any earlier one at once, and answers it once. Needs the ADMIN role in the repository's account.",
    args: {
      input: t.arg({
        type: SetRepositoryVcsWebhookSecretInput,
        required: true,
        description: "The repository and optionally its secret.",
      }),
    },
    resolve: (_root, { input }, ctx) => setSecret(ctx, input),
  }),
);

const RemoveRepositoryVcsWebhookSecretInput = builder.inputType("RemoveRepositoryVcsWebhookSecretInput", {
  description: "The repository whose VCS webhook secret is removed.",
  fields: (t) => ({
    repositoryId: t.id({ required: true, description: "The global id of the repository." }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const RemoveRepositoryVcsWebhookSecretPayload = okPayloadType(
  "RemoveRepositoryVcsWebhookSecretPayload",
  "The answer of `removeRepositoryVcsWebhookSecret`.",
  "True when the repository had a secret and it was removed; false when it had none.",
);

builder.mutationField("removeRepositoryVcsWebhookSecret", (t) =>
  t.field({
    type: RemoveRepositoryVcsWebhookSecretPayload,
    nullable: true,
    description:
      "Removes the repository's VCS webhook secret: its webhook deliveries are refused from then on. Needs the ADMIN role in the repository's account.",
    args: {
      input: t.arg({
        type: RemoveRepositoryVcsWebhookSecretInput,
        required: true,
        description: "The repository.",
      }),
    },
    resolve: (_root, { input }, ctx) => removeSecret(ctx, input),
  }),
);

const ACCOUNT_ADMIN_ONLY = "Only ADMINs of the account may manage its VCS webhook secret.";

interface AccountSecretPayload extends MutationEcho {
  accountKey: string;
  secret: string;
}

interface AccountSecretInput {
  login: string;
  vcsProvider: VcsProvider;
  clientMutationId?: string | null;
}

async function setAccountSecret(
  ctx: GraphQLContext,
  input: AccountSecretInput & { secret?: string | null },
): Promise<AccountSecretPayload> {
  const chosen = input.secret ?? null;
  const problem = chosen === null ? undefined : secretProblem(chosen);
  if (problem) throw badUserInput(`secret ${problem}.`, "secret");
  const result = await inTransaction(ctx, async (tx) => {
    const { account } = await administeredAccount(ctx, tx, input, ACCOUNT_ADMIN_ONLY);
    const secret = await setAccountVcsSecret(tx, account, ctx.config.tokenPepper, chosen);
    return { accountKey: account.key, secret };
  });
  return { ...result, ...echoOf(input) };
}

async function removeAccountSecret(ctx: GraphQLContext, input: AccountSecretInput): Promise<OkPayload> {
  const removed = await inTransaction(ctx, async (tx) => {
    const { account } = await administeredAccount(ctx, tx, input, ACCOUNT_ADMIN_ONLY);
    return deleteAccountVcsSecret(tx, account.id);
  });
  return { ok: removed, ...echoOf(input) };
}

const SetAccountVcsWebhookSecretInput = builder.inputType("SetAccountVcsWebhookSecretInput", {
  description: "The account whose VCS webhook secret is set, and optionally the secret.",
  fields: (t) => ({
    login: t.string({ required: true, description: "The account's login." }),
    vcsProvider: t.field({ type: VcsProviderEnum, required: true, description: "The account's provider." }),
    secret: t.string({
      required: false,
      description:
        "The secret to use: 16 to 256 printable ASCII characters without spaces. Omitted: a new random secret is generated.",
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const SetAccountVcsWebhookSecretPayload = builder
  .objectRef<AccountSecretPayload>("SetAccountVcsWebhookSecretPayload")
  .implement({
    description: "The answer of `setAccountVcsWebhookSecret`.",
    fields: (t) => ({
      account: t.field({
        type: AccountRef,
        nullable: true,
        description: "The account, as it is now.",
        resolve: (p, _args, ctx) => visibleAccountByKey(ctx).load(p.accountKey),
      }),
      secret: t.string({
        description:
          "The secret, shown only in this answer: enter it as the webhook secret of the GitHub App, GitLab group or Bitbucket webhooks that cover the account's repositories.",
        resolve: (p) => p.secret,
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });

builder.mutationField("setAccountVcsWebhookSecret", (t) =>
  t.field({
    type: SetAccountVcsWebhookSecretPayload,
    nullable: true,
    description:
      "Sets the account-wide secret that authenticates incoming VCS webhook deliveries for every repository of the account that has no secret of its own (one GitHub App secret for all the repositories of an installation; docs/vcs-events.md), replacing any earlier one at once, and answers it once. Needs the ADMIN role in the account.",
    args: {
      input: t.arg({
        type: SetAccountVcsWebhookSecretInput,
        required: true,
        description: "The account and optionally its secret.",
      }),
    },
    resolve: (_root, { input }, ctx) => setAccountSecret(ctx, input),
  }),
);

const RemoveAccountVcsWebhookSecretInput = builder.inputType("RemoveAccountVcsWebhookSecretInput", {
  description: "The account whose VCS webhook secret is removed.",
  fields: (t) => ({
    login: t.string({ required: true, description: "The account's login." }),
    vcsProvider: t.field({ type: VcsProviderEnum, required: true, description: "The account's provider." }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const RemoveAccountVcsWebhookSecretPayload = okPayloadType(
  "RemoveAccountVcsWebhookSecretPayload",
  "The answer of `removeAccountVcsWebhookSecret`.",
  "True when the account had a secret and it was removed; false when it had none.",
);

builder.mutationField("removeAccountVcsWebhookSecret", (t) =>
  t.field({
    type: RemoveAccountVcsWebhookSecretPayload,
    nullable: true,
    description:
      "Removes the account's VCS webhook secret: deliveries for its repositories without a secret of their own are refused from then on. Needs the ADMIN role in the account.",
    args: {
      input: t.arg({
        type: RemoveAccountVcsWebhookSecretInput,
        required: true,
        description: "The account.",
      }),
    },
    resolve: (_root, { input }, ctx) => removeAccountSecret(ctx, input),
  }),
);
