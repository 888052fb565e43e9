import { type Kysely, type RawBuilder, sql } from "kysely";

/**
 * Findings stored twice before `ALREADY_REPORTED` (docs/ingestion.md "The same findings reported
 * twice"). Before a finding a check already held was left out, a check that got the same SARIF
 * findings from two artifacts (a CI job run again) stored both rows, and the next run copied each
 * of them as RESOLVED when the finding was gone. This makes such data what today's processing of
 * the same reports writes:
 *
 * 1. Among a check's published, non-RESOLVED rows (those of no artifact, or of an artifact not
 *    QUEUED: `isPublished`), the rows of each fingerprint are kept for its first holder only:
 *    findings of no artifact first (the demo's), then the artifacts in the order they were
 *    published (`processed_at`, then upload order). Today a later artifact's row is left out when
 *    an earlier published one has its fingerprint, so that holder's row is the one kept, with its
 *    suppression and severity. Rows of QUEUED artifacts are not touched.
 * 2. A check's RESOLVED rows of one fingerprint are kept once: a fingerprint names one finding of a
 *    report (identical findings differ by their ordinal), so only a doubled base gave two. The copy
 *    kept is the one equal to the row its base run's check keeps, else the first copied.
 * 3. What was derived from the deleted rows is written again for those checks only: the artifact
 *    whose rows went counts them as skipped `ALREADY_REPORTED` with the warning naming the holder,
 *    its `suppressed` and the check's `introduced`, `existing` and `resolved` as of each later
 *    publication lose them; the checks' issue counts are recounted; the repositories' announced
 *    issues (migration 0022) lose the rows of their current checks, which their last announcement
 *    counted. Summaries, `Repository.issues` and the reports read these, so they follow.
 *    Statuses stay: a finding counted twice fails a gate exactly when it fails it once.
 *
 * Only checks with two holders of published findings are read, and every step is one statement
 * over them. Running it again finds nothing to do. Self-contained on purpose: the rules are
 * copied as they stand at this migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (statement: RawBuilder<unknown>) => statement.execute(db);
  await run(sql`DROP TABLE IF EXISTS twice_checks, twice_dropped`);
  // Checks in which two holders may share a fingerprint: two published reports of findings, or
  // one and findings of no artifact.
  await run(sql`
    CREATE TEMPORARY TABLE twice_checks AS
    SELECT a.check_id FROM artifacts AS a
    WHERE a.check_id IS NOT NULL AND a.kind = 'SARIF' AND a.status <> 'QUEUED'
    GROUP BY a.check_id
    HAVING count(*) > 1 OR EXISTS (SELECT 1 FROM occurrences AS o
      WHERE o.check_id = a.check_id AND o.artifact_id IS NULL AND o.state <> 'RESOLVED')`);
  await run(sql`
    CREATE TEMPORARY TABLE twice_dropped (
      check_id bigint NOT NULL,
      artifact_id bigint,
      holder_id bigint,
      issue_id bigint NOT NULL,
      state text NOT NULL,
      is_suppressed boolean NOT NULL
    )`);
  await dropLaterHolders(db);
  await dropResolvedCopies(db);
  await rewriteArtifactResults(db);
  await run(sql`
    DELETE FROM check_issue_counts WHERE check_id IN (SELECT DISTINCT check_id FROM twice_dropped)`);
  await run(sql`
    INSERT INTO check_issue_counts (check_id, issue_id, severity, state, is_suppressed, occurrences)
    SELECT o.check_id, o.issue_id, o.severity, o.state, o.is_suppressed, count(*)
    FROM occurrences AS o
    WHERE o.check_id IN (SELECT DISTINCT check_id FROM twice_dropped)
      AND (o.artifact_id IS NULL OR o.artifact_id NOT IN (SELECT q.id FROM artifacts AS q WHERE q.status = 'QUEUED'))
    GROUP BY o.check_id, o.issue_id, o.severity, o.state, o.is_suppressed`);
  await lowerAnnouncedOccurrences(db);
  await run(sql`DROP TABLE twice_checks, twice_dropped`);
}

/** Step 1: deletes the published non-RESOLVED rows of a fingerprint that a holder published before. */
async function dropLaterHolders(db: Kysely<unknown>): Promise<void> {
  await sql`
    WITH held AS (
      SELECT o.id, o.artifact_id,
        first_value(o.artifact_id) OVER (PARTITION BY o.check_id, o.fingerprint
          ORDER BY o.artifact_id IS NOT NULL, a.processed_at, o.artifact_id) AS holder_id
      FROM twice_checks AS k
      JOIN occurrences AS o ON o.check_id = k.check_id AND o.state <> 'RESOLVED'
      LEFT JOIN artifacts AS a ON a.id = o.artifact_id
      WHERE o.artifact_id IS NULL OR a.status <> 'QUEUED'
    ), dropped AS (
      DELETE FROM occurrences AS d USING held AS h
      WHERE d.id = h.id AND h.artifact_id IS DISTINCT FROM h.holder_id
      RETURNING d.check_id, d.artifact_id, h.holder_id, d.issue_id, d.state, d.is_suppressed
    )
    INSERT INTO twice_dropped (check_id, artifact_id, holder_id, issue_id, state, is_suppressed)
    SELECT check_id, artifact_id, holder_id, issue_id, state, is_suppressed FROM dropped`.execute(db);
}

