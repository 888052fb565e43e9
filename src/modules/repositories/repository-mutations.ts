import type { RepositoryRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { badUserInput } from "../../graphql/errors.ts";
import {
  clientMutationIdInput,
  clientMutationIdOutput,
  echoOf,
  type MutationEcho,
  type OkPayload,
  okPayloadType,
} from "../../graphql/mutations.ts";
import { noSuchId, writableRepository } from "../accounts/access.ts";
import { findAccountsByIds } from "../accounts/account-store.ts";
import { recordEvent } from "../events/outbox.ts";
import { findLatestDefaultBranchRuns } from "../runs/run-store.ts";
import { branchNameProblem } from "./branch-name.ts";
import { repositoryDsn } from "./dsn.ts";
import { repositoryObject } from "./repository-events.ts";
import { visibleRepositoryByKey } from "./repository-loaders.ts";
import { changeRepository } from "./repository-service.ts";
import {
  incrementDsnGeneration,
  updateRepositoryActivation,
  updateRepositoryDefaultBranch,
} from "./repository-store.ts";
import { RepositoryRef } from "./repository-type.ts";

/**
 * The contract's repository mutations: activation, default branch and DSN (docs/workflows.md;
 * the quality-gate settings are in settings/settings-mutations.ts). Each one authorises with
 * {@link writableRepository} (ADMIN or MEMBER of the repository's account) inside its transaction.
 */

/** `XInput { repositoryId: ID!, clientMutationId }` for the mutations that need only the repository. */
function repositoryOnlyInput(name: string, description: string) {
  return builder.inputType(name, {
    description,
    fields: (t) => ({
      repositoryId: t.id({ required: true, description: "The global id of the repository." }),
      clientMutationId: clientMutationIdInput(t),
    }),
  });
}

/**
 * Switches analysis on or off. Only a real change is written and announced (webhook event
 * `repository.analysis.activated` or `.deactivated`, with the repository as it now is); asking
 * for the state the repository is already in succeeds and changes nothing.
 */
async function setActivation(
  ctx: GraphQLContext,
  input: { repositoryId: string | number; clientMutationId?: string | null },
  isActivated: boolean,
): Promise<OkPayload> {
  await changeRepository(ctx, input.repositoryId, "repositoryId", async (tx, { repository }) => {
    if (repository.is_activated === isActivated) return;
    const updated = await updateRepositoryActivation(tx, repository.id, isActivated);
    const [account] = await findAccountsByIds(tx, [updated.account_id]);
    const [latest] = await findLatestDefaultBranchRuns(tx, [updated.id]);
    await recordEvent(tx, {
      accountId: updated.account_id,
      type: isActivated ? "repository.analysis.activated" : "repository.analysis.deactivated",
      data: { object: repositoryObject(updated, account!, latest?.commit_oid ?? null) },
    });
  });
  return { ok: true, ...echoOf(input) };
}

const ActivateRepositoryInput = repositoryOnlyInput(
  "ActivateRepositoryInput",
  "Which repository to switch analysis on for.",
);
const ActivateRepositoryPayload = okPayloadType(
  "ActivateRepositoryPayload",
  "The answer of `activateRepository`.",
  "True when analysis is on (including when it already was).",
);

builder.mutationField("activateRepository", (t) =>
  t.field({
    type: ActivateRepositoryPayload,
    nullable: true,
    description:
      "Switches analysis on for a repository and sends the webhook event `repository.analysis.activated`. Needs the ADMIN or MEMBER role in the repository's account. Activating an active repository succeeds without a second event.",
    args: { input: t.arg({ type: ActivateRepositoryInput, required: true, description: "The repository." }) },
    resolve: (_root, { input }, ctx) => setActivation(ctx, input, true),
  }),
);

const DeactivateRepositoryInput = repositoryOnlyInput(
  "DeactivateRepositoryInput",
  "Which repository to switch analysis off for.",
);
const DeactivateRepositoryPayload = okPayloadType(
  "DeactivateRepositoryPayload",
  "The answer of `deactivateRepository`.",
  "True when analysis is off (including when it already was).",
);

builder.mutationField("deactivateRepository", (t) =>
  t.field({
    type: DeactivateRepositoryPayload,
    nullable: true,
    description:
      "Switches analysis off for a repository and sends the webhook event `repository.analysis.deactivated`. Its results stay readable. Needs the ADMIN or MEMBER role in the repository's account; deactivating an inactive repository succeeds without a second event.",
    args: {
      input: t.arg({ type: DeactivateRepositoryInput, required: true, description: "The repository." }),
    },
    resolve: (_root, { input }, ctx) => setActivation(ctx, input, false),
  }),
);

/** What `updateRepositoryDefaultBranch` answers: the repository resolves after the commit. */
interface DefaultBranchPayload extends OkPayload {
  repositoryId: string | number;
  repositoryKey: string;
}

/**
 * Makes `defaultBranchName` the repository's default branch. The repository's current state
 * (its issues, occurrences and vulnerabilities) is read from the default branch's runs, so it
 * follows the new branch at once, and so do its metrics: their values are marked anew by the
 * branch they were measured on. Nothing is analysed: Assay runs no
 * analyzers, CI uploads results, so there is no "fresh analysis" to start.
 */
async function changeDefaultBranch(
  ctx: GraphQLContext,
  input: { id: string | number; defaultBranchName: string; clientMutationId?: string | null },
): Promise<DefaultBranchPayload> {
  const repository = await changeRepository(ctx, input.id, "id", async (tx, { repository }) => {
    const problem = branchNameProblem(input.defaultBranchName);
    if (problem) {
      throw badUserInput(`defaultBranchName is not a valid branch name: ${problem}.`, "defaultBranchName");
    }
    if (repository.default_branch === input.defaultBranchName) return repository;
    return updateRepositoryDefaultBranch(tx, repository.id, input.defaultBranchName);
  });
  return { ok: true, repositoryId: input.id, repositoryKey: repository.key, ...echoOf(input) };
}

const UpdateRepositoryDefaultBranchInput = builder.inputType("UpdateRepositoryDefaultBranchInput", {
  description: "Which repository gets which default branch.",
  fields: (t) => ({
    id: t.id({ required: true, description: "The global id of the repository (named `id` in this input)." }),
    defaultBranchName: t.string({
      required: true,
      description:
        'The new default branch: a git branch name (no spaces, control characters, "..", leading "-", trailing "/" or ".lock"; at most 255 characters).',
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const UpdateRepositoryDefaultBranchPayload = builder
  .objectRef<DefaultBranchPayload>("UpdateRepositoryDefaultBranchPayload")
  .implement({
    description: "The answer of `updateRepositoryDefaultBranch`.",
    fields: (t) => ({
      ok: t.boolean({ description: "True when the branch is now the default.", resolve: (p) => p.ok }),
      repository: t.field({
        type: RepositoryRef,
        description: "The repository, as it is after the change.",
        resolve: async (p, _args, ctx) =>
          (await visibleRepositoryByKey(ctx).load(p.repositoryKey)) ?? noSuchId(p.repositoryId),
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });

builder.mutationField("updateRepositoryDefaultBranch", (t) =>
  t.field({
    type: UpdateRepositoryDefaultBranchPayload,
    nullable: true,
    description:
      "Changes the branch a repository treats as its default. Its issues, occurrences and vulnerabilities are read at once from the runs of the new branch, and its metrics' latest values and history from the values measured on it. No analysis is started: Assay runs no analyzers, CI reports the next run. Needs the ADMIN or MEMBER role in the repository's account.",
    args: {
      input: t.arg({
        type: UpdateRepositoryDefaultBranchInput,
        required: true,
        description: "The repository and its new default branch.",
      }),
    },
    resolve: (_root, { input }, ctx) => changeDefaultBranch(ctx, input),
  }),
);

/** What `regenerateRepositoryDSN` answers. */
interface DsnPayload extends MutationEcho {
  dsn: string;
}

/** Moves the repository to a new DSN; the previous one stops authenticating uploads at once. */
async function regenerateDsn(
  ctx: GraphQLContext,
  input: { repositoryId: string | number; clientMutationId?: string | null },
): Promise<DsnPayload> {
  const repository: RepositoryRow = await changeRepository(
    ctx,
    input.repositoryId,
    "repositoryId",
    (tx, { repository }) => incrementDsnGeneration(tx, repository.id),
  );
  return { dsn: repositoryDsn(repository, ctx.config.tokenPepper, ctx.config.publicUrl), ...echoOf(input) };
}

const RegenerateRepositoryDSNInput = repositoryOnlyInput(
  "RegenerateRepositoryDSNInput",
  "Which repository gets a new DSN.",
);

const RegenerateRepositoryDSNPayload = builder
  .objectRef<DsnPayload>("RegenerateRepositoryDSNPayload")
  .implement({
    description: "The answer of `regenerateRepositoryDSN`.",
    fields: (t) => ({
      dsn: t.string({
        description: "The repository's new DSN, for CI to upload with.",
        resolve: (p) => p.dsn,
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });

builder.mutationField("regenerateRepositoryDSN", (t) =>
  t.field({
    type: RegenerateRepositoryDSNPayload,
    nullable: true,
    description:
      "Gives a repository a new DSN and answers it; the previous DSN stops working at once. Needs the ADMIN or MEMBER role in the repository's account.",
    args: {
      input: t.arg({ type: RegenerateRepositoryDSNInput, required: true, description: "The repository." }),
    },
    resolve: (_root, { input }, ctx) => regenerateDsn(ctx, input),
  }),
);
