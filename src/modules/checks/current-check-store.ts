import { type RawBuilder, sql } from "kysely";
import { isAnalysedRun } from "../runs/run-store.ts";
import { analyzersTurnedOn } from "./analyzer-config-store.ts";

/**
 * A repository's current findings (docs/read-model.md "The repository's current findings"): per
 * analyzer, the findings of its newest check on the default branch that says what the code holds.
 * A later run in which the analyzer's report failed to process, placed nothing (NEUTRAL) or was
 * not sent at all says nothing about the code, so it leaves the analyzer's findings as they were;
 * a later report that says the analyzer found nothing clears them. `Repository.issues`,
 * `issueOccurrences`, `node(id:)` of a `RepositoryIssue`, the repository-issue events and every
 * snapshot report read these checks, through the building blocks below.
 */

/**
 * True for a check whose findings say what the code holds, as a condition on the `checks` row
 * `check`: it finished SUCCESS or FAILURE, or did and is PENDING again while a late artifact is
 * processed (`reopened_from`), and none of its artifacts FAILED to process. The same rule decides
 * a run's base check (`findBaseCheckId`): a reopened check's published findings still say what the
 * code held, so it stays a base.
 */
export function isConclusiveCheck(check: string): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(`${check}.${name}`);
  return sql<boolean>`((${column("status")} IN ('SUCCESS', 'FAILURE') OR ${column("reopened_from")} IN ('SUCCESS', 'FAILURE'))
    AND NOT EXISTS (SELECT 1 FROM artifacts AS fa WHERE fa.check_id = ${column("id")} AND fa.status = 'FAILED'))`;
}

/**
 * The analyzers the configuration of the repository row `repository` turns on, as a one-row
 * subquery with `ids` (null: all of them). OFFSET 0 keeps it read once per repository, not once
 * per check.
 */
function turnedOn(repository: string): RawBuilder<unknown> {
  return sql`(SELECT ${analyzersTurnedOn(repository)} AS ids OFFSET 0)`;
}

/**
 * Every check that can hold the current findings of its analyzer, of the repository row aliased
 * `repository`, as a subquery: the conclusive checks ({@link isConclusiveCheck}) of the analysed
 * runs (`isAnalysedRun`) of its default branch, of the analyzers its configuration turns on (all
 * of them when it lists none: `analyzersTurnedOn`). Columns: `check_id`, `run_id`, `analyzer_id`,
 * and the run's `run_created_at` and `run_key`, which order them. At an instant, the current check
 * of an analyzer is its newest candidate of a run created before it.
 */
export function currentCheckCandidates(repository: string): RawBuilder<unknown> {
  const repo = (name: string) => sql.ref(`${repository}.${name}`);
  return sql`(
    SELECT cc.id AS check_id, cc.run_id, cc.analyzer_id, cc.run_created_at, cc.run_key
    FROM ${turnedOn(repository)} AS turned_on
    JOIN checks AS cc ON cc.repository_id = ${repo("id")} AND cc.branch_name = ${repo("default_branch")}
      AND (turned_on.ids IS NULL OR cc.analyzer_id = ANY(turned_on.ids))
    JOIN analysis_runs AS cr ON cr.id = cc.run_id
    WHERE ${isAnalysedRun("cr")} AND ${isConclusiveCheck("cc")}
  )`;
}

/**
 * The current check of each analyzer of the repository row aliased `repository`, now: its newest
 * candidate ({@link currentCheckCandidates}) in the order `analysisRuns` lists runs. A lateral
 * subquery with the candidates' columns. The analyzers that ever reported on the branch are found
 * by skipping through `checks_branch_analyzer_idx` one analyzer at a time, those the configuration
 * turns off are dropped before their checks are read, and each other one's newest candidate is
 * found by reading that index from its newest check: a few index reads per analyzer, whatever the
 * length of the branch's history (all of an analyzer's checks only when none of them can hold
 * findings, such as an analyzer whose every report failed).
 */
export function currentChecksOf(repository: string): RawBuilder<unknown> {
  const repo = (name: string) => sql.ref(`${repository}.${name}`);
  const nextAnalyzer = (after: RawBuilder<unknown>) => sql`(
    SELECT u.analyzer_id FROM checks AS u
    WHERE u.repository_id = ${repo("id")} AND u.branch_name = ${repo("default_branch")} AND u.analyzer_id > ${after}
    ORDER BY u.analyzer_id LIMIT 1)`;
  return sql`(
    WITH RECURSIVE reported(analyzer_id) AS (
      SELECT ${nextAnalyzer(sql`0`)}
      UNION ALL
      SELECT ${nextAnalyzer(sql`reported.analyzer_id`)} FROM reported WHERE reported.analyzer_id IS NOT NULL
    )
    SELECT newest.*
    FROM ${turnedOn(repository)} AS turned_on
    JOIN reported ON reported.analyzer_id IS NOT NULL
      AND (turned_on.ids IS NULL OR reported.analyzer_id = ANY(turned_on.ids))
    CROSS JOIN LATERAL (
      SELECT cand.* FROM ${currentCheckCandidates(repository)} AS cand
      WHERE cand.analyzer_id = reported.analyzer_id
      ORDER BY cand.run_created_at DESC, cand.run_key DESC
      LIMIT 1
    ) AS newest
  )`;
}
