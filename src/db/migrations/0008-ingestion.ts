import { type Kysely, sql } from "kysely";

/**
 * Ingestion (docs/ingestion.md): uploaded artifacts and their bytes, the run's base and deadline,
 * which artifact each occurrence came from, and per-file coverage.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (statement: ReturnType<typeof sql>) => statement.execute(db);

  // The run a run was compared with (the default branch's last analysed run when it was
  // created), and when its WAITING checks time out (null: nothing expected).
  await run(
    sql`ALTER TABLE analysis_runs ADD COLUMN base_run_id bigint REFERENCES analysis_runs (id) ON DELETE SET NULL`,
  );
  await run(sql`ALTER TABLE analysis_runs ADD COLUMN deadline_at timestamptz`);
  await run(
    sql`CREATE INDEX analysis_runs_repository_commit_idx ON analysis_runs (repository_id, commit_oid)`,
  );
  await run(sql`CREATE INDEX analysis_runs_base_run_idx ON analysis_runs (base_run_id)`);

  // One upload. `kind` follows from the analyzer: SARIF findings, a coverage report, or the run's
  // changed lines (a unified diff or JSON ranges) for new-code coverage. The bytes are kept as
  // received after base64 decoding (`compression` says how to read them), in chunks, so any
  // instance can stream them back with bounded memory.
  await run(sql`
    CREATE TABLE artifacts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      run_id bigint NOT NULL REFERENCES analysis_runs (id) ON DELETE CASCADE,
      check_id bigint REFERENCES checks (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('SARIF', 'COVERAGE', 'CHANGES')),
      analyzer text NOT NULL,
      analyzer_type text,
      language_key text,
      reporter text NOT NULL,
      reporter_version text,
      work_dir text,
      compression text NOT NULL CHECK (compression IN ('NONE', 'ZSTD', 'GZIP')),
      stored_bytes bigint NOT NULL,
      content_sha256 bytea NOT NULL,
      status text NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED', 'PROCESSED', 'FAILED')),
      error text,
      result jsonb,
      uploaded_by bigint REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      processed_at timestamptz,
      CHECK ((kind = 'CHANGES') = (check_id IS NULL))
    )`);
  // The same bytes uploaded twice for one check or run (a retried CI step) are one artifact.
  await run(
    sql`CREATE UNIQUE INDEX artifacts_content_idx ON artifacts (run_id, analyzer, coalesce(language_key, ''), content_sha256)`,
  );
  await run(sql`CREATE INDEX artifacts_check_idx ON artifacts (check_id, id)`);

  await run(sql`
    CREATE TABLE artifact_chunks (
      artifact_id bigint NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
      seq integer NOT NULL,
      data bytea NOT NULL,
      PRIMARY KEY (artifact_id, seq)
    )`);

  // Which upload an occurrence came from; null for RESOLVED rows (copied from the base) and for
  // rows written otherwise (the demo seed).
  await run(
    sql`ALTER TABLE occurrences ADD COLUMN artifact_id bigint REFERENCES artifacts (id) ON DELETE CASCADE`,
  );
  await run(sql`CREATE INDEX occurrences_artifact_idx ON occurrences (artifact_id)`);

  // A repository's metric history and latest values are its default branch's; values of other
  // branches' runs (pull requests) are kept for their checks and quality gates only.
  await run(sql`ALTER TABLE metric_values ADD COLUMN on_default_branch boolean NOT NULL DEFAULT true`);

  // Coverage of one file in one coverage artifact; the check's totals are sums over its rows.
  // Line numbers (and branches per line) are kept so new-code coverage can be computed when the changed lines arrive.
  await run(sql`
    CREATE TABLE coverage_files (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      check_id bigint NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
      artifact_id bigint NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
      language_key text NOT NULL,
      path text NOT NULL,
      lines_total integer NOT NULL,
      lines_covered integer NOT NULL,
      branches_total integer NOT NULL,
      branches_covered integer NOT NULL,
      conditions_total integer,
      conditions_covered integer,
      covered_lines integer[] NOT NULL,
      uncovered_lines integer[] NOT NULL,
      -- Lines with branches, and on each the branches there and those taken (aligned arrays).
      branch_lines integer[] NOT NULL DEFAULT '{}',
      branch_totals integer[] NOT NULL DEFAULT '{}',
      branch_taken integer[] NOT NULL DEFAULT '{}',
      UNIQUE (artifact_id, path)
    )`);
  await run(sql`CREATE INDEX coverage_files_check_idx ON coverage_files (check_id, path)`);
}

/** Drops everything {@link up} created. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS coverage_files`.execute(db);
  await sql`ALTER TABLE metric_values DROP COLUMN IF EXISTS on_default_branch`.execute(db);
  await sql`ALTER TABLE occurrences DROP COLUMN IF EXISTS artifact_id`.execute(db);
  await sql`DROP TABLE IF EXISTS artifact_chunks`.execute(db);
  await sql`DROP TABLE IF EXISTS artifacts`.execute(db);
  await sql`ALTER TABLE analysis_runs DROP COLUMN IF EXISTS deadline_at`.execute(db);
  await sql`ALTER TABLE analysis_runs DROP COLUMN IF EXISTS base_run_id`.execute(db);
}
