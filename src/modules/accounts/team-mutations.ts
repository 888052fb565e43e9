import type { Kysely } from "kysely";
import type { AccountRow, Database, MembershipRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { badUserInput } from "../../graphql/errors.ts";
import {
  clientMutationIdInput,
  clientMutationIdOutput,
  echoOf,
  inTransaction,
  type MutationEcho,
  okPayloadType,
} from "../../graphql/mutations.ts";
import { recordEvent, type WebhookEventType } from "../events/outbox.ts";
import { findUserByEmail, findUsersByIds } from "../users/user-store.ts";
import { teamMemberObject } from "./account-events.ts";
import { visibleMembershipByKey } from "./account-loaders.ts";
import { TeamMemberRef, TeamMemberRoleEnum, VcsProviderEnum } from "./account-type.ts";
import { administeredTeam, memberOfAdministeredTeam, requireAnotherAdmin } from "./team-access.ts";
import { deleteMembership, insertMembership, updateMembershipRole } from "./team-store.ts";

/**
 * Team membership: `addTeamMember`, `removeTeamMember`, `updateTeamMemberRole`. Beyond the
 * contract, in its style. Only a team's ADMINs manage its members; personal accounts have exactly
 * their owner; a team keeps at least one ADMIN (team-access.ts). Members added or removed, and
 * roles changed, are reported to the team's webhooks (`team_member.*`) in the same transaction.
 */

/** A payload that shows a membership after the change (read through the request's loaders). */
type MemberPayload = MutationEcho & { memberKey: string };

function memberPayload(name: string, verb: string, what: string) {
  return builder.objectRef<MemberPayload>(name).implement({
    description: `The answer of \`${verb}\`.`,
    fields: (t) => ({
      teamMember: t.field({
        type: TeamMemberRef,
        nullable: true,
        description: what,
        resolve: (p, _args, ctx) => visibleMembershipByKey(ctx).load(p.memberKey),
      }),
      clientMutationId: clientMutationIdOutput(t),
    }),
  });
}

/** Records a `team_member.*` event about `member` of `team`, with `extra` keys in `data`. */
async function recordMemberEvent(
  tx: Kysely<Database>,
  type: WebhookEventType,
  team: AccountRow,
  member: MembershipRow,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const [user] = await findUsersByIds(tx, [member.user_id]);
  await recordEvent(tx, {
    accountId: team.id,
    type,
    data: { object: teamMemberObject(member, team, user!), ...extra },
  });
}

const AddTeamMemberInput = builder.inputType("AddTeamMemberInput", {
  description: "What `addTeamMember` needs: the team, who to add and with which role.",
  fields: (t) => ({
    login: t.string({ required: true, description: "The team's login." }),
    vcsProvider: t.field({ type: VcsProviderEnum, required: true, description: "The team's provider." }),
    email: t.string({
      required: true,
      description: "The e-mail address of the user to add (any case); they must already have a user here.",
    }),
    role: t.field({ type: TeamMemberRoleEnum, required: true, description: "Their role in the team." }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

builder.mutationField("addTeamMember", (t) =>
  t.field({
    type: memberPayload("AddTeamMemberPayload", "addTeamMember", "The new membership."),
    nullable: true,
    description:
      "Adds an existing user, found by e-mail address, to a team with a role. Needs the ADMIN role in the team; personal accounts cannot have other members.",
    args: {
      input: t.arg({ type: AddTeamMemberInput, required: true, description: "The team and the new member." }),
    },
    resolve: (_root, { input }, ctx) =>
      inTransaction(ctx, async (tx) => {
        const team = await administeredTeam(ctx, tx, input);
        const user = await findUserByEmail(tx, input.email);
        if (!user) throw badUserInput(`No user has the e-mail address "${input.email}".`, "email");
        const member = await insertMembership(tx, team.id, user.id, input.role);
        if (!member) throw badUserInput(`"${input.email}" is a member of this team already.`, "email");
        await recordMemberEvent(tx, "team_member.added", team, member);
        return { ...echoOf(input), memberKey: member.key };
      }),
  }),
);

const RemoveTeamMemberInput = builder.inputType("RemoveTeamMemberInput", {
  description: "What `removeTeamMember` needs.",
  fields: (t) => ({
    teamMemberId: t.id({
      required: true,
      description: "The global id of the membership (`TeamMember.id`) to end.",
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const RemoveTeamMemberPayload = okPayloadType(
  "RemoveTeamMemberPayload",
  "The answer of `removeTeamMember`.",
  "True when the member was removed.",
);

builder.mutationField("removeTeamMember", (t) =>
  t.field({
    type: RemoveTeamMemberPayload,
    nullable: true,
    description:
      "Removes a member from a team (an ADMIN may remove themselves). Needs the ADMIN role in the team; the team's last ADMIN cannot be removed.",
    args: { input: t.arg({ type: RemoveTeamMemberInput, required: true, description: "The membership." }) },
    resolve: (_root, { input }, ctx) =>
      inTransaction(ctx, async (tx) => {
        const { account, member } = await memberOfAdministeredTeam(
          ctx,
          tx,
          input.teamMemberId,
          "teamMemberId",
        );
        await requireAnotherAdmin(tx, account, member, "teamMemberId");
        await recordMemberEvent(tx, "team_member.removed", account, member);
        await deleteMembership(tx, member.id);
        return { ...echoOf(input), ok: true };
      }),
  }),
);

const UpdateTeamMemberRoleInput = builder.inputType("UpdateTeamMemberRoleInput", {
  description: "What `updateTeamMemberRole` needs.",
  fields: (t) => ({
    teamMemberId: t.id({ required: true, description: "The global id of the membership (`TeamMember.id`)." }),
    role: t.field({ type: TeamMemberRoleEnum, required: true, description: "The member's new role." }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

builder.mutationField("updateTeamMemberRole", (t) =>
  t.field({
    type: memberPayload(
      "UpdateTeamMemberRolePayload",
      "updateTeamMemberRole",
      "The membership with its new role.",
    ),
    nullable: true,
    description:
      "Changes a team member's role. Needs the ADMIN role in the team; the team's last ADMIN keeps that role. Giving a member the role they have changes nothing.",
    args: {
      input: t.arg({
        type: UpdateTeamMemberRoleInput,
        required: true,
        description: "The membership and role.",
      }),
    },
    resolve: (_root, { input }, ctx) =>
      inTransaction(ctx, async (tx) => {
        const { account, member } = await memberOfAdministeredTeam(
          ctx,
          tx,
          input.teamMemberId,
          "teamMemberId",
        );
        if (member.role !== input.role) {
          if (input.role !== "ADMIN") await requireAnotherAdmin(tx, account, member, "role");
          const updated = await updateMembershipRole(tx, member.id, input.role);
          await recordMemberEvent(tx, "team_member.updated", account, updated, {
            oldRole: member.role,
            newRole: updated.role,
          });
        }
        return { ...echoOf(input), memberKey: member.key };
      }),
  }),
);
