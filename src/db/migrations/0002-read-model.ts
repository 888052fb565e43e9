import { type Kysely, sql } from "kysely";

/**
 * Everything the contract reads beyond the foundation: the analyzer and issue catalog, checks and
 * their occurrences, pull requests, metrics, repository settings, ignore rules, team
 * suppressions, code formatters, and the dependency model (packages, versions, vulnerabilities,
 * targets, SCA checks and vulnerability occurrences). See docs/read-model.md.
 *
 * Occurrences carry their `state` against the run's base (INTRODUCED, EXISTING, or RESOLVED for a
 * finding of the base that is gone), so every summary is a count over stored rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (statement: ReturnType<typeof sql>) => statement.execute(db);

  await run(sql`
    CREATE TABLE analyzers (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      shortcode text NOT NULL UNIQUE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      version text NOT NULL DEFAULT '1.0.0',
      meta_schema jsonb NOT NULL DEFAULT '{}'::jsonb,
      example_config text,
      logo_url text,
      type text NOT NULL DEFAULT 'CORE' CHECK (type IN ('CORE', 'COMMUNITY', 'CUSTOM')),
      created_at timestamptz NOT NULL DEFAULT now()
    )`);

  await run(sql`
    CREATE TABLE issues (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      analyzer_id bigint NOT NULL REFERENCES analyzers (id) ON DELETE CASCADE,
      shortcode text NOT NULL,
      title text NOT NULL,
      description text NOT NULL DEFAULT '',
      short_description text NOT NULL DEFAULT '',
      category text NOT NULL CHECK (category IN ('ANTI_PATTERN', 'BUG_RISK', 'PERFORMANCE', 'SECURITY',
        'COVERAGE', 'TYPECHECK', 'STYLE', 'DOCUMENTATION', 'SECRETS')),
      severity text NOT NULL CHECK (severity IN ('CRITICAL', 'MAJOR', 'MINOR')),
      autofix_available boolean NOT NULL DEFAULT false,
      autofix_ai_available boolean,
      is_recommended boolean NOT NULL DEFAULT false,
      tags text[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (analyzer_id, shortcode)
    )`);
  await run(sql`CREATE INDEX issues_shortcode_idx ON issues (shortcode)`);
  await run(sql`CREATE INDEX issues_tags_idx ON issues USING gin (tags)`);

  await run(sql`
    CREATE TABLE code_formatters (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      shortcode text NOT NULL UNIQUE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      example_config text,
      logo_url text,
      analyzer_id bigint REFERENCES analyzers (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await run(sql`CREATE INDEX code_formatters_name_idx ON code_formatters (name, key)`);

  await run(sql`
    CREATE TABLE pull_requests (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      number integer NOT NULL CHECK (number > 0),
      title text,
      branch text,
      base_branch text,
      state text NOT NULL DEFAULT 'OPEN' CHECK (state IN ('OPEN', 'CLOSED', 'MERGED')),
      vcs_url text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (repository_id, number)
    )`);
  await run(
    sql`CREATE INDEX pull_requests_order_idx ON pull_requests (repository_id, created_at DESC, key DESC)`,
  );
  await run(
    sql`CREATE INDEX pull_requests_branch_idx ON pull_requests (repository_id, branch, created_at DESC, key DESC)`,
  );

  await run(
    sql`ALTER TABLE analysis_runs ADD COLUMN pull_request_id bigint REFERENCES pull_requests (id) ON DELETE SET NULL`,
  );
  await run(
    sql`CREATE INDEX analysis_runs_pull_request_idx ON analysis_runs (pull_request_id, created_at DESC, key DESC)`,
  );

  await run(sql`
    CREATE TABLE checks (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      run_id bigint NOT NULL REFERENCES analysis_runs (id) ON DELETE CASCADE,
      analyzer_id bigint NOT NULL REFERENCES analyzers (id),
      sequence integer NOT NULL,
      status text NOT NULL CHECK (status IN ('WAITING', 'PENDING', 'SUCCESS', 'FAILURE', 'TIMEOUT',
        'CANCEL', 'READY', 'NEUTRAL', 'ARTIFACT_TIMEOUT', 'SKIPPED')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      UNIQUE (run_id, analyzer_id)
    )`);
  await run(sql`CREATE INDEX checks_run_order_idx ON checks (run_id, sequence, key)`);

  await run(sql`
    CREATE TABLE occurrences (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      check_id bigint NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
      issue_id bigint NOT NULL REFERENCES issues (id),
      path text NOT NULL,
      begin_line integer NOT NULL,
      begin_column integer NOT NULL DEFAULT 1,
      end_line integer NOT NULL,
      end_column integer NOT NULL DEFAULT 1,
      title text NOT NULL,
      explanation text,
      source text NOT NULL DEFAULT 'STATIC' CHECK (source IN ('STATIC', 'AI')),
      fingerprint text NOT NULL,
      state text NOT NULL CHECK (state IN ('INTRODUCED', 'EXISTING', 'RESOLVED')),
      is_suppressed boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  // A check's findings in reading order (path, line), and the summaries counted per check.
  await run(sql`CREATE INDEX occurrences_check_order_idx ON occurrences (check_id, path, begin_line, key)`);
  await run(sql`CREATE INDEX occurrences_check_issue_idx ON occurrences (check_id, issue_id)`);
  await run(sql`CREATE INDEX occurrences_check_fingerprint_idx ON occurrences (check_id, fingerprint)`);
  await run(sql`CREATE INDEX occurrences_issue_idx ON occurrences (issue_id)`);

  await run(sql`
    CREATE TABLE metrics (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      shortcode text NOT NULL UNIQUE CHECK (shortcode IN
        ('BCV', 'CCV', 'DCV', 'DDP', 'LCV', 'CPCV', 'NLCV', 'NBCV', 'NCCV', 'NCPCV')),
      name text NOT NULL,
      description text NOT NULL,
      positive_direction text NOT NULL CHECK (positive_direction IN ('UPWARD', 'DOWNWARD')),
      unit text,
      min_value_allowed integer,
      max_value_allowed integer
    )`);
  await run(sql`
    INSERT INTO metrics (key, shortcode, name, description, positive_direction, unit, min_value_allowed, max_value_allowed)
    VALUES
      ('mtrlinecov', 'LCV', 'Line Coverage', 'Percentage of executable lines run by the tests.', 'UPWARD', '%', 0, 100),
      ('mtrbranchc', 'BCV', 'Branch Coverage', 'Percentage of branches taken by the tests.', 'UPWARD', '%', 0, 100),
      ('mtrcondcov', 'CCV', 'Condition Coverage', 'Percentage of boolean conditions evaluated both ways by the tests.', 'UPWARD', '%', 0, 100),
      ('mtrcompcov', 'CPCV', 'Composite Coverage', 'Coverage combining lines, branches and conditions.', 'UPWARD', '%', 0, 100),
      ('mtrnewline', 'NLCV', 'New Line Coverage', 'Percentage of lines added or changed in the change set that the tests run.', 'UPWARD', '%', 0, 100),
      ('mtrnewbran', 'NBCV', 'New Branch Coverage', 'Percentage of branches in changed code taken by the tests.', 'UPWARD', '%', 0, 100),
      ('mtrnewcond', 'NCCV', 'New Condition Coverage', 'Percentage of conditions in changed code evaluated both ways.', 'UPWARD', '%', 0, 100),
      ('mtrnewcomp', 'NCPCV', 'New Composite Coverage', 'Composite coverage of changed code.', 'UPWARD', '%', 0, 100),
      ('mtrdoccov', 'DCV', 'Documentation Coverage', 'Percentage of public functions and classes with documentation.', 'UPWARD', '%', 0, 100),
      ('mtrdepdups', 'DDP', 'Duplicate Code', 'Percentage of lines that are part of duplicated blocks.', 'DOWNWARD', '%', 0, 100)`);

  await run(sql`
    CREATE TABLE repository_metric_items (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      metric_shortcode text NOT NULL REFERENCES metrics (shortcode),
      metric_key text NOT NULL CHECK (metric_key IN ('AGGREGATE', 'C_AND_CPP', 'CSHARP', 'GO', 'JAVA',
        'JAVASCRIPT', 'PHP', 'PYTHON', 'RUBY', 'RUST', 'SCALA', 'KOTLIN', 'SWIFT')),
      threshold integer,
      UNIQUE (repository_id, metric_shortcode, metric_key)
    )`);

  await run(sql`
    CREATE TABLE metric_values (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      item_id bigint NOT NULL REFERENCES repository_metric_items (id) ON DELETE CASCADE,
      check_id bigint REFERENCES checks (id) ON DELETE CASCADE,
      commit_oid text NOT NULL,
      value double precision NOT NULL,
      threshold integer,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await run(
    sql`CREATE INDEX metric_values_item_order_idx ON metric_values (item_id, created_at DESC, key DESC)`,
  );
  await run(sql`CREATE INDEX metric_values_check_idx ON metric_values (check_id)`);

  await run(sql`
    CREATE TABLE repository_metric_settings (
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      metric_shortcode text NOT NULL REFERENCES metrics (shortcode),
      is_reported boolean NOT NULL DEFAULT true,
      is_threshold_enforced boolean NOT NULL DEFAULT false,
      PRIMARY KEY (repository_id, metric_shortcode)
    )`);

  await run(sql`
    CREATE TABLE repository_issue_category_settings (
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      category text NOT NULL,
      is_reported boolean NOT NULL DEFAULT true,
      can_fail_check boolean NOT NULL DEFAULT true,
      PRIMARY KEY (repository_id, category),
      CHECK (is_reported OR NOT can_fail_check)
    )`);

  await run(sql`
    CREATE TABLE repository_issue_priority_settings (
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      priority_type text NOT NULL CHECK (priority_type IN ('LOW', 'MEDIUM', 'HIGH')),
      is_reported boolean NOT NULL DEFAULT true,
      can_fail_check boolean NOT NULL DEFAULT true,
      PRIMARY KEY (repository_id, priority_type),
      CHECK (is_reported OR NOT can_fail_check)
    )`);

  await run(sql`
    CREATE TABLE ignore_rules (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      issue_id bigint NOT NULL REFERENCES issues (id),
      level text NOT NULL CHECK (level IN ('REPOSITORY', 'FILE')),
      type text NOT NULL CHECK (type IN ('FOREVER', 'PATTERN', 'TEST_PATTERN')),
      file_path text,
      glob_pattern text,
      created_by bigint REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((level = 'FILE') = (file_path IS NOT NULL)),
      CHECK ((type = 'FOREVER') = (glob_pattern IS NULL))
    )`);
  await run(
    sql`CREATE INDEX ignore_rules_repository_order_idx ON ignore_rules (repository_id, created_at DESC, key DESC)`,
  );

  await run(sql`
    CREATE TABLE team_suppressed_issues (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      issue_id bigint NOT NULL REFERENCES issues (id),
      user_id bigint REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (account_id, issue_id)
    )`);
  await run(
    sql`CREATE INDEX team_suppressed_issues_order_idx ON team_suppressed_issues (account_id, created_at DESC, key DESC)`,
  );

  await run(sql`
    CREATE TABLE packages (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      ecosystem text NOT NULL CHECK (ecosystem IN ('NPM', 'PYPI', 'MAVEN', 'GO', 'RUBYGEMS', 'NUGET', 'PACKAGIST', 'CRATES_IO')),
      name text NOT NULL,
      purl text,
      UNIQUE (ecosystem, name)
    )`);

  await run(sql`
    CREATE TABLE package_versions (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      package_id bigint NOT NULL REFERENCES packages (id) ON DELETE CASCADE,
      version text NOT NULL,
      version_type text CHECK (version_type IN ('SEMVER', 'ECOSYSTEM', 'GIT')),
      UNIQUE (package_id, version)
    )`);

  await run(sql`
    CREATE TABLE vulnerabilities (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      identifier text NOT NULL UNIQUE,
      aliases text[] NOT NULL DEFAULT '{}',
      summary text,
      details text,
      cvss_v2_vector text,
      cvss_v2_base_score double precision,
      cvss_v2_severity text,
      cvss_v3_vector text,
      cvss_v3_base_score double precision,
      cvss_v3_severity text,
      cvss_v4_vector text,
      cvss_v4_base_score double precision,
      cvss_v4_severity text,
      severity text CHECK (severity IN ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
      published_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      withdrawn_at timestamptz,
      epss_score double precision,
      epss_percentile double precision,
      introduced_versions text[] NOT NULL DEFAULT '{}',
      fixed_versions text[] NOT NULL DEFAULT '{}',
      reference_urls text[] NOT NULL DEFAULT '{}'
    )`);

  await run(sql`
    CREATE TABLE repository_targets (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      repository_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      ecosystem text NOT NULL,
      package_manager text NOT NULL,
      manifest_path text,
      lockfile_path text NOT NULL,
      source text NOT NULL DEFAULT 'AUTO' CHECK (source IN ('AUTO', 'CUSTOM')),
      is_activated boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (repository_id, lockfile_path)
    )`);
  await run(
    sql`CREATE INDEX repository_targets_order_idx ON repository_targets (repository_id, lockfile_path, key)`,
  );

  await run(sql`
    CREATE TABLE sca_checks (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      run_id bigint NOT NULL REFERENCES analysis_runs (id) ON DELETE CASCADE,
      target_id bigint REFERENCES repository_targets (id) ON DELETE SET NULL,
      status text NOT NULL DEFAULT 'SUCCESS',
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await run(sql`CREATE INDEX sca_checks_run_order_idx ON sca_checks (run_id, created_at, key)`);

  await run(sql`
    CREATE TABLE vulnerability_occurrences (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      sca_check_id bigint NOT NULL REFERENCES sca_checks (id) ON DELETE CASCADE,
      vulnerability_id bigint NOT NULL REFERENCES vulnerabilities (id),
      package_version_id bigint NOT NULL REFERENCES package_versions (id),
      reachability text NOT NULL DEFAULT 'UNKNOWN' CHECK (reachability IN ('REACHABLE', 'UNREACHABLE', 'UNKNOWN')),
      fixability text NOT NULL DEFAULT 'POSSIBLY_FIXABLE' CHECK (fixability IN ('ERROR', 'UNFIXABLE',
        'GENERATING_FIX', 'POSSIBLY_FIXABLE', 'MANUALLY_FIXABLE', 'AUTO_FIXABLE')),
      state text NOT NULL CHECK (state IN ('INTRODUCED', 'EXISTING', 'RESOLVED')),
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await run(
    sql`CREATE INDEX vulnerability_occurrences_check_order_idx ON vulnerability_occurrences (sca_check_id, created_at, key)`,
  );

  await run(sql`
    CREATE TABLE coverage_reports (
      check_id bigint PRIMARY KEY REFERENCES checks (id) ON DELETE CASCADE,
      lines_total integer, lines_covered integer, lines_new integer, lines_new_covered integer,
      branches_total integer, branches_covered integer, branches_new integer, branches_new_covered integer,
      conditions_total integer, conditions_covered integer, conditions_new integer, conditions_new_covered integer
    )`);
}

/** Drops everything {@link up} created. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "coverage_reports",
    "vulnerability_occurrences",
    "sca_checks",
    "repository_targets",
    "vulnerabilities",
    "package_versions",
    "packages",
    "team_suppressed_issues",
    "ignore_rules",
    "repository_issue_priority_settings",
    "repository_issue_category_settings",
    "repository_metric_settings",
    "metric_values",
    "repository_metric_items",
    "metrics",
    "occurrences",
    "checks",
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
  await sql`ALTER TABLE analysis_runs DROP COLUMN IF EXISTS pull_request_id`.execute(db);
  for (const table of ["pull_requests", "code_formatters", "issues", "analyzers"]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
