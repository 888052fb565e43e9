import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { badUserInput, forbidden } from "../../graphql/errors.ts";
import {
  clientMutationIdInput,
  clientMutationIdOutput,
  echoOf,
  type MutationEcho,
  type OkPayload,
  okPayloadType,
} from "../../graphql/mutations.ts";
import type { RepositoryAccess } from "../accounts/access.ts";
import { visibleRepositoryByKey } from "../repositories/repository-loaders.ts";
import { changeRepository } from "../repositories/repository-service.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { setRepositoryVcsSecret } from "./vcs-event-service.ts";
import { deleteVcsSecret } from "./vcs-event-store.ts";
import { secretProblem } from "./vcs-secrets.ts";

/**
 * The mutations that set and remove a repository's incoming webhook secret (docs/vcs-events.md),
 * for ADMINs of the repository's account. The secret is answered once, when it is set.
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
