import type { Kysely } from "kysely";
import type { Database, VcsProvider } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { clientMutationIdInput, echoOf, inTransaction, okPayloadType } from "../../graphql/mutations.ts";
import { administeredAccount } from "../accounts/access.ts";
import { VcsProviderEnum } from "../accounts/account-type.ts";
import { unknownIssueShortcode } from "./ignore-rule-input.ts";
import {
  deleteTeamSuppressions,
  findIssuesWithShortcode,
  insertTeamSuppressions,
} from "./suppression-store.ts";

/**
 * The contract's `suppressIssueForTeam` and `unsuppressIssueForTeam`, in its exact shapes. An
 * account's ADMINs silence one issue (by shortcode: every issue with it that the account may name,
 * the shared catalog's and its own, whatever the analyzer) in all of the account's repositories. Existing findings keep their state; ingestion
 * applies the suppression to runs created afterwards (suppression-rules.ts). Personal accounts are
 * accepted too: their owner is their ADMIN, and silencing an issue in one's own repositories harms
 * nobody. Both are idempotent: `ok: true` whether or not anything changed.
 */

type TeamIssueInput = {
  issueShortcode: string;
  login: string;
  vcsProvider: VcsProvider;
  clientMutationId?: string | null;
};

function teamIssueInput(name: string, verb: string) {
  return builder.inputType(name, {
    description: `What \`${verb}\` needs: the issue and the account.`,
    fields: (t) => ({
      issueShortcode: t.string({
        required: true,
        description: "The issue's shortcode (such as `PYL-W0611`).",
      }),
      login: t.string({ required: true, description: "The account's login." }),
      vcsProvider: t.field({ type: VcsProviderEnum, required: true, description: "The account's provider." }),
      clientMutationId: clientMutationIdInput(t),
    }),
  });
}

function okPayload(name: string, verb: string) {
  return okPayloadType(
    name,
    `The answer of \`${verb}\`.`,
    "True when the change is in place (also when it already was).",
    { nullable: true },
  );
}

/**
 * The ids of every issue with the input's shortcode that the account may name (the shared
 * catalog's and its own), after checking the caller administers the account (locked until the
 * transaction ends). A shortcode it has none of → BAD_USER_INPUT, the same whether or not another
 * account has an issue with it.
 */
async function teamAndIssues(ctx: GraphQLContext, tx: Kysely<Database>, input: TeamIssueInput) {
  const { account } = await administeredAccount(ctx, tx, input);
  const issues = await findIssuesWithShortcode(tx, input.issueShortcode, account.id);
  if (issues.length === 0) {
    throw unknownIssueShortcode(input.issueShortcode, `the account "${account.login}"`);
  }
  return { account, issueIds: issues.map((i) => i.id) };
}

builder.mutationField("suppressIssueForTeam", (t) =>
  t.field({
    type: okPayload("SuppressIssueForTeamPayload", "suppressIssueForTeam"),
    nullable: true,
    description:
      "Silences one issue in every repository of an account, from the next run of each on; findings already reported stay. Needs the ADMIN role in the account.",
    args: {
      input: t.arg({
        type: teamIssueInput("SuppressIssueForTeamInput", "suppressIssueForTeam"),
        required: true,
        description: "The issue and the account.",
      }),
    },
    resolve: (_root, { input }, ctx) =>
      inTransaction(ctx, async (tx) => {
        const { account, issueIds } = await teamAndIssues(ctx, tx, input);
        await insertTeamSuppressions(tx, account.id, issueIds, ctx.viewer.userId);
        return { ...echoOf(input), ok: true };
      }),
  }),
);

builder.mutationField("unsuppressIssueForTeam", (t) =>
  t.field({
    type: okPayload("UnsuppressIssueForTeamPayload", "unsuppressIssueForTeam"),
    nullable: true,
    description:
      "Lifts `suppressIssueForTeam`: runs created afterwards report the issue again. Needs the ADMIN role in the account.",
    args: {
      input: t.arg({
        type: teamIssueInput("UnsuppressIssueForTeamInput", "unsuppressIssueForTeam"),
        required: true,
        description: "The issue and the account.",
      }),
    },
    resolve: (_root, { input }, ctx) =>
      inTransaction(ctx, async (tx) => {
        const { account, issueIds } = await teamAndIssues(ctx, tx, input);
        await deleteTeamSuppressions(tx, account.id, issueIds);
        return { ...echoOf(input), ok: true };
      }),
  }),
);
