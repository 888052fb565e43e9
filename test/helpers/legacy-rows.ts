import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { newRowKey } from "../../src/graphql/global-id.ts";

/**
 * Rows written into a database migrated to an earlier version, for the upgrade tests: plain
 * inserts against that version's schema, not today's types.
 */

// biome-ignore lint/suspicious/noExplicitAny: plain SQL against an earlier schema, not today's types
export type OldDb = Kysely<any>;

/** Inserts a row and answers its id. */
export async function insert(db: OldDb, table: string, row: Record<string, unknown>): Promise<string> {
  const inserted = await db.insertInto(table).values(row).returning("id").executeTakeFirstOrThrow();
  return String(inserted.id);
}

/** Inserts into a table without an identity column. */
export async function insertPlain(db: OldDb, table: string, row: Record<string, unknown>): Promise<void> {
  await db.insertInto(table).values(row).execute();
}

/**
 * A user with a personal access token (its hash and last four), owning and administering a GitHub
 * team account `login`, as every version since the first stores them.
 */
export async function insertOwner(
  db: OldDb,
  owner: {
    email: string;
    firstName: string;
    lastName: string;
    login: string;
    tokenHash: Buffer;
    lastFour: string;
  },
): Promise<{ userId: string; accountId: string }> {
  const userId = await insert(db, "users", {
    key: newRowKey(),
    email: owner.email,
    first_name: owner.firstName,
    last_name: owner.lastName,
    analytics_id: randomUUID(),
  });
  await insert(db, "personal_access_tokens", {
    key: newRowKey(),
    user_id: userId,
    name: "ci",
    token_hash: owner.tokenHash,
    last_four: owner.lastFour,
  });
  const accountId = await insert(db, "accounts", {
    key: newRowKey(),
    login: owner.login,
    vcs_provider: "GITHUB",
    type: "TEAM",
  });
  await insert(db, "memberships", {
    key: newRowKey(),
    account_id: accountId,
    user_id: userId,
    role: "ADMIN",
    is_owner: true,
  });
  return { userId, accountId };
}

/**
 * A GitHub team account `login` with a repository `app` and a finished run of its default branch
 * `main`, as every version since the first stores them.
 */
export async function insertRepositoryWithRun(
  db: OldDb,
  login: string,
): Promise<{ accountId: string; repositoryId: string; runId: string }> {
  const accountId = await insert(db, "accounts", {
    key: newRowKey(),
    login,
    vcs_provider: "GITHUB",
    type: "TEAM",
  });
  const repositoryId = await insert(db, "repositories", {
    key: newRowKey(),
    account_id: accountId,
    name: "app",
    default_branch: "main",
  });
  const runId = await insert(db, "analysis_runs", {
    key: newRowKey(),
    run_uid: randomUUID(),
    repository_id: repositoryId,
    branch_name: "main",
    commit_oid: "a".repeat(40),
    status: "SUCCESS",
    finished_at: "2026-11-01T10:00:00Z",
  });
  return { accountId, repositoryId, runId };
}
