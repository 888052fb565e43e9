import { type Kysely, sql } from "kysely";
import type { Database, NewRepository, RepositoryRow, VcsProvider } from "../../db/types.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";

/** One viewer's lookup of a repository by key. */
export interface VisibleRepositoryLookup {
  viewerId: string;
  key: string;
}

/** A repository found for a lookup, with the viewer it was found for. */
export type VisibleRepositoryRow = RepositoryRow & { viewer_id: string };

/**
 * The repositories of `lookups` in accounts the lookup's viewer belongs to, each with that viewer:
 * the lookups of several viewers in one statement (src/graphql/shared-lookup.ts), a row only for
 * the viewer that may see it.
 */
export async function findVisibleRepositoriesOfViewers(
  db: Kysely<Database>,
  lookups: readonly VisibleRepositoryLookup[],
): Promise<VisibleRepositoryRow[]> {
  if (lookups.length === 0) return [];
  // One lookup, the usual one, as plain parameters, so PostgreSQL keeps a generic plan for it
  // (docs/decisions.md "One repository's page as a plain parameter"); several as arrays.
  const only = lookups.length === 1 ? lookups[0] : undefined;
  const wanted = only
    ? sql`(SELECT cast(${only.viewerId} as bigint), cast(${only.key} as text))`
    : sql`unnest(cast(${lookups.map((l) => l.viewerId)} as bigint[]), cast(${lookups.map((l) => l.key)} as text[]))`;
  const result = await sql<VisibleRepositoryRow>`
    SELECT r.*, cast(w.viewer_id as text) AS viewer_id
    FROM ${wanted} AS w(viewer_id, key)
    JOIN repositories AS r ON r.key = w.key
    JOIN memberships AS m ON m.account_id = r.account_id AND m.user_id = w.viewer_id`.execute(db);
  return result.rows;
}

