import { type Kysely, type RawBuilder, sql } from "kysely";
import type { AnalysisRunRow, AnalysisRunStatus, Database, NewAnalysisRun } from "../../db/types.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { allOf, equalsFilter } from "../../graphql/row-filter-store.ts";

function visibleRuns(db: Kysely<Database>, viewerId: string) {
  return db
    .selectFrom("analysis_runs as r")
    .innerJoin("repositories as repo", "repo.id", "r.repository_id")
    .innerJoin("memberships as m", "m.account_id", "repo.account_id")
    .selectAll("r")
    .where("m.user_id", "=", viewerId);
}

/** Runs with these keys in repositories `viewerId` can see. */
export function findVisibleRunsByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<AnalysisRunRow[]> {
  return visibleRuns(db, viewerId).where("r.key", "in", keys).execute();
}

/** A run by its UID, if `viewerId` can see its repository. */
export function findVisibleRunByUid(
  db: Kysely<Database>,
  viewerId: string,
  runUid: string,
): Promise<AnalysisRunRow | undefined> {
  return visibleRuns(db, viewerId).where("r.run_uid", "=", runUid).executeTakeFirst();
}

/**
 * The newest run of a commit among the repositories `viewerId` can see. A commit can be analysed
 * more than once (re-runs, forks); the newest is what a client asking by commit means.
 */
