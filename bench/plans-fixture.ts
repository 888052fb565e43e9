import type pg from "pg";

/**
 * The deep parents `npm run bench:plans` pages through. The large demo data set has over a
 * million occurrences, but no single parent holds more than about a hundred rows of any
 * connection (45 runs per repository, 119 findings per check), so a page "after 10,000 rows"
 * needs parents that have them. This fixture adds them to the seeded database, under one team
 * account of their own, and removes them again; the rest of the data set stays as seeded, so the
 * planner sees the large tables around them.
 *
 * Every row is written by set-based SQL (generate_series) in one transaction, about 190,000 rows
 * at the default depth, in shuffled order: rows a repository gathers over months are spread over
 * the table among other repositories' rows, so no page may be cheaper for being stored together. Keys start with `zz` and a letter per table; the account's login is
 * {@link FIXTURE_LOGIN}, which is how parents are told apart from the seeded ones.
 */

/** The fixture's team account. */
export const FIXTURE_LOGIN = "bench-deep-plans";
const ACCOUNT_KEY = "zza0000001";
const USER_EMAIL_PATTERN = "bench-plans-%@example.invalid";

/** True when an earlier run left the fixture in place. */
export async function fixtureExists(client: pg.Client): Promise<boolean> {
  const result = await client.query("SELECT 1 FROM accounts WHERE key = $1 AND login = $2", [
    ACCOUNT_KEY,
    FIXTURE_LOGIN,
  ]);
  return result.rowCount === 1;
}

/** The fixture's size when it exists: the deep repository's run count. */
export async function fixtureRows(client: pg.Client): Promise<number> {
  const result = await client.query<{ rows: string }>(
    `SELECT count(*) AS rows FROM analysis_runs r JOIN repositories repo ON repo.id = r.repository_id
     WHERE repo.key = 'zzr0000001' AND r.pull_request_id IS NULL`,
  );
  return Number(result.rows[0]?.rows ?? 0);
}

/** A key: `zz`, a letter for the table, then `n` in seven digits (ten characters, as `newRowKey`). */
function key(letter: string, n: string): string {
  return `'zz${letter}' || lpad((${n})::text, 7, '0')`;
}

/** How many lockfile targets the deep repository has besides its root one: one per 12 runs. */
export function lockfileTargets(rows: number): number {
  return Math.floor(rows / 12);
}

/** SQL of the lockfile path of lockfile target `k` (an SQL expression). */
function lockfileOf(k: string): string {
  return `'svc/' || lpad((${k})::text, 4, '0') || '/package-lock.json'`;
}

/**
 * Writes the fixture with `rows` rows under each deep parent, `viewerId` an ADMIN of its account:
 * - the account: `rows` repositories (`repo-00001` … each with an LCV item and one value) and
 *   `rows` members;
 * - repository `repo-00001`: `rows` runs (every 12th on `develop`, the rest on `main`, newest first
 *   `SUCCESS`), `rows` pull requests, `rows` × 5/4 ignore rules (three in four of one issue),
 *   `rows` LCV values (value n recorded by a test-coverage check of run n; those of `develop`
 *   runs off the default branch), one root dependency target and `rows` / 12 more, target k
 *   scanned only by run 10k + 1; every run lists the lockfiles git tracks (the root one, and run
 *   10k + 1 target k's), so each of those targets' lockfile is gone as of the runs after its scan;
 * - its newest run: a python check with `rows` + 4,000 findings, `rows` of them of one issue
 *   (every 20th RESOLVED), and a javascript check with 3,000; an SCA check with `rows`
 *   vulnerability occurrences (synthetic: the seeded vulnerabilities and versions repeated); the
 *   checks' issue counts, as the product writes them;
 * - pull request #1: a run on its branch with copies of those checks.
 */
