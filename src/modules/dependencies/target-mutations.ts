import type { RepositoryTargetRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import {
  clientMutationIdInput,
  clientMutationIdOutput,
  echoOf,
  type MutationEcho,
} from "../../graphql/mutations.ts";
import { noSuchId } from "../accounts/access.ts";
import { visibleTargetByKey } from "./dependencies-loaders.ts";
import { RepositoryTargetRef } from "./dependencies-type.ts";
import { setTargetActivation } from "./target-service.ts";

/**
 * `activateRepositoryTarget` and `deactivateRepositoryTarget`: Assay's additions that switch a
 * dependency target's scan on or off (docs/read-model.md "Current dependency scans"), in the
 * style of the contract's `activateRepository` / `deactivateRepository`.
 */

/** What both mutations answer: the target resolves after the commit. */
interface TargetActivationPayload extends MutationEcho {
  ok: boolean;
  targetId: string | number;
  targetKey: string;
}

async function changeActivation(
  ctx: GraphQLContext,
  input: { targetId: string | number; clientMutationId?: string | null },
  isActivated: boolean,
): Promise<TargetActivationPayload> {
  const target: RepositoryTargetRow = await setTargetActivation(ctx, input.targetId, isActivated);
  return { ok: true, targetId: input.targetId, targetKey: target.key, ...echoOf(input) };
}

function targetInput(name: string, description: string) {
  return builder.inputType(name, {
    description,
    fields: (t) => ({
      targetId: t.id({ required: true, description: "The global id of the repository target." }),
      clientMutationId: clientMutationIdInput(t),
    }),
  });
}

function targetPayload(name: string, description: string, okDescription: string) {
  return builder.objectRef<TargetActivationPayload>(name).implement({
    description,
    fields: (t) => ({
      ok: t.boolean({ description: okDescription, resolve: (p) => p.ok }),
      target: t.field({
        type: RepositoryTargetRef,
        description: "The target, as it is after the change.",
        resolve: async (p, _args, ctx) =>
          (await visibleTargetByKey(ctx).load(p.targetKey)) ?? noSuchId(p.targetId),
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });
}

const ActivateRepositoryTargetInput = targetInput(
  "ActivateRepositoryTargetInput",
  "Which dependency target to count again.",
);
const ActivateRepositoryTargetPayload = targetPayload(
  "ActivateRepositoryTargetPayload",
  "The answer of `activateRepositoryTarget`.",
  "True when the target is activated (including when it already was).",
);

builder.mutationField("activateRepositoryTarget", (t) =>
  t.field({
    type: ActivateRepositoryTargetPayload,
    nullable: true,
    description:
      "Switches a dependency target's scan back on: its newest scan on the default branch counts again in the repository's vulnerabilities at once, and in the DDP of runs processed from now on. Needs the ADMIN or MEMBER role in the repository's account. Activating an activated target succeeds and changes nothing.",
    args: {
      input: t.arg({ type: ActivateRepositoryTargetInput, required: true, description: "The target." }),
    },
    resolve: (_root, { input }, ctx) => changeActivation(ctx, input, true),
  }),
);

const DeactivateRepositoryTargetInput = targetInput(
  "DeactivateRepositoryTargetInput",
  "Which dependency target to stop counting.",
);
const DeactivateRepositoryTargetPayload = targetPayload(
  "DeactivateRepositoryTargetPayload",
  "The answer of `deactivateRepositoryTarget`.",
  "True when the target is deactivated (including when it already was).",
);

builder.mutationField("deactivateRepositoryTarget", (t) =>
  t.field({
    type: DeactivateRepositoryTargetPayload,
    nullable: true,
    description:
      "Switches a dependency target's scan off, for a lockfile gone from the project or one not worth scanning: its scans stop counting at once in the repository's vulnerabilities, and in the DDP of runs processed from now on (values already recorded stay). Its scans are kept, and SBOMs of it are still accepted and stored, with a warning. Needs the ADMIN or MEMBER role in the repository's account. Deactivating a deactivated target succeeds and changes nothing.",
    args: {
      input: t.arg({ type: DeactivateRepositoryTargetInput, required: true, description: "The target." }),
    },
    resolve: (_root, { input }, ctx) => changeActivation(ctx, input, false),
  }),
);