/**
 * Step 2: deletes all but one RESOLVED row of a fingerprint in the checks of the repositories and
 * analyzers of the checks step 1 repaired: only a base that had rows to drop there can have been
 * copied twice, into a later check of its analyzer.
 */
async function dropResolvedCopies(db: Kysely<unknown>): Promise<void> {
  await sql`
    WITH pairs AS (
      SELECT DISTINCT c.repository_id, c.analyzer_id FROM twice_dropped AS d JOIN checks AS c ON c.id = d.check_id
    ), doubled AS (
      SELECT o.check_id, o.fingerprint
      FROM pairs AS p
      JOIN checks AS c ON c.repository_id = p.repository_id AND c.analyzer_id = p.analyzer_id
      JOIN occurrences AS o ON o.check_id = c.id AND o.state = 'RESOLVED'
      GROUP BY o.check_id, o.fingerprint
      HAVING count(*) > 1
    ), ranked AS (
      SELECT o.id, row_number() OVER (PARTITION BY o.check_id, o.fingerprint
        ORDER BY kept.same IS NULL, o.id) AS n
      FROM doubled AS x
      JOIN occurrences AS o ON o.check_id = x.check_id AND o.fingerprint = x.fingerprint AND o.state = 'RESOLVED'
      JOIN checks AS c ON c.id = o.check_id
      JOIN analysis_runs AS r ON r.id = c.run_id
      LEFT JOIN LATERAL (
        SELECT true AS same FROM checks AS bc
        JOIN occurrences AS b ON b.check_id = bc.id AND b.fingerprint = o.fingerprint AND b.state <> 'RESOLVED'
        WHERE bc.run_id = r.base_run_id AND bc.analyzer_id = c.analyzer_id
          AND b.issue_id = o.issue_id AND b.path = o.path AND b.title = o.title
          AND b.begin_line = o.begin_line AND b.begin_column = o.begin_column
          AND b.end_line = o.end_line AND b.end_column = o.end_column
          AND b.is_suppressed = o.is_suppressed AND b.severity IS NOT DISTINCT FROM o.severity
        LIMIT 1
      ) AS kept ON true
    ), dropped AS (
      DELETE FROM occurrences AS d USING ranked AS r WHERE d.id = r.id AND r.n > 1
      RETURNING d.check_id, d.issue_id, d.state, d.is_suppressed
    )
    INSERT INTO twice_dropped (check_id, artifact_id, holder_id, issue_id, state, is_suppressed)
    SELECT check_id, NULL, NULL, issue_id, state, is_suppressed FROM dropped`.execute(db);
}

/**
 * Step 3, artifacts: each processed artifact of a check that lost rows gets the result today's
 * processing gives it. The one whose rows went: `stored` less them, skipped `ALREADY_REPORTED`
 * more, `counts.suppressed` less the suppressed among them, and one warning per holder (in
 * holder order, within the 20 kept). Each: the check's `introduced` and `existing` as of its
 * publication less the rows dropped of artifacts published up to it, and `resolved` less the
 * RESOLVED copies dropped. Count keys an older result lacks stay absent.
 */
