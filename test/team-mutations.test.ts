import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow, IssueRow, TeamMemberRole, UserRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { teamMemberObject } from "../src/modules/accounts/account-events.ts";
import { isFindingSuppressed, loadSuppressionRules } from "../src/modules/settings/suppression-rules.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import { dataOf, type GraphQLResponse, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/** A team of its own for one test: an ADMIN, a MEMBER and a CONTRIBUTOR, each with a token. */
interface Team {
  account: AccountRow;
  users: Record<"admin" | "member" | "contributor", UserRow>;
  tokens: Record<"admin" | "member" | "contributor", string>;
}

const memberId = (membershipKey: string) => encodeGlobalId("TeamMember", membershipKey);

describe("team workflows", () => {
  let server: TestServer;
  /** The ADMIN of another team, who sees nothing of the teams made by `aTeam`. */
  let outsiderToken: string;
  let issue: IssueRow;
  let sharedShortcode: IssueRow[];

  before(async () => {
    server = await startTestServer();
    const { db } = server;
    const outsider = await aUser(db);
    await anAccount(db, {}, [{ user: outsider, role: "ADMIN" }]);
    outsiderToken = await aToken(db, server.config.tokenPepper, outsider);
    const python = await anAnalyzer(db);
    const javascript = await anAnalyzer(db);
    issue = await anIssue(db, python);
    const shortcode = `SHARED-${newRowKey()}`;
    sharedShortcode = [
      await anIssue(db, python, { shortcode }),
      await anIssue(db, javascript, { shortcode }),
    ];
  });
  after(() => server.stop());

  async function aTeam(): Promise<Team> {
    const { db } = server;
    const users = { admin: await aUser(db), member: await aUser(db), contributor: await aUser(db) };
    const account = await anAccount(db, {}, [
      { user: users.admin, role: "ADMIN", isOwner: true },
      { user: users.member, role: "MEMBER" },
      { user: users.contributor, role: "CONTRIBUTOR" },
    ]);
    const pepper = server.config.tokenPepper;
    const tokens = {
      admin: await aToken(db, pepper, users.admin),
      member: await aToken(db, pepper, users.member),
      contributor: await aToken(db, pepper, users.contributor),
    };
    return { account, users, tokens };
  }

  /** Runs mutation `name` with `input` as `token`, selecting `selection`. */
  function mutate(
    token: string,
    name: string,
    input: Record<string, unknown>,
    selection = "clientMutationId",
  ): Promise<GraphQLResponse> {
    const inputType = `${name[0]!.toUpperCase()}${name.slice(1)}Input`;
    return gql(
      server.endpoint,
      token,
      `mutation($input: ${inputType}!) { ${name}(input: $input) { ${selection} } }`,
      {
        input,
      },
    );
  }

  /** The payload of a successful mutation, failing the test on any error. */
  function payloadOf<T = Record<string, unknown>>(res: GraphQLResponse, name: string): T {
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return dataOf(res)[name] as T;
  }

  /** Asserts `res` is exactly one error with `code` (and `field`), and a null mutation field. */
  function assertRefused(res: GraphQLResponse, name: string, code: string, field?: string): string {
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { [name]: null });
    assert.equal(res.body.errors?.length, 1, JSON.stringify(res.body.errors));
    const [error] = res.body.errors!;
    assert.equal(error!.extensions?.code, code, error!.message);
    assert.equal(error!.extensions?.field, field, error!.message);
    return error!.message;
  }

  /** Everything the team mutations could change in `account`, to prove a refusal changed nothing. */
  async function stateOf(account: AccountRow) {
    const { db } = server;
    return {
      memberships: await db
        .selectFrom("memberships")
        .selectAll()
        .where("account_id", "=", account.id)
        .orderBy("key")
        .execute(),
      suppressions: await db
        .selectFrom("team_suppressed_issues")
        .selectAll()
        .where("account_id", "=", account.id)
        .orderBy("key")
        .execute(),
      events: await eventsOf(account),
    };
  }

  /** The webhook events recorded for `account`, oldest first. */
  function eventsOf(account: AccountRow) {
    return server.db
      .selectFrom("webhook_events")
      .select(["type", "data"])
      .where("account_id", "=", account.id)
      .orderBy("id")
      .execute();
  }

  /** What a `team_member.*` event about `userId` in `account` must carry, from the rows as they are. */
  async function memberObjectOf(account: AccountRow, userId: string) {
    const membership = await server.db
      .selectFrom("memberships")
      .selectAll()
      .where("account_id", "=", account.id)
      .where("user_id", "=", userId)
      .executeTakeFirstOrThrow();
    const user = await server.db
      .selectFrom("users")
      .selectAll()
      .where("id", "=", userId)
      .executeTakeFirstOrThrow();
    return teamMemberObject(membership, account, user);
  }

  async function membershipKeyOf(account: AccountRow, user: UserRow): Promise<string> {
    const row = await server.db
      .selectFrom("memberships")
      .select("key")
      .where("account_id", "=", account.id)
      .where("user_id", "=", user.id)
      .executeTakeFirstOrThrow();
    return row.key;
  }

  async function rolesOf(account: AccountRow): Promise<Record<string, TeamMemberRole>> {
    const rows = await server.db
      .selectFrom("memberships")
      .select(["user_id", "role"])
      .where("account_id", "=", account.id)
      .execute();
    return Object.fromEntries(rows.map((r) => [r.user_id, r.role]));
  }

  describe("suppressIssueForTeam and unsuppressIssueForTeam", () => {
    const where = (account: AccountRow) => ({ login: account.login, vcsProvider: account.vcs_provider });

    async function suppressedShortcodes(team: Team) {
      const res = await gql<{ account: { suppressedIssues: { edges: Array<{ node: unknown }> } } }>(
        server.endpoint,
        team.tokens.member,
        `query($login: String!) { account(login: $login, vcsProvider: GITHUB) {
          suppressedIssues { edges { node { issue { shortcode analyzer { shortcode } } user { email } } } } } }`,
        { login: team.account.login },
      );
      assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
      return res.body.data!.account.suppressedIssues.edges.map((e) => e.node);
    }

    test("an ADMIN suppresses an issue for the team; it is listed with who did it, and clientMutationId comes back", async () => {
      const team = await aTeam();
      const payload = payloadOf(
        await mutate(
          team.tokens.admin,
          "suppressIssueForTeam",
          { issueShortcode: issue.shortcode, ...where(team.account), clientMutationId: "s-1" },
          "ok clientMutationId",
        ),
        "suppressIssueForTeam",
      );
      assert.deepEqual(payload, { ok: true, clientMutationId: "s-1" });
      const [listed, ...rest] = (await suppressedShortcodes(team)) as Array<{
        issue: { shortcode: string };
        user: { email: string };
      }>;
      assert.equal(rest.length, 0);
      assert.equal(listed!.issue.shortcode, issue.shortcode);
      assert.equal(listed!.user.email, team.users.admin.email);
    });

    test("suppressing twice keeps one suppression, and the login is found in any case", async () => {
      const team = await aTeam();
      for (const login of [team.account.login, team.account.login.toUpperCase()]) {
        const res = await mutate(
          team.tokens.admin,
          "suppressIssueForTeam",
          {
            issueShortcode: issue.shortcode,
            login,
            vcsProvider: "GITHUB",
          },
          "ok clientMutationId",
        );
        assert.deepEqual(payloadOf(res, "suppressIssueForTeam"), { ok: true, clientMutationId: null });
      }
      assert.equal((await stateOf(team.account)).suppressions.length, 1);
    });

    test("a shortcode several analyzers share suppresses the issue of each", async () => {
      const team = await aTeam();
      payloadOf(
        await mutate(team.tokens.admin, "suppressIssueForTeam", {
          issueShortcode: sharedShortcode[0]!.shortcode,
          ...where(team.account),
        }),
        "suppressIssueForTeam",
      );
      const rows = (await stateOf(team.account)).suppressions;
      assert.deepEqual(rows.map((r) => r.issue_id).sort(), sharedShortcode.map((i) => i.id).sort());
      payloadOf(
        await mutate(team.tokens.admin, "unsuppressIssueForTeam", {
          issueShortcode: sharedShortcode[0]!.shortcode,
          ...where(team.account),
        }),
        "unsuppressIssueForTeam",
      );
      assert.deepEqual((await stateOf(team.account)).suppressions, []);
    });

    test("unsuppressing lifts the suppression; unsuppressing again still answers ok", async () => {
      const team = await aTeam();
      const input = { issueShortcode: issue.shortcode, ...where(team.account) };
      payloadOf(await mutate(team.tokens.admin, "suppressIssueForTeam", input), "suppressIssueForTeam");
      for (const clientMutationId of ["u-1", "u-2"]) {
        const res = await mutate(
          team.tokens.admin,
          "unsuppressIssueForTeam",
          { ...input, clientMutationId },
          "ok clientMutationId",
        );
        assert.deepEqual(payloadOf(res, "unsuppressIssueForTeam"), { ok: true, clientMutationId });
        assert.deepEqual(await suppressedShortcodes(team), []);
      }
    });

    test("no suppression change records a webhook event", async () => {
      const team = await aTeam();
      const input = { issueShortcode: issue.shortcode, ...where(team.account) };
      payloadOf(await mutate(team.tokens.admin, "suppressIssueForTeam", input), "suppressIssueForTeam");
      payloadOf(await mutate(team.tokens.admin, "unsuppressIssueForTeam", input), "unsuppressIssueForTeam");
      assert.deepEqual(await eventsOf(team.account), []);
    });

    for (const name of ["suppressIssueForTeam", "unsuppressIssueForTeam"]) {
      test(`${name}: MEMBER and CONTRIBUTOR are FORBIDDEN, and nothing changes`, async () => {
        const team = await aTeam();
        if (name === "unsuppressIssueForTeam") {
          const input = { issueShortcode: issue.shortcode, ...where(team.account) };
          payloadOf(await mutate(team.tokens.admin, "suppressIssueForTeam", input), "suppressIssueForTeam");
        }
        const before = await stateOf(team.account);
        for (const token of [team.tokens.member, team.tokens.contributor]) {
          const input = { issueShortcode: issue.shortcode, ...where(team.account) };
          assertRefused(await mutate(token, name, input), name, "FORBIDDEN");
        }
        assert.deepEqual(await stateOf(team.account), before);
      });

      test(`${name}: an account you are not in answers exactly like one that does not exist`, async () => {
        const team = await aTeam();
        const before = await stateOf(team.account);
        const hidden = await mutate(outsiderToken, name, {
          issueShortcode: issue.shortcode,
          ...where(team.account),
        });
        const missingLogin = `no-such-${newRowKey()}`;
        const missing = await mutate(outsiderToken, name, {
          issueShortcode: issue.shortcode,
          login: missingLogin,
          vcsProvider: "GITHUB",
        });
        const hiddenMessage = assertRefused(hidden, name, "NOT_FOUND");
        assert.equal(hiddenMessage, `No account "${team.account.login}" on GITHUB exists.`);
        assert.deepEqual(
          JSON.parse(JSON.stringify(hidden.body).replaceAll(team.account.login, "<login>")),
          JSON.parse(JSON.stringify(missing.body).replaceAll(missingLogin, "<login>")),
        );
        // The right login on another provider is another account.
        assertRefused(
          await mutate(team.tokens.admin, name, {
            issueShortcode: issue.shortcode,
            login: team.account.login,
            vcsProvider: "GITLAB",
          }),
          name,
          "NOT_FOUND",
        );
        assert.deepEqual(await stateOf(team.account), before);
      });

      test(`${name}: an unknown shortcode is BAD_USER_INPUT naming issueShortcode`, async () => {
        const team = await aTeam();
        const before = await stateOf(team.account);
        for (const issueShortcode of [`NOPE-${newRowKey()}`, ""]) {
          const res = await mutate(team.tokens.admin, name, { issueShortcode, ...where(team.account) });
          assertRefused(res, name, "BAD_USER_INPUT", "issueShortcode");
        }
        assert.deepEqual(await stateOf(team.account), before);
      });
    }

    test("the owner of a personal account may suppress issues in it", async () => {
      const { db } = server;
      const owner = await aUser(db);
      const personal = await anAccount(db, { type: "INDIVIDUAL" }, [
        { user: owner, role: "ADMIN", isOwner: true },
      ]);
      const token = await aToken(db, server.config.tokenPepper, owner);
      const res = await mutate(
        token,
        "suppressIssueForTeam",
        { issueShortcode: issue.shortcode, ...where(personal) },
        "ok",
      );
      assert.deepEqual(payloadOf(res, "suppressIssueForTeam"), { ok: true });
      assert.equal((await stateOf(personal)).suppressions.length, 1);
    });

    test("a suppression applies to runs of every repository of the team created after it, until lifted", async () => {
      const team = await aTeam();
      const first = await aRepository(server.db, team.account);
      const second = await aRepository(server.db, team.account);
      const input = { issueShortcode: issue.shortcode, ...where(team.account) };
      const beforeSuppression = new Date(Date.now() - 60_000);
      payloadOf(await mutate(team.tokens.admin, "suppressIssueForTeam", input), "suppressIssueForTeam");
      const finding = { issueId: issue.id, path: "src/any.py" };
      for (const repository of [first, second]) {
        assert.ok(
          isFindingSuppressed(await loadSuppressionRules(server.db, repository.id, new Date()), finding),
        );
        const earlier = await loadSuppressionRules(server.db, repository.id, beforeSuppression);
        assert.ok(
          !isFindingSuppressed(earlier, finding),
          "a run created before the suppression keeps the issue",
        );
      }
      const now = await loadSuppressionRules(server.db, first.id, new Date());
      assert.ok(!isFindingSuppressed(now, { issueId: sharedShortcode[0]!.id, path: "src/any.py" }));
      payloadOf(await mutate(team.tokens.admin, "unsuppressIssueForTeam", input), "unsuppressIssueForTeam");
      assert.ok(!isFindingSuppressed(await loadSuppressionRules(server.db, first.id, new Date()), finding));
    });
  });

  describe("addTeamMember", () => {
    test("an ADMIN adds an existing user by e-mail address (in any case) with a role; the event carries the member", async () => {
      const team = await aTeam();
      const newcomer = await aUser(server.db, { firstName: "Newcomer" });
      const res = await mutate(
        team.tokens.admin,
        "addTeamMember",
        {
          login: team.account.login,
          vcsProvider: "GITHUB",
          email: newcomer.email.toUpperCase(),
          role: "CONTRIBUTOR",
          clientMutationId: "add-1",
        },
        "clientMutationId teamMember { id role isOwner user { email firstName } }",
      );
      const payload = payloadOf<{ clientMutationId: string; teamMember: Record<string, unknown> }>(
        res,
        "addTeamMember",
      );
      const key = await membershipKeyOf(team.account, newcomer);
      assert.deepEqual(payload, {
        clientMutationId: "add-1",
        teamMember: {
          id: memberId(key),
          role: "CONTRIBUTOR",
          isOwner: false,
          user: { email: newcomer.email, firstName: "Newcomer" },
        },
      });
      const members = await gql<{
        account: { members: { edges: Array<{ node: { user: { email: string } } }> } };
      }>(
        server.endpoint,
        team.tokens.contributor,
        `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { members { edges { node { user { email } } } } } }`,
        { login: team.account.login },
      );
      assert.ok(members.body.data!.account.members.edges.some((e) => e.node.user.email === newcomer.email));
      assert.deepEqual(await eventsOf(team.account), [
        { type: "team_member.added", data: { object: await memberObjectOf(team.account, newcomer.id) } },
      ]);
    });

    test("the new member sees the team at once", async () => {
      const team = await aTeam();
      const newcomer = await aUser(server.db);
      const token = await aToken(server.db, server.config.tokenPepper, newcomer);
      const query = `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { login } }`;
      const hidden = await gql(server.endpoint, token, query, { login: team.account.login });
      assert.deepEqual(hidden.body.data, { account: null });
      payloadOf(
        await mutate(team.tokens.admin, "addTeamMember", {
          login: team.account.login,
          vcsProvider: "GITHUB",
          email: newcomer.email,
          role: "MEMBER",
        }),
        "addTeamMember",
      );
      const seen = await gql(server.endpoint, token, query, { login: team.account.login });
      assert.deepEqual(seen.body.data, { account: { login: team.account.login } });
    });

    test("an unknown e-mail address, or a member already there, is BAD_USER_INPUT naming email; nothing changes", async () => {
      const team = await aTeam();
      const before = await stateOf(team.account);
      for (const email of [`nobody-${newRowKey()}@example.test`, team.users.member.email, ""]) {
        const res = await mutate(team.tokens.admin, "addTeamMember", {
          login: team.account.login,
          vcsProvider: "GITHUB",
          email,
          role: "ADMIN",
        });
        assertRefused(res, "addTeamMember", "BAD_USER_INPUT", "email");
      }
      assert.deepEqual(await stateOf(team.account), before);
    });

    test("MEMBER and CONTRIBUTOR are FORBIDDEN; outsiders get NOT_FOUND as for a missing account; nothing changes", async () => {
      const team = await aTeam();
      const newcomer = await aUser(server.db);
      const input = {
        login: team.account.login,
        vcsProvider: "GITHUB",
        email: newcomer.email,
        role: "MEMBER",
      };
      const before = await stateOf(team.account);
      assertRefused(await mutate(team.tokens.member, "addTeamMember", input), "addTeamMember", "FORBIDDEN");
      assertRefused(
        await mutate(team.tokens.contributor, "addTeamMember", input),
        "addTeamMember",
        "FORBIDDEN",
      );
      const hidden = assertRefused(
        await mutate(outsiderToken, "addTeamMember", input),
        "addTeamMember",
        "NOT_FOUND",
      );
      assert.equal(hidden, `No account "${team.account.login}" on GITHUB exists.`);
      assert.deepEqual(await stateOf(team.account), before);
    });

    test("a personal account cannot get members: BAD_USER_INPUT naming login", async () => {
      const { db } = server;
      const owner = await aUser(db);
      const personal = await anAccount(db, { type: "INDIVIDUAL" }, [
        { user: owner, role: "ADMIN", isOwner: true },
      ]);
      const token = await aToken(db, server.config.tokenPepper, owner);
      const newcomer = await aUser(db);
      const before = await stateOf(personal);
      const message = assertRefused(
        await mutate(token, "addTeamMember", {
          login: personal.login,
          vcsProvider: "GITHUB",
          email: newcomer.email,
          role: "MEMBER",
        }),
        "addTeamMember",
        "BAD_USER_INPUT",
        "login",
      );
      assert.match(message, /personal account/);
      assert.deepEqual(await stateOf(personal), before);
    });
  });

  describe("updateTeamMemberRole", () => {
    test("an ADMIN changes a role; the payload shows it and the event carries old and new role", async () => {
      const team = await aTeam();
      const id = memberId(await membershipKeyOf(team.account, team.users.member));
      const res = await mutate(
        team.tokens.admin,
        "updateTeamMemberRole",
        { teamMemberId: id, role: "ADMIN", clientMutationId: "up-1" },
        "clientMutationId teamMember { id role user { email } }",
      );
      assert.deepEqual(payloadOf(res, "updateTeamMemberRole"), {
        clientMutationId: "up-1",
        teamMember: { id, role: "ADMIN", user: { email: team.users.member.email } },
      });
      assert.equal((await rolesOf(team.account))[team.users.member.id], "ADMIN");
      assert.deepEqual(await eventsOf(team.account), [
        {
          type: "team_member.updated",
          data: {
            object: await memberObjectOf(team.account, team.users.member.id),
            oldRole: "MEMBER",
            newRole: "ADMIN",
          },
        },
      ]);
    });

    test("giving a member the role they have answers the member and records nothing", async () => {
      const team = await aTeam();
      const id = memberId(await membershipKeyOf(team.account, team.users.contributor));
      const res = await mutate(
        team.tokens.admin,
        "updateTeamMemberRole",
        { teamMemberId: id, role: "CONTRIBUTOR" },
        "teamMember { role }",
      );
      assert.deepEqual(payloadOf(res, "updateTeamMemberRole"), { teamMember: { role: "CONTRIBUTOR" } });
      assert.deepEqual(await eventsOf(team.account), []);
    });

    test("the last ADMIN cannot be demoted (BAD_USER_INPUT naming role); with a second ADMIN they can", async () => {
      const team = await aTeam();
      const adminId = memberId(await membershipKeyOf(team.account, team.users.admin));
      const before = await stateOf(team.account);
      for (const role of ["MEMBER", "CONTRIBUTOR"]) {
        const message = assertRefused(
          await mutate(team.tokens.admin, "updateTeamMemberRole", { teamMemberId: adminId, role }),
          "updateTeamMemberRole",
          "BAD_USER_INPUT",
          "role",
        );
        assert.match(message, /last ADMIN/);
      }
      assert.deepEqual(await stateOf(team.account), before);
      const memberIdOf = memberId(await membershipKeyOf(team.account, team.users.member));
      payloadOf(
        await mutate(team.tokens.admin, "updateTeamMemberRole", { teamMemberId: memberIdOf, role: "ADMIN" }),
        "updateTeamMemberRole",
      );
      payloadOf(
        await mutate(team.tokens.admin, "updateTeamMemberRole", { teamMemberId: adminId, role: "MEMBER" }),
        "updateTeamMemberRole",
      );
      const roles = await rolesOf(team.account);
      assert.equal(roles[team.users.admin.id], "MEMBER");
      assert.equal(roles[team.users.member.id], "ADMIN");
      // The demoted ADMIN has lost the right at once.
      assertRefused(
        await mutate(team.tokens.admin, "updateTeamMemberRole", { teamMemberId: adminId, role: "ADMIN" }),
        "updateTeamMemberRole",
        "FORBIDDEN",
      );
    });

    test("two ADMINs demoting each other at the same moment leave the team one ADMIN", async () => {
      const team = await aTeam();
      const memberKey = await membershipKeyOf(team.account, team.users.member);
      const adminKey = await membershipKeyOf(team.account, team.users.admin);
      payloadOf(
        await mutate(team.tokens.admin, "updateTeamMemberRole", {
          teamMemberId: memberId(memberKey),
          role: "ADMIN",
        }),
        "updateTeamMemberRole",
      );
      for (let round = 0; round < 3; round++) {
        const [a, b] = await Promise.all([
          mutate(team.tokens.admin, "updateTeamMemberRole", {
            teamMemberId: memberId(memberKey),
            role: "MEMBER",
          }),
          mutate(team.tokens.member, "updateTeamMemberRole", {
            teamMemberId: memberId(adminKey),
            role: "MEMBER",
          }),
        ]);
        const succeeded = [a, b].filter((r) => r.body.errors === undefined);
        assert.equal(succeeded.length, 1, JSON.stringify([a.body, b.body]));
        const admins = Object.values(await rolesOf(team.account)).filter((r) => r === "ADMIN");
        assert.equal(admins.length, 1);
        // Restore two ADMINs for the next round.
        const adminToken =
          (await rolesOf(team.account))[team.users.admin.id] === "ADMIN"
            ? team.tokens.admin
            : team.tokens.member;
        for (const key of [memberKey, adminKey]) {
          payloadOf(
            await mutate(adminToken, "updateTeamMemberRole", { teamMemberId: memberId(key), role: "ADMIN" }),
            "updateTeamMemberRole",
          );
        }
      }
    });

    test("MEMBER and CONTRIBUTOR are FORBIDDEN, and nothing changes", async () => {
      const team = await aTeam();
      const id = memberId(await membershipKeyOf(team.account, team.users.contributor));
      const before = await stateOf(team.account);
      for (const token of [team.tokens.member, team.tokens.contributor]) {
        assertRefused(
          await mutate(token, "updateTeamMemberRole", { teamMemberId: id, role: "ADMIN" }),
          "updateTeamMemberRole",
          "FORBIDDEN",
        );
      }
      assert.deepEqual(await stateOf(team.account), before);
    });
  });

  describe("removeTeamMember", () => {
    test("an ADMIN removes a member: the event carries the membership as it was, and the member loses access", async () => {
      const team = await aTeam();
      const object = await memberObjectOf(team.account, team.users.member.id);
      const id = memberId(await membershipKeyOf(team.account, team.users.member));
      const res = await mutate(
        team.tokens.admin,
        "removeTeamMember",
        { teamMemberId: id, clientMutationId: "rm-1" },
        "ok clientMutationId",
      );
      assert.deepEqual(payloadOf(res, "removeTeamMember"), { ok: true, clientMutationId: "rm-1" });
      assert.equal((await rolesOf(team.account))[team.users.member.id], undefined);
      assert.deepEqual(await eventsOf(team.account), [{ type: "team_member.removed", data: { object } }]);
      const gone = await gql(
        server.endpoint,
        team.tokens.member,
        `query($login: String!) { account(login: $login, vcsProvider: GITHUB) { login } }`,
        { login: team.account.login },
      );
      assert.deepEqual(gone.body.data, { account: null });
      // Removing it again: the membership no longer exists.
      const again = assertRefused(
        await mutate(team.tokens.admin, "removeTeamMember", { teamMemberId: id }),
        "removeTeamMember",
        "NOT_FOUND",
      );
      assert.equal(again, `No node with id "${id}" exists.`);
    });

    test("the last ADMIN cannot be removed (BAD_USER_INPUT naming teamMemberId); an ADMIN may leave when another remains", async () => {
      const team = await aTeam();
      const adminId = memberId(await membershipKeyOf(team.account, team.users.admin));
      const before = await stateOf(team.account);
      const message = assertRefused(
        await mutate(team.tokens.admin, "removeTeamMember", { teamMemberId: adminId }),
        "removeTeamMember",
        "BAD_USER_INPUT",
        "teamMemberId",
      );
      assert.match(message, /last ADMIN/);
      assert.deepEqual(await stateOf(team.account), before);
      payloadOf(
        await mutate(team.tokens.admin, "updateTeamMemberRole", {
          teamMemberId: memberId(await membershipKeyOf(team.account, team.users.member)),
          role: "ADMIN",
        }),
        "updateTeamMemberRole",
      );
      payloadOf(
        await mutate(team.tokens.admin, "removeTeamMember", { teamMemberId: adminId }),
        "removeTeamMember",
      );
      assert.deepEqual(Object.values(await rolesOf(team.account)).sort(), ["ADMIN", "CONTRIBUTOR"]);
    });

    test("MEMBER and CONTRIBUTOR are FORBIDDEN, and nothing changes", async () => {
      const team = await aTeam();
      const id = memberId(await membershipKeyOf(team.account, team.users.contributor));
      const before = await stateOf(team.account);
      for (const token of [team.tokens.member, team.tokens.contributor]) {
        assertRefused(
          await mutate(token, "removeTeamMember", { teamMemberId: id }),
          "removeTeamMember",
          "FORBIDDEN",
        );
      }
      assert.deepEqual(await stateOf(team.account), before);
    });

    test("a personal account's owner cannot be removed: BAD_USER_INPUT naming teamMemberId", async () => {
      const { db } = server;
      const owner = await aUser(db);
      const personal = await anAccount(db, { type: "INDIVIDUAL" }, [
        { user: owner, role: "ADMIN", isOwner: true },
      ]);
      const token = await aToken(db, server.config.tokenPepper, owner);
      const id = memberId(await membershipKeyOf(personal, owner));
      const before = await stateOf(personal);
      for (const [name, input] of [
        ["removeTeamMember", { teamMemberId: id }],
        ["updateTeamMemberRole", { teamMemberId: id, role: "MEMBER" }],
      ] as const) {
        assertRefused(await mutate(token, name, input), name, "BAD_USER_INPUT", "teamMemberId");
      }
      assert.deepEqual(await stateOf(personal), before);
    });
  });

  describe("member ids", () => {
    for (const [name, extra] of [
      ["removeTeamMember", {}],
      ["updateTeamMemberRole", { role: "MEMBER" }],
    ] as const) {
      test(`${name}: another team's member answers exactly like a TeamMember id never issued`, async () => {
        const team = await aTeam();
        const hiddenId = memberId(await membershipKeyOf(team.account, team.users.contributor));
        const neverIssued = memberId(newRowKey());
        const before = await stateOf(team.account);
        const seen = await mutate(outsiderToken, name, { teamMemberId: hiddenId, ...extra });
        const unknown = await mutate(outsiderToken, name, { teamMemberId: neverIssued, ...extra });
        assert.equal(assertRefused(seen, name, "NOT_FOUND"), `No node with id "${hiddenId}" exists.`);
        assert.deepEqual(
          JSON.parse(JSON.stringify(seen.body).replaceAll(hiddenId, "<id>")),
          JSON.parse(JSON.stringify(unknown.body).replaceAll(neverIssued, "<id>")),
        );
        assert.deepEqual(await stateOf(team.account), before);
      });

      test(`${name}: an Account id or a malformed id is BAD_USER_INPUT naming teamMemberId`, async () => {
        const team = await aTeam();
        const before = await stateOf(team.account);
        for (const teamMemberId of [encodeGlobalId("Account", team.account.key), "not-an-id"]) {
          const res = await mutate(team.tokens.admin, name, { teamMemberId, ...extra });
          assertRefused(res, name, "BAD_USER_INPUT", "teamMemberId");
        }
        assert.deepEqual(await stateOf(team.account), before);
      });
    }
  });
});