export function findVisibleRunByCommit(
  db: Kysely<Database>,
  viewerId: string,
  commitOid: string,
): Promise<AnalysisRunRow | undefined> {
  return visibleRuns(db, viewerId)
    .where("r.commit_oid", "=", commitOid)
    .orderBy("r.created_at", "desc")
    .orderBy("r.id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** Inserts a run and returns the stored row. */
export function insertRun(db: Kysely<Database>, run: NewAnalysisRun): Promise<AnalysisRunRow> {
  return db.insertInto("analysis_runs").values(run).returningAll().executeTakeFirstOrThrow();
}

/** A repository's runs, newest first. Parent: the repository id. */
export const runsOfRepository: ConnectionSource = {
  name: "runsOfRepository",
  from: sql`analysis_runs`,
  parentColumn: "repository_id",
  order: [
    { column: "created_at", kind: "timestamptz" },
    { column: "key", kind: "text" },
  ],
  direction: "desc",
};

/**
 * The filter `analysisRuns(branch:, commitOid:)` applies: both when both are given
 * (analysis_runs_repository_commit_idx serves the commit).
 */
export function runFilter(branch: string | null | undefined, commitOid: string | null | undefined) {
  return allOf(equalsFilter("branch_name", branch), equalsFilter("commit_oid", commitOid));
}

/**
 * True for a run that is *analysed* (docs/ingestion.md "A late upload to a finished run"): it
 * finished SUCCESS or FAILURE, or did and is PENDING again while a late artifact is processed. A
 * repository's current state, its current findings, its report snapshots and the base of a new
 * run are read from analysed runs only. `alias` names the `analysis_runs` row in the statement.
 * The database holds the same rule as `assay_run_is_analysed` (migration 0032), with which it
 * marks each metric value; a change here needs a migration that replaces that function.
 */
export function isAnalysedRun(alias: string): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.status`)} IN ('SUCCESS', 'FAILURE')
    OR ${sql.ref(`${alias}.reopened_from`)} IN ('SUCCESS', 'FAILURE'))`;
}

/** {@link isAnalysedRun} for a row already read. */
export function isAnalysed(run: Pick<AnalysisRunRow, "status" | "reopened_from">): boolean {
  const analysed = (status: AnalysisRunStatus | null) => status === "SUCCESS" || status === "FAILURE";
  return analysed(run.status) || analysed(run.reopened_from);
}

/**
 * A repository's newest analysed run ({@link isAnalysedRun}) on its default branch, in history
 * order (`placed_at`: the upload order, unless the uploads said the commits' ancestry,
 * docs/ingestion.md "Where a run stands in the history"). A lateral subquery over the repository row aliased `repository`,
 * for what is said of the newest run itself (the run the issue announcements came from, the
 * repository's latest run). The repository's current findings (and `enabledAnalyzers` without a
 * configuration) are read per analyzer instead (checks/current-check-store.ts), and its
 * dependency vulnerabilities per target (dependencies/dependencies-store.ts).
 */
export function latestDefaultBranchRun(repository: string) {
  return sql`(
    SELECT lr.* FROM analysis_runs AS lr
    WHERE lr.repository_id = ${sql.ref(`${repository}.id`)}
      AND lr.branch_name = ${sql.ref(`${repository}.default_branch`)}
      AND ${isAnalysedRun("lr")}
    ORDER BY lr.placed_at DESC, lr.key DESC
    LIMIT 1
  )`;
}

/**
 * The latest analysed run (`isAnalysedRun`: finished SUCCESS or FAILURE, also while a late
 * artifact makes it PENDING again) on the default branch of each of these repositories that has
 * one.
 */
export async function findLatestDefaultBranchRuns(
  db: Kysely<Database>,
  repositoryIds: readonly string[],
): Promise<AnalysisRunRow[]> {
  const result = await sql<AnalysisRunRow>`
    SELECT r.*
    FROM repositories AS repo
    CROSS JOIN LATERAL ${latestDefaultBranchRun("repo")} AS r
    WHERE repo.id = ANY(cast(${repositoryIds} as bigint[]))`.execute(db);
  return result.rows;
}

/** A run by internal id; throws when it is gone. */
export function findRunById(db: Kysely<Database>, runId: string): Promise<AnalysisRunRow> {
  return db.selectFrom("analysis_runs").selectAll().where("id", "=", runId).executeTakeFirstOrThrow();
}

/** The id of run `runId`'s repository; undefined when the run is gone. */
export async function findRepositoryIdOfRun(
  db: Kysely<Database>,
  runId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("analysis_runs")
    .select("repository_id")
    .where("id", "=", runId)
    .executeTakeFirst();
  return row === undefined ? undefined : String(row.repository_id);
}

/**
 * Locks the run FOR NO KEY UPDATE until the transaction ends, as writing it would (rows referencing
 * it can still be inserted meanwhile); false when it is gone.
 */
export async function lockRunNoKeyUpdate(tx: Kysely<Database>, runId: string): Promise<boolean> {
  const run = await tx
    .selectFrom("analysis_runs")
    .select("id")
    .where("id", "=", runId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return run !== undefined;
}

/** Locks the run FOR UPDATE until the transaction ends; false when it is gone. */
export async function lockRun(tx: Kysely<Database>, runId: string): Promise<boolean> {
  const run = await tx
    .selectFrom("analysis_runs")
    .select("id")
    .where("id", "=", runId)
    .forUpdate()
    .executeTakeFirst();
  return run !== undefined;
}

/**
 * The latest run of `commitOid` in the repository, if any; the latest on `branch` first when the
 * commit has one there (a commit can have a run on a pull request's branch and one on the default
 * branch it was merged into).
 */
export function findRunOfCommit(
  db: Kysely<Database>,
  repositoryId: string,
  commitOid: string,
  branch: string | null = null,
): Promise<AnalysisRunRow | undefined> {
  return db
    .selectFrom("analysis_runs")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where("commit_oid", "=", commitOid)
    .$if(branch !== null, (query) => query.orderBy(sql`branch_name IS NOT DISTINCT FROM ${branch}`, "desc"))
    .orderBy("created_at", "desc")
    .orderBy("key", "desc")
    .limit(1)
    .executeTakeFirst();
}

/**
 * Inserts a run whose deadline is `deadlineSeconds` from now (none when null), placed in its
 * branch's history by `placedAt` ({@link placementInHistory}; at its `created_at` when null), and
 * returns the stored row.
 */
export function insertRunWithDeadline(
  db: Kysely<Database>,
  run: Omit<NewAnalysisRun, "deadline_at" | "placed_at">,
  deadlineSeconds: number | null,
  placedAt: RawBuilder<Date | null> | null = null,
): Promise<AnalysisRunRow> {
  return db
    .insertInto("analysis_runs")
    .values({
      ...run,
      // A null placement is filled in from created_at by the table's trigger (migration 0035).
      ...(placedAt === null ? {} : { placed_at: placedAt as RawBuilder<Date> }),
      deadline_at:
        deadlineSeconds === null ? null : sql<Date>`now() + make_interval(secs => ${deadlineSeconds})`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Sets the run's status now (finished unless PENDING); returns the row as it now stands. A
 * finished run made PENDING again keeps the status it had in `reopened_from` until it finishes
 * again.
 */
export function updateRunStatus(
  db: Kysely<Database>,
  runId: string,
  status: AnalysisRunStatus,
): Promise<AnalysisRunRow> {
  return db
    .updateTable("analysis_runs")
    .set({
      status,
      finished_at: status === "PENDING" ? null : sql<Date>`now()`,
      reopened_from:
        status === "PENDING"
          ? sql<AnalysisRunStatus | null>`CASE WHEN status = 'PENDING' THEN reopened_from ELSE status END`
          : null,
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", runId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Sets the run the run is compared with (none when `base` is null). */
export async function updateRunBase(
  tx: Kysely<Database>,
  runId: string,
  base: Pick<AnalysisRunRow, "id" | "commit_oid"> | null,
): Promise<void> {
  await tx
    .updateTable("analysis_runs")
    .set({ base_run_id: base?.id ?? null, base_oid: base?.commit_oid ?? null, updated_at: sql<Date>`now()` })
    .where("id", "=", runId)
    .execute();
}

/**
 * Moves the run to `branch` (a branch it is given, no longer a default), and the copy of its
 * branch each of its checks and dependency scans keeps for the indexes the current findings and
 * scans are read by (migrations 0023, 0024), in the caller's transaction.
 */
export async function updateRunBranch(
  tx: Kysely<Database>,
  runId: string,
  branch: string | null,
): Promise<void> {
  await tx
    .updateTable("analysis_runs")
    .set({ branch_name: branch, is_branch_defaulted: false, updated_at: sql<Date>`now()` })
    .where("id", "=", runId)
    .execute();
  await tx.updateTable("checks").set({ branch_name: branch }).where("run_id", "=", runId).execute();
  await tx.updateTable("sca_checks").set({ branch_name: branch }).where("run_id", "=", runId).execute();
}

/** The runs compared with run `runId` (it is their base run) and the runs `alsoRunIds`, oldest first. */
function runsBasedOn(tx: Kysely<Database>, runId: string, alsoRunIds: readonly string[]) {
  return tx
    .selectFrom("analysis_runs")
    .selectAll()
    .where((eb) =>
      alsoRunIds.length === 0
        ? eb("base_run_id", "=", runId)
        : eb.or([eb("base_run_id", "=", runId), eb("id", "in", alsoRunIds)]),
    )
    .orderBy("created_at")
    .orderBy("key");
}

/**
 * The runs compared with run `runId` (it is their base run), read without locking them, in the
 * order they were created: what a transaction holding `runId`'s lock queues work for before it
 * locks them ({@link lockRunsBasedOn}).
 */
export function findRunsBasedOn(tx: Kysely<Database>, runId: string): Promise<AnalysisRunRow[]> {
  return runsBasedOn(tx, runId, []).execute();
}

/**
 * The runs compared with run `runId` (it is their base run) and the runs `alsoRunIds`, locked FOR
 * UPDATE in the order they were created: a run is always created after its base, so transactions
 * that lock a run and then runs made after it take their locks in one order.
 */
export function lockRunsBasedOn(
  tx: Kysely<Database>,
  runId: string,
  alsoRunIds: readonly string[] = [],
): Promise<AnalysisRunRow[]> {
  return runsBasedOn(tx, runId, alsoRunIds).forUpdate().execute();
}

/** Records that an upload named the branch run `runId` is on (it was a default); answers the run. */
export function markRunBranchNamed(tx: Kysely<Database>, runId: string): Promise<AnalysisRunRow> {
  return tx
    .updateTable("analysis_runs")
    .set({ is_branch_defaulted: false })
    .where("id", "=", runId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The analysed run ({@link isAnalysedRun}) on `branch` of the nearest of `ancestorOids` (a commit's
 * first-parent ancestors, nearest first) that has one, if any: the run a new run of the commit is
 * compared with (docs/ingestion.md "Where a run stands in the history"); with `placedBeforeRunId`,
 * only among the runs placed before that run (a run compared again keeps its base behind it). The
 * places are compared in the database, which keeps their microseconds.
 */
export function findNearestAnalysedAncestorRun(
  db: Kysely<Database>,
  repositoryId: string,
  branch: string,
  ancestorOids: readonly string[],
  placedBeforeRunId: string | null = null,
): Promise<AnalysisRunRow | undefined> {
  const ancestors = sql`cast(${[...ancestorOids]} as text[])`;
  return db
    .selectFrom("analysis_runs")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where("branch_name", "=", branch)
    .where(sql<boolean>`commit_oid = ANY(${ancestors})`)
    .where(isAnalysedRun("analysis_runs"))
    .$if(placedBeforeRunId !== null, (query) =>
      query.where(
        sql<boolean>`(placed_at, key) < (SELECT p.placed_at, p.key FROM analysis_runs AS p WHERE p.id = ${placedBeforeRunId})`,
      ),
    )
    .orderBy(sql`array_position(${ancestors}, commit_oid)`)
    .orderBy("placed_at", "desc")
    .orderBy("key", "desc")
    .limit(1)
    .executeTakeFirst();
}

/**
 * Where a new run of `commitOid` on `branch` stands in the branch's history, as an expression for
 * its `placed_at`: when runs of the branch already name the commit among their ancestors (its
 * descendants, uploaded first), halfway between the newest run of one of its own `ancestorOids`
 * placed before the earliest of them (else a second before it) and that earliest descendant; null
 * otherwise, which places the run at its `created_at` (migration 0035). Computed by the database,
 * which keeps the microseconds a JavaScript date would drop.
 */
export function placementInHistory(
  repositoryId: string,
  branch: string,
  commitOid: string,
  ancestorOids: readonly string[],
): RawBuilder<Date | null> {
  return sql<Date | null>`(
    WITH descendant AS (
      SELECT min(d.placed_at) AS at FROM analysis_runs AS d
      WHERE d.repository_id = ${repositoryId} AND d.branch_name = ${branch}
        AND d.ancestor_oids @> cast(${[commitOid]} as text[])
    ), ancestor AS (
      SELECT max(a.placed_at) AS at FROM analysis_runs AS a, descendant
      WHERE a.repository_id = ${repositoryId} AND a.branch_name = ${branch}
        AND a.commit_oid = ANY(cast(${[...ancestorOids]} as text[])) AND a.placed_at < descendant.at
    )
    SELECT descendant.at - (descendant.at - coalesce(ancestor.at, descendant.at - interval '1 second')) / 2
    FROM descendant, ancestor)`;
}

/** The class of {@link lockRunHistory}'s advisory locks ("hist"), apart from any other's. */
const RUN_HISTORY_LOCK_CLASS = 0x68697374;

/**
 * Takes the lock on the order of `repositoryId`'s runs, held until the transaction ends: a
 * transaction-scoped advisory lock keyed by the repository (a hash of its id, so two repositories
 * may rarely share one, which only makes one wait for the other). Taken by an upload that makes a
 * run compared by its history (its ancestry, or its merge base), before it chooses the run's base,
 * and by the settlement of a run that becomes analysed, before it looks for the runs made before
 * that are compared with a run older than it: whichever takes it second sees the other's commit,
 * so a new run is compared with a late run that has just become analysed, or that run's
 * settlement finds the new run and queues its rebase (docs/ingestion.md "Lock order"). It locks
 * no row.
 */
export async function lockRunHistory(db: Kysely<Database>, repositoryId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${RUN_HISTORY_LOCK_CLASS}, hashtext(${String(repositoryId)}))`.execute(
    db,
  );
}

/**
 * The runs of `run`'s branch whose uploads sent no ancestry (they follow the upload order) placed
 * after it and compared with no run, or with a run placed before it, oldest first: they were made
 * while `run` was not analysed yet, and once it is, it is the newest analysed run before them, the
 * base they would have had (docs/ingestion.md "Where a run stands in the history"). Read without
 * locking them; only runs placed after `run` are read, none for the newest run.
 */
export function findRunsInUploadOrderComparedFurtherBack(
  db: Kysely<Database>,
  run: Pick<AnalysisRunRow, "id" | "repository_id" | "branch_name">,
): Promise<AnalysisRunRow[]> {
  if (run.branch_name === null) return Promise.resolve([]);
  // Compared in the database, which keeps the places' microseconds.
  const place = sql`(SELECT p.placed_at, p.key FROM analysis_runs AS p WHERE p.id = ${run.id})`;
  return db
    .selectFrom("analysis_runs as r")
    .leftJoin("analysis_runs as b", "b.id", "r.base_run_id")
    .selectAll("r")
    .where("r.repository_id", "=", run.repository_id)
    .where("r.branch_name", "=", run.branch_name)
    .where("r.ancestor_oids", "is", null)
    .where(sql<boolean>`(r.placed_at, r.key) > ${place}`)
    .where(sql<boolean>`(b.id IS NULL OR (b.placed_at, b.key) < ${place})`)
    .orderBy("r.created_at")
    .orderBy("r.key")
    .execute();
}

/**
 * The runs of `run`'s repository made for a merge base at its commit (`merge_base_oid`) and
 * compared with another commit's run, or with none, oldest first: they were made before `run` was
 * analysed, and are compared with it now (docs/ingestion.md "Where a run stands in the history").
 * Read from `analysis_runs_merge_base_idx`, without locking them.
 */
export function findRunsAwaitingMergeBase(
  db: Kysely<Database>,
  run: Pick<AnalysisRunRow, "id" | "repository_id" | "commit_oid">,
): Promise<AnalysisRunRow[]> {
  return db
    .selectFrom("analysis_runs as r")
    .leftJoin("analysis_runs as b", "b.id", "r.base_run_id")
    .selectAll("r")
    .where("r.repository_id", "=", run.repository_id)
    .where("r.merge_base_oid", "=", run.commit_oid)
    .where("r.id", "<>", run.id)
    .where(sql<boolean>`b.commit_oid IS DISTINCT FROM ${run.commit_oid}`)
    .orderBy("r.created_at")
    .orderBy("r.key")
    .execute();
}

/** Records where run `runId`'s commit meets its base branch (an upload that attached it to its pull request said). */
export async function updateRunMergeBase(
  db: Kysely<Database>,
  runId: string,
  mergeBaseOid: string,
): Promise<void> {
  await db
    .updateTable("analysis_runs")
    .set({ merge_base_oid: mergeBaseOid })
    .where("id", "=", runId)
    .execute();
}

/**
 * The runs of `run`'s branch that descend from its commit (they list it among their ancestors and
 * stand after it) and are compared with no run, or with a run farther back in their history than
 * `run` (one they list after its commit, or do not list at all), oldest first: once `run` is
 * analysed, it is a nearer analysed ancestor than their base, and they are compared with it again
 * (docs/ingestion.md "Where a run stands in the history"). Read without locking them.
 */
export function findDescendantRunsComparedFurtherBack(
  db: Kysely<Database>,
  run: Pick<AnalysisRunRow, "id" | "repository_id" | "branch_name" | "commit_oid">,
): Promise<AnalysisRunRow[]> {
  if (run.branch_name === null) return Promise.resolve([]);
  const commit = sql`cast(${[run.commit_oid]} as text[])`;
  return (
    db
      .selectFrom("analysis_runs as d")
      .leftJoin("analysis_runs as b", "b.id", "d.base_run_id")
      .selectAll("d")
      .where("d.repository_id", "=", run.repository_id)
      .where("d.branch_name", "=", run.branch_name)
      .where("d.id", "<>", run.id)
      .where(sql<boolean>`d.ancestor_oids @> ${commit}`)
      // Compared in the database, which keeps the places' microseconds.
      .where(
        sql<boolean>`(d.placed_at, d.key) > (SELECT p.placed_at, p.key FROM analysis_runs AS p WHERE p.id = ${run.id})`,
      )
      .where(
        sql<boolean>`coalesce(array_position(d.ancestor_oids, b.commit_oid), 2147483647)
        > array_position(d.ancestor_oids, cast(${run.commit_oid} as text))`,
      )
      .orderBy("d.created_at")
      .orderBy("d.key")
      .execute()
  );
}
