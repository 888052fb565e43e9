import { type Kysely, sql } from "kysely";
import type { Database, VcsProvider } from "../../db/types.ts";

/**
 * The SQL of incoming VCS webhook secrets (docs/vcs-events.md "The secret"): repositories' own
 * and accounts' account-wide secrets, stored encrypted, and which repository a delivery may be for.
 */

/**
 * A repository that may receive a provider's deliveries: its key, its own stored secret and its
 * account's (either may be absent, not both).
 */
export interface VcsSecretCandidate {
  repository_id: string;
  repository_key: string;
  account_id: string;
  account_key: string;
  repository_secret: Buffer | null;
  account_secret: Buffer | null;
}

/**
 * The repositories of accounts on `providers` whose `login/name` is `fullName` (compared without
 * case, as the providers do) and that have a webhook secret of their own or through their account.
 */
export function findVcsSecretCandidates(
  db: Kysely<Database>,
  providers: readonly VcsProvider[],
  fullName: string,
): Promise<VcsSecretCandidate[]> {
  return db
    .selectFrom("repositories as r")
    .innerJoin("accounts as a", "a.id", "r.account_id")
    .leftJoin("repository_vcs_secrets as s", "s.repository_id", "r.id")
    .leftJoin("account_vcs_secrets as t", "t.account_id", "a.id")
    .select([
      "r.id as repository_id",
      "r.key as repository_key",
      "r.account_id",
      "a.key as account_key",
      "s.secret_encrypted as repository_secret",
      "t.secret_encrypted as account_secret",
    ])
    .where("a.vcs_provider", "in", providers)
    .where(sql<string>`lower(a.login || '/' || r.name)`, "=", fullName.toLowerCase())
    .where((eb) => eb.or([eb("s.repository_id", "is not", null), eb("t.account_id", "is not", null)]))
    .orderBy("r.id")
    .limit(10)
    .execute();
}

/** Stores (or replaces) the repository's encrypted webhook secret. */
export async function upsertVcsSecret(
  tx: Kysely<Database>,
  repositoryId: string,
  encrypted: Buffer,
  lastFour: string,
): Promise<void> {
  await tx
    .insertInto("repository_vcs_secrets")
    .values({ repository_id: repositoryId, secret_encrypted: encrypted, secret_last_four: lastFour })
    .onConflict((oc) =>
      oc.column("repository_id").doUpdateSet({
        secret_encrypted: encrypted,
        secret_last_four: lastFour,
        updated_at: sql<Date>`now()`,
      }),
    )
    .execute();
}

/** Removes the repository's webhook secret; true when there was one. */
export async function deleteVcsSecret(tx: Kysely<Database>, repositoryId: string): Promise<boolean> {
  const deleted = await tx
    .deleteFrom("repository_vcs_secrets")
    .where("repository_id", "=", repositoryId)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

/** Stores (or replaces) the account's encrypted webhook secret. */
export async function upsertAccountVcsSecret(
  tx: Kysely<Database>,
  accountId: string,
  encrypted: Buffer,
  lastFour: string,
): Promise<void> {
  await tx
    .insertInto("account_vcs_secrets")
    .values({ account_id: accountId, secret_encrypted: encrypted, secret_last_four: lastFour })
    .onConflict((oc) =>
      oc.column("account_id").doUpdateSet({
        secret_encrypted: encrypted,
        secret_last_four: lastFour,
        updated_at: sql<Date>`now()`,
      }),
    )
    .execute();
}

/** Removes the account's webhook secret; true when there was one. */
export async function deleteAccountVcsSecret(tx: Kysely<Database>, accountId: string): Promise<boolean> {
  const deleted = await tx
    .deleteFrom("account_vcs_secrets")
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

/** When each of these repositories' own webhook secrets was last set, by repository id. */
export function findRepositoryVcsSecretTimes(
  db: Kysely<Database>,
  repositoryIds: readonly string[],
): Promise<Array<{ owner_id: string; updated_at: Date }>> {
  return db
    .selectFrom("repository_vcs_secrets")
    .select(["repository_id as owner_id", "updated_at"])
    .where("repository_id", "in", repositoryIds)
    .execute();
}

/** When each of these accounts' webhook secrets was last set, by account id. */
export function findAccountVcsSecretTimes(
  db: Kysely<Database>,
  accountIds: readonly string[],
): Promise<Array<{ owner_id: string; updated_at: Date }>> {
  return db
    .selectFrom("account_vcs_secrets")
    .select(["account_id as owner_id", "updated_at"])
    .where("account_id", "in", accountIds)
    .execute();
}

/** The account-wide secret of the account `login` on `providers` (compared without case), if it has one. */
export function findAccountVcsSecret(
  db: Kysely<Database>,
  providers: readonly VcsProvider[],
  login: string,
): Promise<{ account_key: string; secret_encrypted: Buffer } | undefined> {
  return db
    .selectFrom("accounts as a")
    .innerJoin("account_vcs_secrets as t", "t.account_id", "a.id")
    .select(["a.key as account_key", "t.secret_encrypted"])
    .where("a.vcs_provider", "in", providers)
    .where(sql<string>`lower(a.login)`, "=", login.toLowerCase())
    .orderBy("a.id")
    .limit(1)
    .executeTakeFirst();
}