export async function createFixture(client: pg.Client, viewerId: string, rows: number): Promise<void> {
  const q = (text: string, values: unknown[] = []) => client.query(text, values);
  await q("BEGIN");
  try {
    await q(`INSERT INTO accounts (key, login, vcs_provider, type) VALUES ($1, $2, 'GITHUB', 'TEAM')`, [
      ACCOUNT_KEY,
      FIXTURE_LOGIN,
    ]);
    await q(
      `INSERT INTO users (key, email, first_name, last_name, analytics_id, created_at)
       SELECT ${key("u", "n")}, 'bench-plans-' || n || '@example.invalid', 'Bench', 'Member ' || n,
         gen_random_uuid(), now() - n * interval '1 minute'
       FROM generate_series(1, $1) AS n ORDER BY md5(n::text)`,
      [rows],
    );
    await q(
      `INSERT INTO memberships (key, account_id, user_id, role, is_owner, joined_at)
       SELECT 'zzm0000000', a.id, $2, 'ADMIN', true, now() - interval '10 years'
       FROM accounts a WHERE a.key = $1`,
      [ACCOUNT_KEY, viewerId],
    );
    await q(
      `INSERT INTO memberships (key, account_id, user_id, role, joined_at)
       SELECT 'zzm' || substr(u.key, 4), a.id, u.id, 'MEMBER', u.created_at
       FROM accounts a, users u
       WHERE a.key = $1 AND u.key LIKE 'zzu%' AND u.email LIKE $2 ORDER BY md5(u.key)`,
      [ACCOUNT_KEY, USER_EMAIL_PATTERN],
    );
    await q(
      `INSERT INTO repositories (key, account_id, name, default_branch, is_activated)
       SELECT ${key("r", "n")}, a.id, 'repo-' || lpad(n::text, 5, '0'), 'main', true
       FROM accounts a, generate_series(1, $2) AS n WHERE a.key = $1 ORDER BY md5(n::text)`,
      [ACCOUNT_KEY, rows],
    );
    // Every repository of the account gets an LCV aggregate, for the coverage report's sorts.
    await q(
      `INSERT INTO repository_metric_items (key, repository_id, metric_shortcode, metric_key, threshold)
       SELECT 'zzn' || substr(r.key, 4), r.id, 'LCV', 'AGGREGATE', 80
       FROM repositories r JOIN accounts a ON a.id = r.account_id WHERE a.key = $1 ORDER BY md5(r.key)`,
      [ACCOUNT_KEY],
    );
    await q(
      `INSERT INTO metric_values (key, item_id, commit_oid, value, threshold, created_at)
       SELECT 'zzh' || substr(i.key, 4), i.id, md5(i.key), (i.id * 7919) % 10000 / 100.0, 80, now()
       FROM repository_metric_items i JOIN repositories r ON r.id = i.repository_id
       JOIN accounts a ON a.id = r.account_id WHERE a.key = $1 AND r.key <> 'zzr0000001' ORDER BY md5(i.key)`,
      [ACCOUNT_KEY],
    );

    await q(
      `INSERT INTO pull_requests (key, repository_id, number, title, branch, base_branch, state, created_at)
       SELECT ${key("p", "n")}, r.id, n, 'Change ' || n, 'feature-' || n, 'main',
         (ARRAY['OPEN', 'CLOSED', 'MERGED'])[1 + n % 3], now() - n * interval '1 hour'
       FROM repositories r, generate_series(1, $1) AS n WHERE r.key = 'zzr0000001' ORDER BY md5(n::text)`,
      [rows],
    );
    // Each run lists the lockfiles git tracks (`assay upload`'s list): the root one, and run
    // 10k + 1 also the one of target k, which it alone scanned (lockfileTargets below).
    await q(
      `INSERT INTO analysis_runs (key, run_uid, repository_id, branch_name, commit_oid, status, created_at, finished_at,
         lockfile_paths)
       SELECT ${key("x", "n")}, gen_random_uuid(), r.id, CASE WHEN n % 12 = 0 THEN 'develop' ELSE 'main' END,
         md5('zzx' || n) || '00000000', 'SUCCESS', now() - n * interval '1 hour',
         now() - n * interval '1 hour' + interval '5 minutes',
         ARRAY['package-lock.json'] || CASE WHEN n % 10 = 1 AND n > 1 AND n <= 10 * $2 + 1
           THEN ARRAY[${lockfileOf("(n - 1) / 10")}] ELSE '{}' END
       FROM repositories r, generate_series(1, $1) AS n WHERE r.key = 'zzr0000001' ORDER BY md5(n::text)`,
      [rows, lockfileTargets(rows)],
    );
    await q(
      `INSERT INTO analysis_runs (key, run_uid, repository_id, branch_name, commit_oid, status, created_at,
         finished_at, pull_request_id)
       SELECT 'zzy0000001', gen_random_uuid(), r.id, p.branch, md5('zzy1') || '00000000', 'SUCCESS',
         now() - interval '30 minutes', now() - interval '25 minutes', p.id
       FROM repositories r JOIN pull_requests p ON p.repository_id = r.id AND p.number = 1
       WHERE r.key = 'zzr0000001'`,
    );
    // Checks: python (1) and javascript (2) on the newest main run; copies (3, 4) on the PR's run.
    await q(
      `INSERT INTO checks (key, run_id, analyzer_id, sequence, status, created_at, finished_at)
       SELECT c.key, r.id, a.id, c.sequence, 'SUCCESS', r.created_at, r.finished_at
       FROM (VALUES ('zzc0000001', 'zzx0000001', 'python', 1), ('zzc0000002', 'zzx0000001', 'javascript', 2),
                    ('zzc0000003', 'zzy0000001', 'python', 1), ('zzc0000004', 'zzy0000001', 'javascript', 2))
         AS c(key, run_key, analyzer, sequence)
       JOIN analysis_runs r ON r.key = c.run_key JOIN analyzers a ON a.shortcode = c.analyzer`,
    );
    // A test-coverage check on every run of the repository's history, and value n of its LCV
    // item recorded by the check of run n: each value read is judged by its run
    // (metric-store.ts isValueOfAnalysedRun).
    await q(
      `INSERT INTO checks (key, run_id, analyzer_id, sequence, status, created_at, finished_at)
       SELECT 'zzq' || substr(r.key, 4), r.id, a.id, 3, 'SUCCESS', r.created_at, r.finished_at
       FROM analysis_runs r JOIN repositories repo ON repo.id = r.repository_id, analyzers a
       WHERE repo.key = 'zzr0000001' AND r.pull_request_id IS NULL AND a.shortcode = 'test-coverage'
       ORDER BY md5(r.key)`,
    );
    await q(
      `INSERT INTO metric_values (key, item_id, check_id, commit_oid, value, threshold, created_at, on_default_branch)
       SELECT ${key("v", "n")}, i.id, c.id, md5('zzv' || n) || '00000000', 50 + n % 50, 80,
         now() - n * interval '1 hour', n % 12 <> 0
       FROM repository_metric_items i, generate_series(1, $1) AS n
       JOIN checks c ON c.key = ${key("q", "n")}
       WHERE i.key = 'zzn0000001' ORDER BY md5(n::text)`,
      [rows],
    );
    const findings = (letter: string, check: string, analyzer: string, count: number, ofFirst: number) =>
      q(
        `WITH issue AS (SELECT array_agg(i.id ORDER BY i.shortcode) AS ids FROM issues i
           JOIN analyzers a ON a.id = i.analyzer_id WHERE a.shortcode = $2)
         INSERT INTO occurrences (key, check_id, issue_id, path, begin_line, end_line, title, source,
           fingerprint, state, is_suppressed, created_at)
         SELECT ${key(letter, "n")}, c.id,
           CASE WHEN n <= $4 THEN issue.ids[1] ELSE issue.ids[2 + n % (cardinality(issue.ids) - 1)] END,
           'src/module_' || lpad((n % 500)::text, 3, '0') || '.py', 1 + (n * 7919) % 2000, 1 + (n * 7919) % 2000,
           'Finding ' || n, CASE WHEN n % 10 = 0 THEN 'AI' ELSE 'STATIC' END, md5('zzf' || n),
           CASE WHEN n % 20 = 0 THEN 'RESOLVED' WHEN n % 3 = 0 THEN 'INTRODUCED' ELSE 'EXISTING' END,
           n % 50 = 1, c.created_at
         FROM checks c, issue, generate_series(1, $3) AS n WHERE c.key = $1 ORDER BY md5(n::text)`,
        [check, analyzer, count, ofFirst],
      );
    await findings("o", "zzc0000001", "python", rows + 4000, rows);
    await findings("j", "zzc0000002", "javascript", 3000, 0);
    await findings("k", "zzc0000003", "python", rows + 4000, rows);
    await findings("l", "zzc0000004", "javascript", 3000, 0);
    // The checks' issue counts, as every writer of findings leaves them (issue-count-store.ts).
    await q(
      `INSERT INTO check_issue_counts (check_id, issue_id, severity, state, is_suppressed, occurrences)
       SELECT o.check_id, o.issue_id, o.severity, o.state, o.is_suppressed, count(*)
       FROM occurrences o JOIN checks c ON c.id = o.check_id
       WHERE c.key IN ('zzc0000001', 'zzc0000002', 'zzc0000003', 'zzc0000004')
       GROUP BY o.check_id, o.issue_id, o.severity, o.state, o.is_suppressed`,
    );

    await q(
      `WITH issue AS (SELECT array_agg(i.id ORDER BY i.shortcode) AS ids FROM issues i
         JOIN analyzers a ON a.id = i.analyzer_id WHERE a.shortcode = 'python')
       INSERT INTO ignore_rules (key, repository_id, issue_id, level, type, file_path, created_by, created_at)
       SELECT ${key("i", "n")}, r.id, CASE WHEN n % 4 = 0 THEN issue.ids[2] ELSE issue.ids[1] END, 'FILE',
         'FOREVER', 'src/module_' || lpad((n % 500)::text, 3, '0') || '.py', $2, now() - n * interval '1 minute'
       FROM repositories r, issue, generate_series(1, $1 * 5 / 4) AS n WHERE r.key = 'zzr0000001' ORDER BY md5(n::text)`,
      [rows, viewerId],
    );

    await q(
      `INSERT INTO repository_targets (key, repository_id, ecosystem, package_manager, manifest_path, lockfile_path)
       SELECT 'zzt0000001', r.id, 'npm', 'npm', 'package.json', 'package-lock.json'
       FROM repositories r WHERE r.key = 'zzr0000001'`,
    );
    await q(
      `INSERT INTO sca_checks (key, run_id, target_id, status, created_at)
       SELECT s.key, r.id, t.id, 'SUCCESS', r.created_at
       FROM (VALUES ('zzs0000001', 'zzx0000001'), ('zzs0000002', 'zzy0000001')) AS s(key, run_key)
       JOIN analysis_runs r ON r.key = s.run_key, repository_targets t WHERE t.key = 'zzt0000001'`,
    );
    // Target k (of lockfileTargets) detected from svc/k/package-lock.json, scanned once, by run
    // 10k + 1, with one dependency; the newer runs' lists leave its lockfile out, so it is gone
    // (dependencies-store.ts isLockfileGone) for the current read and for the DDP of runs after.
    await q(
      `INSERT INTO repository_targets (key, repository_id, ecosystem, package_manager, manifest_path, lockfile_path)
       SELECT ${key("t", "k + 1")}, r.id, 'npm', 'npm', 'svc/' || lpad(k::text, 4, '0') || '/package.json',
         ${lockfileOf("k")}
       FROM repositories r, generate_series(1, $1) AS k WHERE r.key = 'zzr0000001' ORDER BY md5(k::text)`,
      [lockfileTargets(rows)],
    );
    await q(
      `INSERT INTO sca_checks (key, run_id, target_id, status, created_at)
       SELECT ${key("s", "k + 2")}, r.id, t.id, 'SUCCESS', r.created_at
       FROM generate_series(1, $1) AS k
       JOIN analysis_runs r ON r.key = ${key("x", "10 * k + 1")}
       JOIN repository_targets t ON t.key = ${key("t", "k + 1")}
       ORDER BY md5(k::text)`,
      [lockfileTargets(rows)],
    );
    await q(
      `WITH pv AS (SELECT array_agg(id ORDER BY id) AS ids FROM package_versions)
       INSERT INTO sca_check_dependencies (sca_check_id, target_id, package_version_id, is_direct)
       SELECT s.id, s.target_id, pv.ids[1 + s.id % cardinality(pv.ids)], true
       FROM sca_checks s JOIN repository_targets t ON t.id = s.target_id
       JOIN repositories r ON r.id = t.repository_id, pv
       WHERE r.key = 'zzr0000001' AND t.lockfile_path LIKE 'svc/%'`,
    );
    for (const [letter, check] of [
      ["w", "zzs0000001"],
      ["g", "zzs0000002"],
    ] as const) {
      await q(
        `WITH v AS (SELECT array_agg(id ORDER BY id) AS ids FROM vulnerabilities),
              pv AS (SELECT array_agg(id ORDER BY id) AS ids FROM package_versions)
         INSERT INTO vulnerability_occurrences (key, sca_check_id, vulnerability_id, package_version_id, state, created_at)
         SELECT ${key(letter, "n")}, c.id, v.ids[1 + n % cardinality(v.ids)], pv.ids[1 + n % cardinality(pv.ids)],
           CASE WHEN n % 20 = 0 THEN 'RESOLVED' WHEN n % 3 = 0 THEN 'INTRODUCED' ELSE 'EXISTING' END, c.created_at
         FROM sca_checks c, v, pv, generate_series(1, $2) AS n WHERE c.key = $1 ORDER BY md5(n::text)`,
        [check, rows],
      );
    }
    await q("COMMIT");
  } catch (error) {
    await q("ROLLBACK");
    throw error;
  }
}

/**
 * Deletes the fixture: the account (its repositories and everything under them go by cascade)
 * and its users. Returns the seconds each of the two deletes took.
 */
export async function removeFixture(client: pg.Client): Promise<{ account: number; users: number }> {
  let started = performance.now();
  await client.query("DELETE FROM accounts WHERE key = $1 AND login = $2", [ACCOUNT_KEY, FIXTURE_LOGIN]);
  const account = (performance.now() - started) / 1000;
  started = performance.now();
  await client.query("DELETE FROM users WHERE key LIKE 'zzu%' AND email LIKE $1", [USER_EMAIL_PATTERN]);
  return { account, users: (performance.now() - started) / 1000 };
}