async function rewriteArtifactResults(db: Kysely<unknown>): Promise<void> {
  await sql`
    WITH lost_by_holder AS (
      SELECT d.artifact_id, d.holder_id, count(*)::int AS findings,
        (count(*) FILTER (WHERE d.is_suppressed))::int AS suppressed
      FROM twice_dropped AS d WHERE d.state <> 'RESOLVED'
      GROUP BY d.artifact_id, d.holder_id
    ), lost AS (
      SELECT l.artifact_id, sum(l.findings)::int AS findings, sum(l.suppressed)::int AS suppressed,
        jsonb_agg(to_jsonb(l.findings || ' result(s) were already ' || CASE WHEN h.key IS NULL
            THEN 'among the check''s findings'
            ELSE 'reported by artifact '
              || replace(encode(convert_to('Artifact:' || h.key, 'UTF8'), 'base64'), E'\n', '')
              || ' of this check' END
          || ' (the same findings, by fingerprint) and were not counted again.')
          ORDER BY l.holder_id NULLS FIRST) AS warnings
      FROM lost_by_holder AS l LEFT JOIN artifacts AS h ON h.id = l.holder_id
      GROUP BY l.artifact_id
    ), touched AS (
      SELECT y.id, y.result,
        coalesce(lost.findings, 0) AS findings, coalesce(lost.suppressed, 0) AS suppressed,
        coalesce(lost.warnings, '[]'::jsonb) AS warnings,
        (SELECT count(*) FROM twice_dropped AS d JOIN artifacts AS da ON da.id = d.artifact_id
          WHERE d.check_id = y.check_id AND d.state = 'INTRODUCED'
            AND (coalesce(da.processed_at, 'infinity'), da.id) <= (coalesce(y.processed_at, 'infinity'), y.id)
        )::int AS introduced,
        (SELECT count(*) FROM twice_dropped AS d JOIN artifacts AS da ON da.id = d.artifact_id
          WHERE d.check_id = y.check_id AND d.state = 'EXISTING'
            AND (coalesce(da.processed_at, 'infinity'), da.id) <= (coalesce(y.processed_at, 'infinity'), y.id)
        )::int AS existing,
        (SELECT count(*) FROM twice_dropped AS d WHERE d.check_id = y.check_id AND d.state = 'RESOLVED')::int AS resolved
      FROM artifacts AS y LEFT JOIN lost ON lost.artifact_id = y.id
      WHERE y.status = 'PROCESSED' AND jsonb_typeof(y.result) = 'object'
        AND y.check_id IN (SELECT DISTINCT check_id FROM twice_dropped)
    ), warned AS (
      SELECT t.*, ${keptWarnings(sql`coalesce(t.result -> 'warnings', '[]'::jsonb)`, sql`t.warnings`)} AS all_warnings
      FROM touched AS t
    )
    UPDATE artifacts AS a
    SET result = w.result
      || CASE WHEN w.findings = 0 THEN '{}'::jsonb ELSE jsonb_build_object(
        'stored', (w.result ->> 'stored')::int - w.findings,
        'skipped', coalesce(w.result -> 'skipped', '{}'::jsonb) || jsonb_build_object('ALREADY_REPORTED',
          coalesce((w.result -> 'skipped' ->> 'ALREADY_REPORTED')::int, 0) + w.findings),
        'warnings', w.all_warnings) END
      || CASE WHEN jsonb_typeof(w.result -> 'counts') <> 'object' THEN '{}'::jsonb ELSE jsonb_build_object(
        'counts', w.result -> 'counts'
          ${lessCount("suppressed", sql`w.suppressed`)}
          ${lessCount("introduced", sql`w.introduced`)}
          ${lessCount("existing", sql`w.existing`)}
          ${lessCount("resolved", sql`w.resolved`)}) END
    FROM warned AS w
    WHERE a.id = w.id AND (w.findings + w.introduced + w.existing + w.resolved) > 0`.execute(db);
}

