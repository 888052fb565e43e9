import type { IgnoreRuleRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { encodeGlobalId } from "../../graphql/global-id.ts";
import {
  clientMutationIdInput,
  clientMutationIdOutput,
  echoOf,
  inTransaction,
  keyOfId,
  type MutationEcho,
  okPayloadType,
} from "../../graphql/mutations.ts";
import { noSuchId, writableRepository } from "../accounts/access.ts";
import { checkIgnoreRuleShape, pickIssue } from "./ignore-rule-input.ts";
import { IgnoreRuleLevelEnum, IgnoreRuleRef, IgnoreRuleTypeEnum } from "./ignore-rule-type.ts";
import { visibleIgnoreRuleByKey } from "./settings-loaders.ts";
import {
  deleteIgnoreRule,
  findIssuesWithShortcode,
  findSameIgnoreRule,
  findVisibleIgnoreRuleRepositoryKey,
  insertIgnoreRule,
} from "./suppression-store.ts";

/**
 * `createIgnoreRule` and `deleteIgnoreRule`: beyond the contract, in its style. Both need write
 * access to the repository (ADMIN or MEMBER of its account; docs/permissions.md). What a rule
 * matches is in suppression-rules.ts; ingestion applies the rules to runs created after them.
 */

const CreateIgnoreRuleInput = builder.inputType("CreateIgnoreRuleInput", {
  description: "What `createIgnoreRule` needs.",
  fields: (t) => ({
    repositoryId: t.id({ required: true, description: "The global id of the repository the rule is for." }),
    issueShortcode: t.string({
      required: true,
      description: "The shortcode of the issue to ignore (such as `PYL-W0611`).",
    }),
    analyzerShortcode: t.string({
      required: false,
      description:
        "The analyzer whose issue is meant; needed only when several analyzers have an issue with that shortcode.",
    }),
    level: t.field({
      type: IgnoreRuleLevelEnum,
      required: true,
      description: "REPOSITORY for the whole repository, FILE for the one file in `filePath`.",
    }),
    type: t.field({
      type: IgnoreRuleTypeEnum,
      required: true,
      description:
        "FOREVER: everywhere in the level's scope. PATTERN: in paths matching `globPattern`. TEST_PATTERN: in test files: those the `test_patterns` of the run's `.deepsource.toml` (else the repository's) match, or, when `globPattern` is given, those it matches. FILE-level rules are FOREVER.",
    }),
    filePath: t.string({
      required: false,
      description:
        "For FILE-level rules only (and required there): the file's path relative to the repository root, such as `src/app.py`.",
    }),
    globPattern: t.string({
      required: false,
      description:
        "For PATTERN rules (required there) and TEST_PATTERN rules (optional there) only: a glob matched against whole repository-relative paths. `*` and `?` stay within one segment, `**` as a whole segment spans any number of them, `[a-z]` and `{a,b}` as usual.",
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const CreateIgnoreRulePayload = builder
  .objectRef<MutationEcho & { ruleKey: string }>("CreateIgnoreRulePayload")
  .implement({
    description: "The answer of `createIgnoreRule`.",
    fields: (t) => ({
      ignoreRule: t.field({
        type: IgnoreRuleRef,
        nullable: true,
        description: "The rule, new or (when an identical rule existed) the one already there.",
        resolve: (p, _args, ctx) => visibleIgnoreRuleByKey(ctx).load(p.ruleKey),
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });

builder.mutationField("createIgnoreRule", (t) =>
  t.field({
    type: CreateIgnoreRulePayload,
    nullable: true,
    description:
      "Makes a repository stop reporting one issue, everywhere, in one file, in paths matching a glob, or in test files, from its next run on. Needs the ADMIN or MEMBER role in the repository's account. Making a rule identical to an existing one answers that rule.",
    args: { input: t.arg({ type: CreateIgnoreRuleInput, required: true, description: "The rule." }) },
    resolve: (_root, { input }, ctx) =>
      inTransaction(ctx, async (tx) => {
        const { repository, membership } = await writableRepository(
          ctx,
          tx,
          input.repositoryId,
          "repositoryId",
        );
        const shape = checkIgnoreRuleShape(input);
        const issue = pickIssue(
          await findIssuesWithShortcode(tx, input.issueShortcode, repository.account_id),
          input.issueShortcode,
          input.analyzerShortcode,
        );
        const spec = { repositoryId: repository.id, issueId: issue.id, ...shape };
        // The repository row is locked, so two identical requests cannot both find nothing.
        const rule: IgnoreRuleRow =
          (await findSameIgnoreRule(tx, spec)) ?? (await insertIgnoreRule(tx, spec, membership.user_id));
        return { ...echoOf(input), ruleKey: rule.key };
      }),
  }),
);

const DeleteIgnoreRuleInput = builder.inputType("DeleteIgnoreRuleInput", {
  description: "What `deleteIgnoreRule` needs.",
  fields: (t) => ({
    ignoreRuleId: t.id({ required: true, description: "The global id of the rule to delete." }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const DeleteIgnoreRulePayload = okPayloadType(
  "DeleteIgnoreRulePayload",
  "The answer of `deleteIgnoreRule`.",
  "True when the rule was deleted.",
);

builder.mutationField("deleteIgnoreRule", (t) =>
  t.field({
    type: DeleteIgnoreRulePayload,
    nullable: true,
    description:
      "Deletes an ignore rule; runs created afterwards report its issue again. Needs the ADMIN or MEMBER role in the repository's account. A deleted rule's id answers NOT_FOUND, like any id that does not exist.",
    args: { input: t.arg({ type: DeleteIgnoreRuleInput, required: true, description: "The rule." }) },
    resolve: (_root, { input }, ctx) =>
      inTransaction(ctx, async (tx) => {
        const ruleKey = keyOfId(input.ignoreRuleId, "IgnoreRule", "ignoreRuleId");
        const repositoryKey = await findVisibleIgnoreRuleRepositoryKey(tx, ctx.viewer.userId, ruleKey);
        if (repositoryKey === undefined) noSuchId(input.ignoreRuleId);
        const { repository } = await writableRepository(
          ctx,
          tx,
          encodeGlobalId("Repository", repositoryKey),
          "ignoreRuleId",
        );
        // Deleted meanwhile by someone else (the repository lock orders us after them): gone, as if never there.
        if (!(await deleteIgnoreRule(tx, repository.id, ruleKey))) noSuchId(input.ignoreRuleId);
        return { ...echoOf(input), ok: true };
      }),
  }),
);
