import { createHash, randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type {
  AccountRow,
  AccountType,
  AnalysisRunRow,
  AnalysisRunStatus,
  Database,
  RepositoryRow,
  TeamMemberRole,
  UserRow,
  VcsProvider,
} from "../../src/db/types.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";
import { insertAccount, upsertMembership } from "../../src/modules/accounts/account-store.ts";
import { createToken } from "../../src/modules/auth/token-service.ts";
import { dsnToken } from "../../src/modules/repositories/dsn.ts";
import { insertRepository } from "../../src/modules/repositories/repository-store.ts";
import { insertRun } from "../../src/modules/runs/run-store.ts";
import { insertUser } from "../../src/modules/users/user-store.ts";
import { registerSecret } from "./secret-leaks.ts";
import { TEST_TOKEN_PEPPER } from "./server.ts";

/**
 * Builders that seed exactly what a test needs. Each gives unique names by default so tests in
 * one database never collide.
 */

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${newRowKey().slice(0, 4)}`;

/** Inserts a user. */
export function aUser(
  db: Kysely<Database>,
  fields: Partial<{ email: string; firstName: string; lastName: string }> = {},
): Promise<UserRow> {
  return insertUser(db, {
    key: newRowKey(),
    email: fields.email ?? `${unique("user")}@example.test`,
    first_name: fields.firstName ?? "Test",
    last_name: fields.lastName ?? "User",
    analytics_id: randomUUID(),
  });
}

/** Inserts an account and, when `members` are given, their memberships. */
export async function anAccount(
  db: Kysely<Database>,
  fields: Partial<{ login: string; type: AccountType; vcsProvider: VcsProvider }> = {},
  members: Array<{ user: UserRow; role?: TeamMemberRole; isOwner?: boolean }> = [],
): Promise<AccountRow> {
  const account = await insertAccount(db, {
    key: newRowKey(),
    login: fields.login ?? unique("team"),
    vcs_provider: fields.vcsProvider ?? "GITHUB",
    type: fields.type ?? "TEAM",
  });
  for (const member of members) {
    await upsertMembership(db, {
      key: newRowKey(),
      accountId: account.id,
      userId: member.user.id,
      role: member.role ?? "MEMBER",
      isOwner: member.isOwner ?? false,
    });
  }
  return account;
}

/**
 * Inserts a repository under `account`, and registers its DSN token (as the test servers' pepper
 * derives it) with the secret check.
 */
export async function aRepository(
  db: Kysely<Database>,
  account: AccountRow,
  fields: Partial<{ name: string; defaultBranch: string; isPrivate: boolean }> = {},
): Promise<RepositoryRow> {
  const repository = await insertRepository(db, {
    key: newRowKey(),
    account_id: account.id,
    name: fields.name ?? unique("repo"),
    default_branch: fields.defaultBranch ?? "main",
    is_private: fields.isPrivate ?? true,
    is_activated: true,
  });
  registerSecret(dsnToken(repository, TEST_TOKEN_PEPPER));
  return repository;
}

/** Inserts an analysis run of `repository`. */
export function aRun(
  db: Kysely<Database>,
  repository: RepositoryRow,
  fields: Partial<{
    branch: string;
    commitOid: string;
    status: AnalysisRunStatus;
    createdAt: Date;
    /** The run it was compared with (none unless given). */
    baseRun: AnalysisRunRow;
  }> = {},
): Promise<AnalysisRunRow> {
  const createdAt = fields.createdAt ?? new Date();
  return insertRun(db, {
    key: newRowKey(),
    run_uid: randomUUID(),
    repository_id: repository.id,
    branch_name: fields.branch ?? "main",
    commit_oid: fields.commitOid ?? createHash("sha1").update(randomUUID()).digest("hex"),
    status: fields.status ?? "SUCCESS",
    base_run_id: fields.baseRun?.id ?? null,
    base_oid: fields.baseRun?.commit_oid ?? null,
    created_at: createdAt,
    updated_at: createdAt,
  });
}

/** Creates a personal access token for `user` and returns its plaintext. */
export async function aToken(
  db: Kysely<Database>,
  pepper: string,
  user: UserRow,
  fields: Partial<{ name: string; expiresInDays: number | null; now: Date }> = {},
): Promise<string> {
  const { token } = await createToken(db, pepper, {
    userId: user.id,
    name: fields.name ?? "test",
    expiresInDays: fields.expiresInDays === undefined ? 30 : fields.expiresInDays,
    now: fields.now,
  });
  registerSecret(token);
  return token;
}

/** Who {@link aTeamOfEveryRole} makes: one user of each role in the team, and one of another account. */
export type RoleToken = "admin" | "member" | "contributor" | "outsider";

/**
 * A team with an ADMIN, a MEMBER and a CONTRIBUTOR, another account (`elsewhere`) whose only
 * member, its ADMIN, is the outsider, and a token of each of the four users.
 */
export async function aTeamOfEveryRole(
  db: Kysely<Database>,
  pepper: string,
): Promise<{ team: AccountRow; elsewhere: AccountRow; tokens: Record<RoleToken, string> }> {
  const users: Record<RoleToken, UserRow> = {
    admin: await aUser(db),
    member: await aUser(db),
    contributor: await aUser(db),
    outsider: await aUser(db),
  };
  const team = await anAccount(db, {}, [
    { user: users.admin, role: "ADMIN" },
    { user: users.member, role: "MEMBER" },
    { user: users.contributor, role: "CONTRIBUTOR" },
  ]);
  const elsewhere = await anAccount(db, {}, [{ user: users.outsider, role: "ADMIN" }]);
  const tokens = {
    admin: await aToken(db, pepper, users.admin),
    member: await aToken(db, pepper, users.member),
    contributor: await aToken(db, pepper, users.contributor),
    outsider: await aToken(db, pepper, users.outsider),
  };
  return { team, elsewhere, tokens };
}