/** Repositories by internal id, for foreign keys the caller already had access through. */
export function findRepositoriesByIds(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<RepositoryRow[]> {
  return db.selectFrom("repositories").selectAll().where("id", "in", ids).execute();
}

/** A repository by name under an account login and provider, if `viewerId` belongs to the account. */
export function findVisibleRepositoryByName(
  db: Kysely<Database>,
  viewerId: string,
  where: { name: string; login: string; vcsProvider: VcsProvider },
): Promise<RepositoryRow | undefined> {
  return db
    .selectFrom("repositories as r")
    .innerJoin("accounts as a", "a.id", "r.account_id")
    .innerJoin("memberships as m", "m.account_id", "a.id")
    .selectAll("r")
    .where("m.user_id", "=", viewerId)
    .where("a.vcs_provider", "=", where.vcsProvider)
    .where(sql`lower(a.login)`, "=", where.login.toLowerCase())
    .where(sql`lower(r.name)`, "=", where.name.toLowerCase())
    .executeTakeFirst();
}

/** Inserts a repository and returns the stored row. */
export function insertRepository(db: Kysely<Database>, repository: NewRepository): Promise<RepositoryRow> {
  return db.insertInto("repositories").values(repository).returningAll().executeTakeFirstOrThrow();
}

/** An account's repositories by name, then key. Parent: the account id. */
export const repositoriesOfAccount: ConnectionSource = {
  name: "repositoriesOfAccount",
  from: sql`repositories`,
  parentColumn: "account_id",
  order: [
    { column: "name", kind: "text" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};

/** Switches analysis on or off; answers the updated row. */
export function updateRepositoryActivation(
  db: Kysely<Database>,
  repositoryId: string,
  isActivated: boolean,
): Promise<RepositoryRow> {
  return db
    .updateTable("repositories")
    .set({ is_activated: isActivated, updated_at: new Date() })
    .where("id", "=", repositoryId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Sets the branch treated as the default; answers the updated row. In the same transaction (`tx`)
 * the repository's metric values are marked anew by the branch of their check's run, so metric
 * history and latest values follow the new branch as issues do; values without a check keep
 * their mark, and only the values whose mark changes are rewritten.
 */
export async function updateRepositoryDefaultBranch(
  tx: Kysely<Database>,
  repositoryId: string,
  defaultBranch: string,
): Promise<RepositoryRow> {
  // The configuration follows the default branch.
  await followBranchConfig(tx, repositoryId, defaultBranch);
  const updated = await tx
    .updateTable("repositories")
    .set({ default_branch: defaultBranch, updated_at: new Date() })
    .where("id", "=", repositoryId)
    .returningAll()
    .executeTakeFirstOrThrow();
  const onBranch = sql<boolean>`(c.branch_name IS NOT NULL AND c.branch_name = ${defaultBranch})`;
  await sql`
    UPDATE metric_values AS v SET on_default_branch = ${onBranch}
    FROM repository_metric_items AS i, checks AS c
    WHERE i.repository_id = ${repositoryId} AND v.item_id = i.id AND c.id = v.check_id
      AND v.on_default_branch IS DISTINCT FROM ${onBranch}`.execute(tx);
  return updated;
}

/** Moves the repository to its next DSN generation, so earlier DSN tokens stop matching. */
export function incrementDsnGeneration(db: Kysely<Database>, repositoryId: string): Promise<RepositoryRow> {
  return db
    .updateTable("repositories")
    .set((eb) => ({ dsn_generation: eb("dsn_generation", "+", 1), updated_at: new Date() }))
    .where("id", "=", repositoryId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Gives the repository the configuration of the newest run of `branch` that carries one (in the
 * order `analysisRuns` lists runs: creation, then key); with none, it keeps the configuration it
 * has. `updated_at` moves only when the configuration changed.
 */
export async function followBranchConfig(
  tx: Kysely<Database>,
  repositoryId: string,
  branch: string,
): Promise<void> {
  const newest = sql<string>`(SELECT r.config_json FROM analysis_runs AS r
    WHERE r.repository_id = ${repositoryId} AND r.branch_name = ${branch} AND r.config_json IS NOT NULL
    ORDER BY r.created_at DESC, r.key DESC LIMIT 1)`;
  await tx
    .updateTable("repositories")
    .set({ config_json: newest, updated_at: new Date() })
    .where("id", "=", repositoryId)
    .where(sql<boolean>`${newest} IS NOT NULL AND config_json IS DISTINCT FROM ${newest}`)
    .execute();
}

/** A repository by internal id; throws when it is gone. */
export function findRepositoryById(db: Kysely<Database>, repositoryId: string): Promise<RepositoryRow> {
  return db.selectFrom("repositories").selectAll().where("id", "=", repositoryId).executeTakeFirstOrThrow();
}

/**
 * The repository, locked FOR NO KEY UPDATE until the transaction ends (rows referencing it can
 * still be inserted meanwhile); undefined when it is gone.
 */
export function lockRepositoryNoKeyUpdate(
  tx: Kysely<Database>,
  repositoryId: string,
): Promise<RepositoryRow | undefined> {
  return tx
    .selectFrom("repositories")
    .selectAll()
    .where("id", "=", repositoryId)
    .forNoKeyUpdate()
    .executeTakeFirst();
}

/** A repository as the admin CLI lists it, with its account's login and provider. */
export interface RepositoryListing {
  key: string;
  name: string;
  login: string;
  vcs_provider: VcsProvider;
  default_branch: string | null;
  is_private: boolean;
  is_activated: boolean;
  created_at: Date;
}

/** Every repository (of account `accountId` when given), by account and name, for `assay repository list`. */
export function listRepositories(
  db: Kysely<Database>,
  filter: { accountId?: string; provider?: VcsProvider },
): Promise<RepositoryListing[]> {
  let query = db
    .selectFrom("repositories as r")
    .innerJoin("accounts as a", "a.id", "r.account_id")
    .select([
      "r.key",
      "r.name",
      "a.login",
      "a.vcs_provider",
      "r.default_branch",
      "r.is_private",
      "r.is_activated",
      "r.created_at",
    ])
    .orderBy("a.vcs_provider")
    .orderBy(sql`lower(a.login)`)
    .orderBy(sql`lower(r.name)`)
    .orderBy("r.id");
  if (filter.accountId !== undefined) query = query.where("r.account_id", "=", filter.accountId);
  if (filter.provider !== undefined) query = query.where("a.vcs_provider", "=", filter.provider);
  return query.execute();
}

/** The repository named `name` of account `accountId`, if there is one. */
export function findRepositoryOfAccount(
  db: Kysely<Database>,
  accountId: string,
  name: string,
): Promise<RepositoryRow | undefined> {
  return db
    .selectFrom("repositories")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("name", "=", name)
    .executeTakeFirst();
}

/** The repository named `name` of account `accountId`, locked FOR NO KEY UPDATE; undefined when there is none. */
export function lockRepositoryOfAccount(
  tx: Kysely<Database>,
  accountId: string,
  name: string,
): Promise<Pick<RepositoryRow, "id" | "key"> | undefined> {
  return tx
    .selectFrom("repositories")
    .select(["id", "key"])
    .where("account_id", "=", accountId)
    .where("name", "=", name)
    .forNoKeyUpdate()
    .executeTakeFirst();
}

/** The repository with `key`, whoever may see it; undefined when there is none. */
export function findRepositoryByKey(db: Kysely<Database>, key: string): Promise<RepositoryRow | undefined> {
  return db.selectFrom("repositories").selectAll().where("key", "=", key).executeTakeFirst();
}
