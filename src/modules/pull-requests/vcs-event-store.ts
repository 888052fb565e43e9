import { type Kysely, sql } from "kysely";
import type { AnalysisRunRow, Database, PullRequestRow } from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import { isAnalysedRun } from "../runs/run-store.ts";
import type { PullRequestFacts, VcsEventProvider } from "./vcs-payloads.ts";

/**
 * The SQL of incoming VCS events (docs/vcs-events.md): the deliveries already applied, branch
 * heads, and pull requests as the providers report them. Secrets: vcs-secret-store.ts.
 */

/**
 * Records the delivery as applied; false when it already was (a replay or a provider's retry).
 * The caller's transaction makes the record and the change it applies one.
 */
export async function recordVcsDelivery(
  tx: Kysely<Database>,
  delivery: { repositoryId: string; deliveryId: string; provider: VcsEventProvider; event: string },
): Promise<boolean> {
  const inserted = await tx
    .insertInto("vcs_deliveries")
    .values({
      repository_id: delivery.repositoryId,
      delivery_id: delivery.deliveryId,
      provider: delivery.provider,
      event: delivery.event.slice(0, 100),
    })
    .onConflict((oc) => oc.columns(["repository_id", "delivery_id"]).doNothing())
    .returning("delivery_id")
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Forgets deliveries received more than `days` days ago (a few hundred at a time). */
export async function pruneVcsDeliveries(tx: Kysely<Database>, days: number): Promise<void> {
  await sql`
    DELETE FROM vcs_deliveries
    WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM vcs_deliveries
      WHERE received_at < now() - make_interval(days => ${days})
      LIMIT 500))`.execute(tx);
}

/** The pull request `number` of the repository, locked for the change that follows. */
export function lockPullRequest(
  tx: Kysely<Database>,
  repositoryId: string,
  number: number,
): Promise<PullRequestRow | undefined> {
  return tx
    .selectFrom("pull_requests")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where("number", "=", number)
    .forUpdate()
    .executeTakeFirst();
}

/** The columns an event sets on a pull request. */
function pullRequestColumns(facts: PullRequestFacts) {
  return {
    title: facts.title,
    state: facts.state,
    branch: facts.branch,
    base_branch: facts.baseBranch,
    head_commit_oid: facts.headCommitOid,
    base_commit_oid: facts.baseCommitOid,
    merge_base_oid: facts.mergeBaseOid,
    vcs_url: facts.url,
    vcs_updated_at: facts.updatedAt,
    is_cross_repository: facts.isCrossRepository ?? false,
    head_repository: facts.isCrossRepository ? facts.headRepository : null,
  };
}

/** Creates the repository's pull request from an event. */
export function insertPullRequest(
  tx: Kysely<Database>,
  repositoryId: string,
  facts: PullRequestFacts,
): Promise<PullRequestRow> {
  return tx
    .insertInto("pull_requests")
    .values({
      key: newRowKey(),
      repository_id: repositoryId,
      number: facts.number,
      ...pullRequestColumns(facts),
      ...(facts.createdAt ? { created_at: facts.createdAt } : {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Applies an event to a stored pull request. What the event does not say (a GitHub event has no
 * merge base) keeps its stored value.
 */
export function updatePullRequest(
  tx: Kysely<Database>,
  pullRequestId: string,
  facts: PullRequestFacts,
): Promise<PullRequestRow> {
  const columns = pullRequestColumns(facts);
  return tx
    .updateTable("pull_requests")
    .set({
      ...columns,
      title: facts.title ?? sql<string | null>`title`,
      branch: facts.branch ?? sql<string | null>`branch`,
      base_branch: facts.baseBranch ?? sql<string | null>`base_branch`,
      head_commit_oid: facts.headCommitOid ?? sql<string | null>`head_commit_oid`,
      base_commit_oid: facts.baseCommitOid ?? sql<string | null>`base_commit_oid`,
      merge_base_oid: facts.mergeBaseOid ?? sql<string | null>`merge_base_oid`,
      vcs_url: facts.url ?? sql<string | null>`vcs_url`,
      vcs_updated_at: facts.updatedAt ?? sql<Date | null>`vcs_updated_at`,
      // An event that does not say where the head is keeps what was stored; one that says it is
      // a fork without naming it (deleted since) keeps the name.
      is_cross_repository: facts.isCrossRepository ?? sql<boolean>`is_cross_repository`,
      head_repository:
        facts.isCrossRepository === null
          ? sql<string | null>`head_repository`
          : facts.isCrossRepository
            ? (facts.headRepository ?? sql<string | null>`head_repository`)
            : null,
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", pullRequestId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Full object ids are 40 (SHA-1) or 64 (SHA-256) hex digits; anything shorter is abbreviated. */
const FULL_OID_LENGTH = 40;

/** Matches the runs of `commitOid`; an abbreviated id matches those whose commit starts with it. */
function ofCommit(commitOid: string) {
  return commitOid.length < FULL_OID_LENGTH
    ? sql<boolean>`starts_with(commit_oid, ${commitOid})`
    : sql<boolean>`commit_oid = ${commitOid}`;
}

/**
 * The ids of the repository's runs of `commitOid` that {@link attachRunsOfCommit} leaves with
 * `pullRequestId`: those of no pull request and those already of it. Under the repository's lock
 * the answer stays true until the attachment (every writer of a run's pull request takes it).
 */
export async function findRunsOfCommitForPullRequest(
  tx: Kysely<Database>,
  repositoryId: string,
  commitOid: string,
  pullRequestId: string,
): Promise<string[]> {
  const rows = await tx
    .selectFrom("analysis_runs")
    .select("id")
    .where("repository_id", "=", repositoryId)
    .where(ofCommit(commitOid))
    .where((eb) => eb.or([eb("pull_request_id", "is", null), eb("pull_request_id", "=", pullRequestId)]))
    .orderBy("id")
    .execute();
  return rows.map((row) => String(row.id));
}

/**
 * Attaches the repository's runs of `commitOid` that belong to no pull request yet to
 * `pullRequestId` (runs uploaded before the provider's event arrived). An abbreviated id
 * (Bitbucket's pull request payloads) matches the runs whose commit starts with it.
 */
export async function attachRunsOfCommit(
  tx: Kysely<Database>,
  repositoryId: string,
  commitOid: string,
  pullRequestId: string,
): Promise<void> {
  await tx
    .updateTable("analysis_runs")
    .set({ pull_request_id: pullRequestId })
    .where("repository_id", "=", repositoryId)
    .where(ofCommit(commitOid))
    .where("pull_request_id", "is", null)
    .execute();
}

/**
 * Records a branch's head. A push the provider dated earlier than the stored one is ignored (an
 * out-of-order delivery); undated pushes apply in the order they arrive.
 */
export async function upsertBranchHead(
  tx: Kysely<Database>,
  head: { repositoryId: string; branch: string; commitOid: string; pushedAt: Date | null },
): Promise<void> {
  await tx
    .insertInto("branch_heads")
    .values({
      repository_id: head.repositoryId,
      branch: head.branch,
      commit_oid: head.commitOid,
      pushed_at: head.pushedAt,
    })
    .onConflict((oc) =>
      oc
        .columns(["repository_id", "branch"])
        .doUpdateSet({
          commit_oid: head.commitOid,
          pushed_at: head.pushedAt,
          updated_at: sql<Date>`now()`,
        })
        .where(
          sql<boolean>`branch_heads.pushed_at IS NULL OR cast(${head.pushedAt} as timestamptz) IS NULL OR branch_heads.pushed_at <= cast(${head.pushedAt} as timestamptz)`,
        ),
    )
    .execute();
}

/** Forgets a deleted branch's head. */
export async function deleteBranchHead(
  tx: Kysely<Database>,
  repositoryId: string,
  branch: string,
): Promise<void> {
  await tx
    .deleteFrom("branch_heads")
    .where("repository_id", "=", repositoryId)
    .where("branch", "=", branch)
    .execute();
}

/** The head of each branch of the repository (tests and the CLI read them). */
export function findBranchHeads(
  db: Kysely<Database>,
  repositoryId: string,
): Promise<Array<{ branch: string; commit_oid: string }>> {
  return db
    .selectFrom("branch_heads")
    .select(["branch", "commit_oid"])
    .where("repository_id", "=", repositoryId)
    .orderBy("branch")
    .execute();
}

/**
 * The open pull request whose head is `commitOid`, if any (the newest when several are); a run of
 * that commit belongs to it. A head stored abbreviated matches the commits it abbreviates.
 */
export function findOpenPullRequestOfHead(
  db: Kysely<Database>,
  repositoryId: string,
  commitOid: string,
): Promise<PullRequestRow | undefined> {
  return db
    .selectFrom("pull_requests")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where((eb) =>
      eb.or([
        eb("head_commit_oid", "=", commitOid),
        // A head the provider abbreviated (Bitbucket) is a prefix of the run's full id.
        sql<boolean>`(length(head_commit_oid) < ${FULL_OID_LENGTH} AND starts_with(${commitOid}, head_commit_oid))`,
      ]),
    )
    .where("state", "=", "OPEN")
    .orderBy("created_at", "desc")
    .orderBy("key", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** The repository's pull request `number`, if it exists. */
export function findPullRequestByNumber(
  db: Kysely<Database>,
  repositoryId: string,
  number: number,
): Promise<PullRequestRow | undefined> {
  return db
    .selectFrom("pull_requests")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where("number", "=", number)
    .executeTakeFirst();
}

/**
 * The run a pull request's run compares with: the analysed run of the merge base when one
 * exists, else the newest analysed run on the base branch (`isAnalysedRun`).
 */
export async function findPullRequestBaseRun(
  db: Kysely<Database>,
  repositoryId: string,
  baseBranch: string,
  mergeBaseOid: string | null,
): Promise<AnalysisRunRow | undefined> {
  const ofMergeBase = mergeBaseOid ? await findSettledRunOfCommit(db, repositoryId, mergeBaseOid) : undefined;
  return ofMergeBase ?? findLatestSettledRunOfBranch(db, repositoryId, baseBranch);
}

/** The repository's latest analysed run of `commitOid`, if any. */
export function findSettledRunOfCommit(
  db: Kysely<Database>,
  repositoryId: string,
  commitOid: string,
): Promise<AnalysisRunRow | undefined> {
  return latestSettledRun(db, repositoryId, "commit_oid", commitOid);
}

/** The repository's latest analysed run on `branch`, if any. */
export function findLatestSettledRunOfBranch(
  db: Kysely<Database>,
  repositoryId: string,
  branch: string,
): Promise<AnalysisRunRow | undefined> {
  return latestSettledRun(db, repositoryId, "branch_name", branch);
}

/**
 * The repository's latest analysed run on `branch` placed before `run` in its history
 * (`placed_at`, docs/ingestion.md "Where a run stands in the history"), if any: the base a run of that branch would have had without the
 * runs that left the branch since.
 */
export function findLatestSettledRunOfBranchBefore(
  db: Kysely<Database>,
  repositoryId: string,
  branch: string,
  run: Pick<AnalysisRunRow, "id">,
): Promise<AnalysisRunRow | undefined> {
  // The order is read from the stored row: a JavaScript date drops the microseconds.
  return db
    .selectFrom("analysis_runs")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where("branch_name", "=", branch)
    .where(isAnalysedRun("analysis_runs"))
    .where(
      sql<boolean>`(placed_at, key) < (SELECT r.placed_at, r.key FROM analysis_runs AS r WHERE r.id = ${run.id})`,
    )
    .orderBy("placed_at", "desc")
    .orderBy("key", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** The head commit a push last reported for the repository's `branch`, if any. */
export async function findBranchHead(
  db: Kysely<Database>,
  repositoryId: string,
  branch: string,
): Promise<string | undefined> {
  const head = await db
    .selectFrom("branch_heads")
    .select("commit_oid")
    .where("repository_id", "=", repositoryId)
    .where("branch", "=", branch)
    .executeTakeFirst();
  return head?.commit_oid;
}

/**
 * The repository's latest analysed run (`isAnalysedRun`) whose `column` is `value`, in history
 * order (`placed_at`).
 */
function latestSettledRun(
  db: Kysely<Database>,
  repositoryId: string,
  column: "commit_oid" | "branch_name",
  value: string,
): Promise<AnalysisRunRow | undefined> {
  return db
    .selectFrom("analysis_runs")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where(column, "=", value)
    .where(isAnalysedRun("analysis_runs"))
    .orderBy("placed_at", "desc")
    .orderBy("key", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** A pull request by internal id, if it exists. */
export function findPullRequestById(
  db: Kysely<Database>,
  pullRequestId: string,
): Promise<PullRequestRow | undefined> {
  return db.selectFrom("pull_requests").selectAll().where("id", "=", pullRequestId).executeTakeFirst();
}

/**
 * Creates pull request `number` from an upload that names it before any provider event did: no
 * title, OPEN, with the upload's branch, base branch, commit and merge base.
 */
export function insertPullRequestOfUpload(
  tx: Kysely<Database>,
  repositoryId: string,
  upload: {
    number: number;
    branch: string | null;
    baseBranch: string | null;
    commitOid: string;
    mergeBaseOid: string | null;
  },
): Promise<PullRequestRow> {
  return tx
    .insertInto("pull_requests")
    .values({
      key: newRowKey(),
      repository_id: repositoryId,
      number: upload.number,
      branch: upload.branch,
      base_branch: upload.baseBranch,
      head_commit_oid: upload.commitOid,
      merge_base_oid: upload.mergeBaseOid,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Moves a pull request that no provider event manages (`vcs_updated_at` null) to the head an
 * upload names, with the merge base it names (for the same head, the one an earlier upload named
 * when it names none); a provider-managed one is left as its provider reported it.
 */
export async function updatePullRequestOfUpload(
  tx: Kysely<Database>,
  pullRequestId: string,
  upload: {
    branch: string | null;
    baseBranch: string | null;
    commitOid: string;
    mergeBaseOid: string | null;
  },
): Promise<PullRequestRow> {
  return tx
    .updateTable("pull_requests")
    .set({
      head_commit_oid: upload.commitOid,
      branch: upload.branch ?? sql<string | null>`branch`,
      base_branch: upload.baseBranch ?? sql<string | null>`base_branch`,
      // Kept for another upload of the same head that names none; an earlier head's is not this one's.
      merge_base_oid:
        upload.mergeBaseOid ??
        sql<string | null>`CASE WHEN head_commit_oid = ${upload.commitOid} THEN merge_base_oid END`,
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", pullRequestId)
    .where("vcs_updated_at", "is", null)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Sets a run's pull request. */
export async function setRunPullRequest(
  tx: Kysely<Database>,
  runId: string,
  pullRequestId: string,
): Promise<AnalysisRunRow> {
  return tx
    .updateTable("analysis_runs")
    .set({ pull_request_id: pullRequestId })
    .where("id", "=", runId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
