import { type Insertable, type Kysely, type RawBuilder, sql } from "kysely";
import type {
  CheckRow,
  CheckStatus,
  ChecksTable,
  CoverageReportRow,
  Database,
  IssueCategory,
  IssueSeverity,
} from "../../db/types.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { isConclusiveCheck } from "./current-check-store.ts";

/** The analyzer whose check carries a run's coverage report (`changesetStats`). */
export const COVERAGE_ANALYZER_SHORTCODE = "test-coverage";

/** Checks with these keys in runs of repositories `viewerId` can see. */
export function findVisibleChecksByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<CheckRow[]> {
  return db
    .selectFrom("checks as c")
    .innerJoin("analysis_runs as r", "r.id", "c.run_id")
    .innerJoin("repositories as repo", "repo.id", "r.repository_id")
    .innerJoin("memberships as m", "m.account_id", "repo.account_id")
    .selectAll("c")
    .where("m.user_id", "=", viewerId)
    .where("c.key", "in", keys)
    .execute();
}

/** A run's checks in the order they were scheduled: sequence, then key. Parent: the run id. */
export const checksOfRun: ConnectionSource = {
  name: "checksOfRun",
  from: sql`checks`,
  parentColumn: "run_id",
  order: [
    { column: "sequence", kind: "integer" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};

// The three counts of docs/read-model.md, over a check's issue counts aliased `k`
// (issue-count-store.ts): they cost the check's distinct issues, not its findings.
const COUNTS = sql`
  coalesce(sum(k.occurrences) FILTER (WHERE k.state = 'INTRODUCED' AND NOT k.is_suppressed), 0)::int AS introduced,
  coalesce(sum(k.occurrences) FILTER (WHERE k.state = 'RESOLVED'), 0)::int AS resolved,
  coalesce(sum(k.occurrences) FILTER (WHERE k.is_suppressed AND k.state <> 'RESOLVED'), 0)::int AS suppressed`;

/** A finding's severity: its own, else its issue's (docs/ingestion-sarif.md "Classification"). */
const SEVERITY = sql`coalesce(k.severity, i.severity)`;

interface Counts {
  category: IssueCategory;
  severity: IssueSeverity;
  introduced: number;
  resolved: number;
  suppressed: number;
}

/** Occurrence counts of these checks, one row per (check, issue category, severity) that has occurrences. */
export async function countOccurrencesOfChecks(
  db: Kysely<Database>,
  checkIds: readonly string[],
): Promise<Array<Counts & { check_id: string }>> {
  const result = await sql<Counts & { check_id: string }>`
    SELECT k.check_id::text AS check_id, i.category, ${SEVERITY} AS severity, ${COUNTS}
    FROM check_issue_counts AS k
    JOIN issues AS i ON i.id = k.issue_id
    WHERE k.check_id = ANY(cast(${checkIds} as bigint[]))
    GROUP BY k.check_id, i.category, ${SEVERITY}`.execute(db);
  return result.rows;
}

/**
 * Occurrence counts of these runs, one row per (run, analyzer, issue category, severity) that has
 * occurrences.
 */
export async function countOccurrencesOfRuns(
  db: Kysely<Database>,
  runIds: readonly string[],
): Promise<Array<Counts & { run_id: string; analyzer_shortcode: string }>> {
  const result = await sql<Counts & { run_id: string; analyzer_shortcode: string }>`
    SELECT c.run_id::text AS run_id, a.shortcode AS analyzer_shortcode, i.category, ${SEVERITY} AS severity,
      ${COUNTS}
    FROM checks AS c
    JOIN analyzers AS a ON a.id = c.analyzer_id
    JOIN check_issue_counts AS k ON k.check_id = c.id
    JOIN issues AS i ON i.id = k.issue_id
    WHERE c.run_id = ANY(cast(${runIds} as bigint[]))
    GROUP BY c.run_id, a.shortcode, i.category, ${SEVERITY}`.execute(db);
  return result.rows;
}

/** How many vulnerability occurrences the SCA checks of these runs introduced, per run that has any. */
export async function countVulnerabilitiesIntroduced(
  db: Kysely<Database>,
  runIds: readonly string[],
): Promise<Array<{ run_id: string; introduced: number }>> {
  const result = await sql<{ run_id: string; introduced: number }>`
    SELECT sc.run_id::text AS run_id, count(*)::int AS introduced
    FROM sca_checks AS sc
    JOIN vulnerability_occurrences AS vo ON vo.sca_check_id = sc.id
    WHERE sc.run_id = ANY(cast(${runIds} as bigint[])) AND vo.state = 'INTRODUCED'
    GROUP BY sc.run_id`.execute(db);
  return result.rows;
}

/** The coverage report of each of these runs that has one: the report of its `test-coverage` check. */
export async function findCoverageReportsOfRuns(
  db: Kysely<Database>,
  runIds: readonly string[],
): Promise<Array<CoverageReportRow & { run_id: string }>> {
  const result = await sql<CoverageReportRow & { run_id: string }>`
    SELECT c.run_id::text AS run_id, cr.*
    FROM checks AS c
    JOIN analyzers AS a ON a.id = c.analyzer_id AND a.shortcode = ${COVERAGE_ANALYZER_SHORTCODE}
    JOIN coverage_reports AS cr ON cr.check_id = c.id
    WHERE c.run_id = ANY(cast(${runIds} as bigint[]))`.execute(db);
  return result.rows;
}

/**
 * The check of `analyzerId` that a run whose base run is `baseRunId` compares its findings with
 * (docs/ingestion.md "Base"): the newest comparable check of that analyzer among the runs of the
 * base run's branch up to the base run itself. Comparable ({@link isConclusiveCheck}): it finished
 * SUCCESS or FAILURE, or did and a late artifact made it PENDING again (its published findings
 * still say what the code held), and none of its artifacts FAILED. A NEUTRAL check (everything it
 * was sent was skipped), a failed one, or one still running for the first time is walked past.
 * Null when there is none. The checks are walked through `checks_branch_analyzer_idx`, newest run
 * first, so a long history costs the few newest checks of the analyzer.
 */
export async function findBaseCheckId(
  db: Kysely<Database>,
  baseRunId: string,
  analyzerId: string,
): Promise<string | null> {
  const result = await sql<{ id: string | null }>`
    SELECT ${baseCheckOf(sql`${baseRunId}`, sql`${analyzerId}`)}::text AS id`.execute(db);
  return result.rows[0]?.id ?? null;
}

/**
 * {@link findBaseCheckId}, the check found held FOR SHARE until the transaction ends, for a
 * transaction that compares a check with it and records that (`checks.base_check_id`) without
 * holding the base check's run: an artifact's publication, a rebase. A late artifact's settlement
 * that leaves the base check NEUTRAL or failed writes the check's row before it looks for the
 * checks compared with it (`findRunsComparedWithInconclusiveChecksOf`), so it waits for this
 * transaction and then finds its check; or this transaction waits for it, and the base check is
 * found again once the row is held, past a check that stopped being comparable meanwhile
 * (docs/ingestion.md "Lock order").
 */
export async function lockBaseCheckId(
  tx: Kysely<Database>,
  baseRunId: string,
  analyzerId: string,
): Promise<string | null> {
  let found = await findBaseCheckId(tx, baseRunId, analyzerId);
  while (found !== null) {
    await tx.selectFrom("checks").select("id").where("id", "=", found).forShare().execute();
    const again = await findBaseCheckId(tx, baseRunId, analyzerId);
    if (again === found) return found;
    found = again;
  }
  return null;
}

/**
 * How the findings of the checks among `checkIds` that exist were hashed
 * (`checks.fingerprint_version`, migration 0038), by check id.
 */
export async function findFingerprintVersions(
  db: Kysely<Database>,
  checkIds: readonly string[],
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("checks")
    .select(["id", "fingerprint_version"])
    .where("id", "in", checkIds)
    .execute();
  return new Map(rows.map((row) => [String(row.id), row.fingerprint_version]));
}

/**
 * Records the check `checkId`'s findings were compared with (`checks.base_check_id`, migration
 * 0034), whose RESOLVED copies it holds, null for none; and the version of that check's findings
 * ({@link findFindingsVersionOf}) every finding of `checkId` was judged against
 * (`checks.settled_against`, migration 0047), null when some were judged against another. The
 * row is written only when one of them changed.
 */
export async function setCheckBaseCheck(
  tx: Kysely<Database>,
  checkId: string,
  baseCheckId: string | null,
  settledAgainst: string | null,
): Promise<void> {
  await tx
    .updateTable("checks")
    .set({ base_check_id: baseCheckId, settled_against: settledAgainst })
    .where("id", "=", checkId)
    .where((eb) =>
      eb.or([
        eb("base_check_id", "is distinct from", baseCheckId),
        eb("settled_against", "is distinct from", settledAgainst),
      ]),
    )
    .execute();
}

/**
 * What check `checkId`'s findings are, as the base of another check, in a form that changes
 * whenever they may have: the check, its own base check (which its carried findings come from)
 * and all its artifacts, as text; null while one of its artifacts is QUEUED (its staged rows come
 * and go) or when there is no such check, and "" for no check at all (no base). A check's
 * non-RESOLVED findings change only by an artifact (staged, published, or deleted as it fails,
 * each artifact once, and never removed) or by a change of its base check, so two equal versions
 * read at two times mean the same findings at both, and at every time between.
 */
export async function findFindingsVersionOf(
  db: Kysely<Database>,
  checkId: string | null,
): Promise<string | null> {
  if (checkId === null) return "";
  const { rows } = await sql<{ version: string | null }>`
    SELECT CASE WHEN bool_or(a.status = 'QUEUED') THEN NULL
      ELSE c.id::text || '/' || coalesce(c.base_check_id::text, '') || '/'
        || coalesce(string_agg(a.id::text, ',' ORDER BY a.id), '')
    END AS version
    FROM checks AS c LEFT JOIN artifacts AS a ON a.check_id = c.id
    WHERE c.id = ${checkId}
    GROUP BY c.id, c.base_check_id`.execute(db);
  return rows[0]?.version ?? null;
}

/** The version of its base check's findings every finding of `checkId` was last judged against; null when not known. */
export async function findCheckSettledAgainst(db: Kysely<Database>, checkId: string): Promise<string | null> {
  const row = await db
    .selectFrom("checks")
    .select("settled_against")
    .where("id", "=", checkId)
    .executeTakeFirst();
  return row?.settled_against ?? null;
}

/**
 * {@link findBaseCheckId} as a scalar subquery over SQL expressions (a column of the outer query,
 * or a parameter), for a statement that needs the base check of many checks at once; null when
 * the base run is null or has no comparable check of the analyzer.
 */
export function baseCheckOf(
  baseRunId: RawBuilder<unknown>,
  analyzerId: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`(
    SELECT bc.id
    FROM analysis_runs AS base
    JOIN checks AS bc ON bc.repository_id = base.repository_id AND bc.branch_name = base.branch_name
      AND bc.analyzer_id = ${analyzerId} AND (bc.run_created_at, bc.run_key) <= (base.placed_at, base.key)
    WHERE base.id = ${baseRunId} AND ${isConclusiveCheck("bc")}
    ORDER BY bc.run_created_at DESC, bc.run_key DESC
    LIMIT 1)`;
}

/**
 * The runs, other than those compared with run `runId` itself, that compare a check with one of
 * run `runId`'s through a later run of `branch`: {@link findBaseCheckId} takes an analyzer's
 * newest conclusive check on the base run's branch at or before the base run, so a run compared
 * with a run of `branch` made after run `runId`, before that analyzer's next conclusive check on
 * the branch, has run `runId`'s check of the analyzer as its base check. Read to compare them
 * again when run `runId` finishes (it may have come in, or finished, after them: docs/ingestion.md
 * "Where a run stands in the history"), or leaves `branch` (its checks may already have left it).
 */
export async function findRunsReadingBaseChecksOf(
  db: Kysely<Database>,
  runId: string,
  branch: string,
): Promise<string[]> {
  const result = await sql<{ id: string }>`
    SELECT DISTINCT r.id::text AS id
    FROM analysis_runs AS x
    JOIN analysis_runs AS b ON b.repository_id = x.repository_id AND b.branch_name = ${branch}
      AND (b.placed_at, b.key) > (x.placed_at, x.key)
    JOIN analysis_runs AS r ON r.base_run_id = b.id
    JOIN checks AS c ON c.run_id = r.id
    JOIN checks AS xc ON xc.run_id = x.id AND xc.analyzer_id = c.analyzer_id AND ${isConclusiveCheck("xc")}
    WHERE x.id = ${runId}
      AND NOT EXISTS (
        SELECT 1 FROM checks AS n
        WHERE n.repository_id = x.repository_id AND n.branch_name = ${branch} AND n.analyzer_id = c.analyzer_id
          AND (n.run_created_at, n.run_key) > (x.placed_at, x.key)
          AND (n.run_created_at, n.run_key) <= (b.placed_at, b.key)
          AND ${isConclusiveCheck("n")})`.execute(db);
  return result.rows.map((row) => row.id);
}

/**
 * The runs with a findings check compared with a check of run `runId` that is no longer
 * comparable ({@link isConclusiveCheck}): a late artifact failed to process in it, or left it
 * NEUTRAL, so the rule now walks back past it. Their base run is run `runId` or a later run of its
 * branch (through which they read its check), the way to the few runs concerned. Read to compare
 * them again when run `runId` settles (docs/ingestion.md "Where a run stands in the history").
 */
export async function findRunsComparedWithInconclusiveChecksOf(
  db: Kysely<Database>,
  runId: string,
): Promise<string[]> {
  const result = await sql<{ id: string }>`
    SELECT DISTINCT r.id::text AS id
    FROM analysis_runs AS x
    JOIN checks AS xc ON xc.run_id = x.id AND ${isConclusiveCheck("xc")} IS NOT TRUE
    JOIN analysis_runs AS b ON b.repository_id = x.repository_id AND b.branch_name = x.branch_name
      AND (b.placed_at, b.key) >= (x.placed_at, x.key)
    JOIN analysis_runs AS r ON r.base_run_id = b.id
    JOIN checks AS c ON c.run_id = r.id AND c.base_check_id = xc.id
    WHERE x.id = ${runId}`.execute(db);
  return result.rows.map((row) => row.id);
}

export type NewCheck = Insertable<ChecksTable>;

/** A check by internal id; throws when it is gone. */
export function findCheckById(db: Kysely<Database>, checkId: string): Promise<CheckRow> {
  return db.selectFrom("checks").selectAll().where("id", "=", checkId).executeTakeFirstOrThrow();
}

/** A run's checks in their order. */
export function findChecksOfRun(db: Kysely<Database>, runId: string): Promise<CheckRow[]> {
  return db.selectFrom("checks").selectAll().where("run_id", "=", runId).orderBy("sequence").execute();
}

/** The run's check of an analyzer, if it has one. */
export function findCheckOfRunByAnalyzer(
  db: Kysely<Database>,
  runId: string,
  analyzerId: string,
): Promise<CheckRow | undefined> {
  return db
    .selectFrom("checks")
    .selectAll()
    .where("run_id", "=", runId)
    .where("analyzer_id", "=", analyzerId)
    .executeTakeFirst();
}

/** The highest sequence among the run's checks, 0 when it has none. */
export async function findLastCheckSequence(db: Kysely<Database>, runId: string): Promise<number> {
  const last = await db
    .selectFrom("checks")
    .select(sql<number>`coalesce(max(sequence), 0)::int`.as("sequence"))
    .where("run_id", "=", runId)
    .executeTakeFirstOrThrow();
  return last.sequence;
}

/** Inserts a check and returns the stored row. */
export function insertCheck(db: Kysely<Database>, check: NewCheck): Promise<CheckRow> {
  return db.insertInto("checks").values(check).returningAll().executeTakeFirstOrThrow();
}

/**
 * Makes a check PENDING again (not finished); returns the row as it now stands. A finished check
 * keeps the status it had in `reopened_from` until it finishes again (a check already PENDING or
 * WAITING keeps what it had).
 */
export function reopenCheck(db: Kysely<Database>, checkId: string): Promise<CheckRow> {
  return db
    .updateTable("checks")
    .set({
      status: "PENDING",
      finished_at: null,
      reopened_from: sql<CheckStatus | null>`CASE WHEN status IN ('PENDING', 'WAITING') THEN reopened_from ELSE status END`,
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", checkId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Finishes a check with `status` now; returns the row as it now stands. */
export function finishCheck(db: Kysely<Database>, checkId: string, status: CheckStatus): Promise<CheckRow> {
  return db
    .updateTable("checks")
    .set({ status, finished_at: sql<Date>`now()`, reopened_from: null, updated_at: sql<Date>`now()` })
    .where("id", "=", checkId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Finishes the run's WAITING checks as ARTIFACT_TIMEOUT; answers their ids. */
export async function timeOutWaitingChecks(db: Kysely<Database>, runId: string): Promise<string[]> {
  const rows = await db
    .updateTable("checks")
    .set({ status: "ARTIFACT_TIMEOUT", finished_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where("run_id", "=", runId)
    .where("status", "=", "WAITING")
    .returning("id")
    .execute();
  return rows.map((row) => row.id);
}

/** The run's check of the analyzer `shortcode`, with what recomputing its coverage needs of its run. */
export function findCheckOfRunByAnalyzerShortcode(
  db: Kysely<Database>,
  runId: string,
  shortcode: string,
): Promise<
  | {
      id: string;
      repository_id: string;
      commit_oid: string;
      branch_name: string | null;
      default_branch: string | null;
      run_created_at: Date;
    }
  | undefined
> {
  return db
    .selectFrom("checks as c")
    .innerJoin("analyzers as a", "a.id", "c.analyzer_id")
    .innerJoin("analysis_runs as r", "r.id", "c.run_id")
    .innerJoin("repositories as repo", "repo.id", "r.repository_id")
    .select([
      "c.id",
      "r.repository_id",
      "r.commit_oid",
      "r.branch_name",
      "repo.default_branch",
      "r.created_at as run_created_at",
    ])
    .where("c.run_id", "=", runId)
    .where("a.shortcode", "=", shortcode)
    .executeTakeFirst();
}