/** `|| {key: value - by}` on a jsonb counts object when it has `key`, as SQL after the object. */
function lessCount(key: string, by: RawBuilder<unknown>): RawBuilder<unknown> {
  const value = sql`(w.result -> 'counts' ->> ${sql.lit(key)})`;
  return sql`|| CASE WHEN ${value} IS NULL THEN '{}'::jsonb
    ELSE jsonb_build_object(${sql.lit(key)}, ${value}::int - ${by}) END`;
}

/** Processing keeps this many warnings and then says how many more it left out. */
const MAX_WARNINGS = 20;

/**
 * `old` warnings with `added` after them as processing keeps them: the first {@link MAX_WARNINGS},
 * then "N more warning(s) left out." when there were more (counting those `old` left out).
 */
function keptWarnings(old: RawBuilder<unknown>, added: RawBuilder<unknown>): RawBuilder<unknown> {
  const leftOutLine = sql`(${old} ->> (-1)) ~ '^[0-9]+ more warning\\(s\\) left out\\.$'`;
  const before = sql`(CASE WHEN ${leftOutLine} THEN split_part(${old} ->> (-1), ' ', 1)::int ELSE 0 END)`;
  const kept = sql`(CASE WHEN ${leftOutLine} THEN ${old} - (-1) ELSE ${old} END || ${added})`;
  return sql`(SELECT CASE WHEN ${before} + greatest(jsonb_array_length(${kept}) - ${sql.lit(MAX_WARNINGS)}, 0) = 0 THEN ${kept}
    ELSE coalesce((SELECT jsonb_agg(e.value ORDER BY e.n) FROM jsonb_array_elements(${kept}) WITH ORDINALITY AS e(value, n)
        WHERE e.n <= ${sql.lit(MAX_WARNINGS)}), '[]'::jsonb)
      || to_jsonb((${before} + greatest(jsonb_array_length(${kept}) - ${sql.lit(MAX_WARNINGS)}, 0)) || ' more warning(s) left out.')
    END)`;
}

/**
 * Step 3, announcements: a repository's announced occurrences of an issue lose the rows dropped
 * from its current checks (per analyzer, the newest conclusive check of an analysed run on the
 * default branch), which the announcement made when they became current counted.
 */
async function lowerAnnouncedOccurrences(db: Kysely<unknown>): Promise<void> {
  await sql`
    WITH pairs AS (
      SELECT DISTINCT c.repository_id, c.analyzer_id
      FROM twice_dropped AS d JOIN checks AS c ON c.id = d.check_id WHERE d.state <> 'RESOLVED'
    ), current AS (
      SELECT DISTINCT ON (c.repository_id, c.analyzer_id) c.id, c.repository_id
      FROM pairs AS p
      JOIN repositories AS repo ON repo.id = p.repository_id
      JOIN checks AS c ON c.repository_id = p.repository_id AND c.analyzer_id = p.analyzer_id
        AND c.branch_name = repo.default_branch
      JOIN analysis_runs AS r ON r.id = c.run_id
      WHERE (r.status IN ('SUCCESS', 'FAILURE') OR r.reopened_from IN ('SUCCESS', 'FAILURE'))
        AND (c.status IN ('SUCCESS', 'FAILURE') OR c.reopened_from IN ('SUCCESS', 'FAILURE'))
        AND NOT EXISTS (SELECT 1 FROM artifacts AS fa WHERE fa.check_id = c.id AND fa.status = 'FAILED')
      ORDER BY c.repository_id, c.analyzer_id, c.run_created_at DESC, c.run_key DESC
    ), gone AS (
      SELECT cur.repository_id, d.issue_id, count(*)::int AS n
      FROM current AS cur JOIN twice_dropped AS d ON d.check_id = cur.id AND d.state <> 'RESOLVED'
      GROUP BY cur.repository_id, d.issue_id
    )
    UPDATE announced_repository_issues AS a SET occurrences = greatest(a.occurrences - g.n, 1)
    FROM gone AS g WHERE a.repository_id = g.repository_id AND a.issue_id = g.issue_id`.execute(db);
}

/** Nothing to undo: the rows deleted were copies of rows kept. */
export async function down(_db: Kysely<unknown>): Promise<void> {}
