// test-runner: execution-mode independent (the seeding is SQL; one GraphQL check of the result suffices)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import { type DatabaseHandle, openDatabase } from "../src/db/database.ts";
import type { Database } from "../src/db/types.ts";
import { ingestRunSbom } from "../src/ingestion/sca/sbom-upload.ts";
import { ensureCatalog } from "../src/modules/catalog/catalog-data.ts";
import { DEMO_TEAM_LOGIN, DEMO_USER_EMAIL, hasDemoData, seedDemo } from "../src/modules/demo/demo-seed.ts";
import { planRepositories, planSize } from "../src/modules/demo/generator.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The generator as it runs for real: `seedDemo` into fresh databases, then SQL over the result.
 * One server holds the small demo (and answers GraphQL); a second database repeats the seed to
 * compare; a third holds `large` at a reduced scale.
 */

const NOW = new Date("2026-11-21T12:00:00Z");
const PEPPER = "generator-test-pepper-0123456789";

/**
 * Tables the generator leaves alone: the installation row, which the server writes at start, and
 * the state of workflows that only real use creates (device logins, sessions, webhook endpoints,
 * their events and deliveries, background jobs).
 */
const NOT_GENERATED = new Set([
  "installation",
  "device_authorizations",
  "sessions",
  "refresh_tokens",
  "webhook_events",
  "webhook_endpoints",
  "webhook_deliveries",
  "webhook_delivery_attempts",
  "jobs",
  // Upload state of coverage: the demo writes coverage totals and per-file rows directly (its
  // SBOMs are uploaded).
  "coverage_files",
  // Upload state of findings: the files a SARIF artifact's report says its tool analyzed. The demo
  // writes its findings directly, with no SARIF artifact.
  "artifact_analyzed_paths",
  // Written only by an advisory sync from a configured source; the demo's advisories go through
  // the import of records instead (its affected packages included).
  "advisory_sources",
]);

async function tableNames(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'kysely_%'
    ORDER BY 1`.execute(db);
  return rows.map((r) => r.name);
}

async function rowCount(db: Kysely<Database>, table: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db);
  return Number(rows[0]!.n);
}

/**
 * Counts of findings whose state disagrees with the base run (the analyzed run of `base_oid` in
 * the same repository): carried or resolved but absent from the base check, introduced yet
 * present in it, or present in the base check and missing from the run.
 */
async function stateViolations(db: Kysely<Database>) {
  const { rows } = await sql<Record<string, string>>`
    WITH pairs AS (
      SELECT c.id AS check_id, bc.id AS base_id
      FROM analysis_runs r
      JOIN checks c ON c.run_id = r.id
      JOIN analysis_runs b ON b.repository_id = r.repository_id AND b.commit_oid = r.base_oid
      JOIN checks bc ON bc.run_id = b.id AND bc.analyzer_id = c.analyzer_id
      WHERE r.status IN ('SUCCESS', 'FAILURE')
    ),
    sca_pairs AS (
      SELECT s.id AS check_id, bs.id AS base_id
      FROM analysis_runs r
      JOIN sca_checks s ON s.run_id = r.id
      JOIN analysis_runs b ON b.repository_id = r.repository_id AND b.commit_oid = r.base_oid
      JOIN sca_checks bs ON bs.run_id = b.id AND bs.target_id = s.target_id
    )
    SELECT
      (SELECT count(*) FROM pairs) AS pairs,
      (SELECT count(*) FROM pairs p JOIN occurrences o ON o.check_id = p.check_id
        WHERE o.state IN ('EXISTING', 'RESOLVED') AND NOT EXISTS (SELECT 1 FROM occurrences x
          WHERE x.check_id = p.base_id AND x.fingerprint = o.fingerprint AND x.state <> 'RESOLVED')) AS not_in_base,
      (SELECT count(*) FROM pairs p JOIN occurrences o ON o.check_id = p.check_id
        WHERE o.state = 'INTRODUCED' AND EXISTS (SELECT 1 FROM occurrences x
          WHERE x.check_id = p.base_id AND x.fingerprint = o.fingerprint AND x.state <> 'RESOLVED')) AS introduced_in_base,
      (SELECT count(*) FROM pairs p JOIN occurrences x ON x.check_id = p.base_id AND x.state <> 'RESOLVED'
        WHERE NOT EXISTS (SELECT 1 FROM occurrences o
          WHERE o.check_id = p.check_id AND o.fingerprint = x.fingerprint AND o.state <> 'INTRODUCED')) AS lost,
      (SELECT count(*) FROM analysis_runs r WHERE r.base_oid IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM analysis_runs b WHERE b.repository_id = r.repository_id AND b.commit_oid = r.base_oid
          AND b.status IN ('SUCCESS', 'FAILURE'))) AS unanalyzed_base,
      (SELECT count(*) FROM sca_pairs) AS sca_pairs,
      (SELECT count(*) FROM sca_pairs p JOIN vulnerability_occurrences o ON o.sca_check_id = p.check_id
        JOIN package_versions ov ON ov.id = o.package_version_id
        WHERE (o.state = 'INTRODUCED') = EXISTS (SELECT 1 FROM vulnerability_occurrences x
          JOIN package_versions xv ON xv.id = x.package_version_id
          WHERE x.sca_check_id = p.base_id AND x.vulnerability_id = o.vulnerability_id
          AND xv.package_id = ov.package_id AND x.state <> 'RESOLVED')) AS sca_mismatched,
      (SELECT count(*) FROM analysis_runs r LEFT JOIN analysis_runs b ON b.id = r.base_run_id
        WHERE r.base_oid IS DISTINCT FROM b.commit_oid) AS base_run_mismatched`.execute(db);
  return Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]));
}

function assertConsistent(violations: Record<string, number>): void {
  assert.ok(violations.pairs! > 0 && violations.sca_pairs! > 0, "there are runs with bases to compare");
  assert.deepEqual(
    { ...violations, pairs: 0, sca_pairs: 0 },
    {
      pairs: 0,
      not_in_base: 0,
      introduced_in_base: 0,
      lost: 0,
      unanalyzed_base: 0,
      sca_pairs: 0,
      sca_mismatched: 0,
      base_run_mismatched: 0,
    },
  );
}

/** A digest of a table's generated content, by key, independent of integer ids. */
async function digest(db: Kysely<Database>, query: ReturnType<typeof sql>): Promise<string> {
  const { rows } = await sql<{
    d: string;
  }>`SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS d FROM (${query}) t`.execute(db);
  return rows[0]!.d;
}

const DIGESTS = {
  occurrences: sql`SELECT o.key, c.key AS check_key, i.shortcode, o.path, o.begin_line, o.end_line, o.title,
    o.fingerprint, o.state, o.is_suppressed, o.created_at FROM occurrences o
    JOIN checks c ON c.id = o.check_id JOIN issues i ON i.id = o.issue_id`,
  runs: sql`SELECT r.key, r.run_uid, r.branch_name, r.base_oid, r.commit_oid, r.status, r.created_at, r.finished_at,
    p.number FROM analysis_runs r LEFT JOIN pull_requests p ON p.id = r.pull_request_id`,
  // DDP values, SCA checks, targets, occurrences and pull requests are written by the SBOM and
  // webhook code, which gives rows random keys: those are compared by what they hold and whose they are.
  metricValues: sql`SELECT CASE WHEN i.metric_shortcode = 'DDP' THEN NULL ELSE v.key END AS key, c.key AS check_key,
    i.metric_shortcode, i.metric_key, v.value, v.threshold, v.commit_oid FROM metric_values v
    JOIN repository_metric_items i ON i.id = v.item_id LEFT JOIN checks c ON c.id = v.check_id`,
  vulnerabilityOccurrences: sql`SELECT r.key AS run_key, t.lockfile_path, v.identifier, pv.version, o.state,
    o.reachability, o.fixability, o.fix_version
    FROM vulnerability_occurrences o JOIN vulnerabilities v ON v.id = o.vulnerability_id
    JOIN package_versions pv ON pv.id = o.package_version_id JOIN sca_checks s ON s.id = o.sca_check_id
    JOIN analysis_runs r ON r.id = s.run_id LEFT JOIN repository_targets t ON t.id = s.target_id`,
  scaDependencies: sql`SELECT r.key AS run_key, t.lockfile_path, p.purl, pv.version, d.is_direct, d.license_expression
    FROM sca_check_dependencies d JOIN sca_checks s ON s.id = d.sca_check_id JOIN analysis_runs r ON r.id = s.run_id
    JOIN repository_targets t ON t.id = d.target_id JOIN package_versions pv ON pv.id = d.package_version_id
    JOIN packages p ON p.id = pv.package_id`,
  pullRequests: sql`SELECT repo.key AS repository_key, p.number, p.title, p.state, p.branch, p.base_branch,
    p.head_commit_oid, p.merge_base_oid, p.vcs_url, p.created_at FROM pull_requests p
    JOIN repositories repo ON repo.id = p.repository_id`,
  branchHeads: sql`SELECT repo.key AS repository_key, h.branch, h.commit_oid FROM branch_heads h
    JOIN repositories repo ON repo.id = h.repository_id`,
  vulnerabilities: sql`SELECT identifier, aliases, severity, cvss_v3_vector, cvss_v3_base_score, cvss_v2_base_score,
    epss_score, published_at, withdrawn_at FROM vulnerabilities`,
  users: sql`SELECT key, email, analytics_id FROM users`,
  coverageFiles: sql`SELECT c.key AS check_key, f.metric_key, f.path, f.reports, f.lines_total, f.lines_covered,
    f.lines_new, f.lines_new_covered, f.branches_total, f.branches_covered, f.branches_new, f.branches_new_covered,
    f.conditions_total, f.conditions_covered, f.conditions_new, f.conditions_new_covered, f.uncovered_lines
    FROM coverage_check_files f JOIN checks c ON c.id = f.check_id`,
};

describe("the demo seed in a database", () => {
  let server: TestServer;
  let token: string;
  let counts: Record<string, number>;

  before(async () => {
    server = await startTestServer();
    ({ token, counts } = await seedDemo(
      server.db,
      { pepper: server.config.tokenPepper, uploadSbom: ingestRunSbom },
      NOW,
    ));
  });
  after(() => server.stop());

  test("the seed leaves the planner statistics of every table it filled", async () => {
    const { rows } = await sql<{ relname: string }>`
      SELECT relname FROM pg_stat_user_tables
      WHERE schemaname = current_schema() AND n_live_tup > 0 AND last_analyze IS NULL AND last_autoanalyze IS NULL
      ORDER BY relname`.execute(server.db);
    assert.deepEqual(
      rows.map((row) => row.relname),
      [],
    );
  });

  test("ensureCatalog is idempotent: a second run changes no row and restores edited ones", async () => {
    const { db } = server;
    const snapshot = () =>
      sql<{ t: string }>`SELECT (SELECT string_agg(key || ':' || xmin::text, ',' ORDER BY key) FROM issues)
        || (SELECT string_agg(key || ':' || xmin::text, ',' ORDER BY key) FROM analyzers)
        || (SELECT string_agg(key || ':' || xmin::text, ',' ORDER BY key) FROM code_formatters) AS t`
        .execute(db)
        .then((r) => r.rows[0]!.t);
    const counted = async () => [
      await rowCount(db, "analyzers"),
      await rowCount(db, "issues"),
      await rowCount(db, "code_formatters"),
    ];
    const before = { rows: await snapshot(), counts: await counted() };
    await ensureCatalog(db);
    await ensureCatalog(db);
    assert.deepEqual({ rows: await snapshot(), counts: await counted() }, before);
    assert.ok(before.counts[1]! >= 200);

    await db.updateTable("issues").set({ title: "edited" }).where("shortcode", "=", "PYL-W0611").execute();
    await ensureCatalog(db);
    const issue = await db
      .selectFrom("issues")
      .select("title")
      .where("shortcode", "=", "PYL-W0611")
      .executeTakeFirstOrThrow();
    assert.equal(issue.title, "Unused import");
    assert.deepEqual(await counted(), before.counts);
  });

  test("every table except the installation row and workflow state holds generated rows, as many as seedDemo reports", async () => {
    const tables = await tableNames(server.db);
    assert.ok(tables.length >= 28, tables.join(", "));
    for (const table of tables) {
      if (NOT_GENERATED.has(table)) continue;
      const n = await rowCount(server.db, table);
      assert.ok(n > 0, `${table} is empty`);
      if (counts[table] !== undefined) assert.equal(n, counts[table], table);
    }
    assert.ok(counts.occurrences! > 1000 && counts.occurrences! < 6000, `${counts.occurrences} occurrences`);
    assert.ok(await hasDemoData(server.db));
  });

  test("pull requests and branch heads are what the signed webhook deliveries made of the plan", async () => {
    const { accounts, params, seed, now } = planSize({ size: "small", now: NOW });
    const plans = planRepositories(accounts, params, seed, now);
    const second = (d: Date) => Math.floor(d.getTime() / 1000);
    const expected = plans.flatMap((p) =>
      p.pullRequests.map((pr) =>
        JSON.stringify([
          p.repository.fullName,
          pr.number,
          pr.title,
          pr.state,
          pr.branch,
          pr.baseBranch,
          p.repository.provider === "GITLAB" ? pr.mergeBaseOid : null,
          pr.vcsUrl,
          second(pr.createdAt),
        ]),
      ),
    );
    const { rows } = await sql<Record<string, unknown> & { created_at: Date }>`
      SELECT a.login || '/' || r.name AS full_name, p.number, p.title, p.state, p.branch, p.base_branch,
        p.merge_base_oid, p.vcs_url, p.created_at
      FROM pull_requests p JOIN repositories r ON r.id = p.repository_id JOIN accounts a ON a.id = r.account_id`.execute(
      server.db,
    );
    const actual = rows.map((row) =>
      JSON.stringify([
        row.full_name,
        row.number,
        row.title,
        row.state,
        row.branch,
        row.base_branch,
        row.merge_base_oid,
        row.vcs_url,
        second(row.created_at),
      ]),
    );
    assert.ok(expected.length > 10);
    assert.deepEqual(actual.sort(), expected.sort());

    // One delivery per opened, synchronize and closed event and per branch head pushed.
    const events = plans.reduce(
      (n, p) =>
        n +
        p.runs.filter((r) => r.pullRequestKey !== null).length +
        p.pullRequests.filter((pr) => pr.state !== "OPEN").length +
        1 +
        p.pullRequests.filter((pr) => pr.state === "OPEN").length,
      0,
    );
    assert.equal(await rowCount(server.db, "vcs_deliveries"), events);
    const heads = await sql<{ n: string }>`
      SELECT count(*) AS n FROM repositories r
      JOIN branch_heads h ON h.repository_id = r.id AND h.branch = r.default_branch
      WHERE h.commit_oid = (SELECT commit_oid FROM analysis_runs x WHERE x.repository_id = r.id
        AND x.branch_name = r.default_branch ORDER BY x.created_at DESC LIMIT 1)`.execute(server.db);
    assert.equal(Number(heads.rows[0]!.n), plans.length);
  });

  test("dependencies and advisories are what the SBOM processing and the advisory import made", async () => {
    const { rows } = await sql<Record<string, string>>`
      SELECT
        (SELECT count(*) FROM sca_checks) AS sca_checks,
        (SELECT count(*) FROM sca_checks s JOIN artifacts a ON a.id = s.artifact_id
          WHERE a.status = 'PROCESSED' AND a.kind = 'SBOM' AND a.format LIKE 'CycloneDX 1.5%') AS processed,
        (SELECT count(*) FROM sca_check_dependencies WHERE is_direct) AS direct,
        (SELECT count(*) FROM sca_check_dependencies WHERE NOT is_direct) AS transitive,
        (SELECT count(*) FROM sca_check_dependencies WHERE license_expression IS NULL) AS without_licence,
        (SELECT count(*) FROM vulnerabilities) AS vulnerabilities,
        (SELECT count(*) FROM vulnerabilities WHERE cvss_v3_base_score IS NULL OR severity IS NULL) AS unrated,
        (SELECT count(DISTINCT vulnerability_id) FROM advisory_packages) AS with_packages,
        (SELECT count(*) FROM vulnerabilities WHERE epss_score IS NOT NULL) AS with_epss,
        (SELECT count(*) FROM vulnerability_occurrences o JOIN vulnerabilities v ON v.id = o.vulnerability_id
          WHERE v.withdrawn_at IS NOT NULL) AS withdrawn_found,
        (SELECT count(*) FROM metric_values v JOIN repository_metric_items i ON i.id = v.item_id
          JOIN sca_checks s ON s.check_id = v.check_id WHERE i.metric_shortcode = 'DDP') AS ddp_values`.execute(
      server.db,
    );
    const n = Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]));
    assert.ok(n.sca_checks! > 50, JSON.stringify(n));
    assert.equal(n.processed, n.sca_checks);
    assert.equal(n.ddp_values, n.sca_checks);
    assert.ok(n.direct! > 0 && n.transitive! > 0);
    assert.equal(n.without_licence, 0);
    assert.equal(n.unrated, 0);
    assert.equal(n.with_packages, n.vulnerabilities);
    assert.ok(n.with_epss! > 0 && n.with_epss! < n.vulnerabilities!);
    assert.equal(n.withdrawn_found, 0);
    assert.ok((await rowCount(server.db, "vulnerability_occurrences")) > 0);
  });

  test("finding and vulnerability states agree with each run's base run", async () => {
    assertConsistent(await stateViolations(server.db));
  });

  test("the demo token sees acme-labs and its own account with their repositories, and not globex", async () => {
    const res = await gql(
      server.endpoint,
      token,
      `{
        viewer { email accounts { edges { node { login repositories { totalCount } } } } }
        repository(login: "${DEMO_TEAM_LOGIN}", name: "api-gateway", vcsProvider: GITHUB) {
          defaultBranch analysisRuns { totalCount }
        }
        hidden: account(login: "globex", vcsProvider: GITLAB) { login }
        analyzer(shortcode: "python") { name }
      }`,
    );
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    const data = dataOf(res) as {
      viewer: {
        email: string;
        accounts: { edges: Array<{ node: { login: string; repositories: { totalCount: number } } }> };
      };
      repository: { defaultBranch: string; analysisRuns: { totalCount: number } };
      hidden: null;
      analyzer: { name: string };
    };
    assert.equal(data.viewer.email, DEMO_USER_EMAIL);
    assert.deepEqual(
      Object.fromEntries(
        data.viewer.accounts.edges.map((e) => [e.node.login, e.node.repositories.totalCount]),
      ),
      { "acme-labs": 6, "ada-lovelace": 1 },
    );
    assert.equal(data.repository.defaultBranch, "main");
    assert.ok(data.repository.analysisRuns.totalCount >= 8);
    assert.equal(data.hidden, null);
    assert.equal(data.analyzer.name, "Python");
  });

  test("every seeded check's issue counts equal its findings", () =>
    assertIssueCountsMatchFindings(server.db, "the demo seed"));

  describe("seeded again elsewhere with the same seed and clock", () => {
    let other: TestDatabase;
    let handle: DatabaseHandle;

    before(async () => {
      other = await createTestDatabase();
      handle = await openDatabase({ ...other, databasePoolSize: 2 });
      await seedDemo(handle.db, { pepper: PEPPER, uploadSbom: ingestRunSbom }, NOW);
    });
    after(async () => {
      await handle.close();
      await other.drop();
    });

    test("gives the same rows, keys and values included", async () => {
      for (const [name, query] of Object.entries(DIGESTS)) {
        assert.equal(await digest(handle.db, query), await digest(server.db, query), name);
      }
      for (const table of await tableNames(server.db)) {
        if (NOT_GENERATED.has(table)) continue;
        assert.equal(await rowCount(handle.db, table), await rowCount(server.db, table), table);
      }
    });
  });
});

describe("the large size at a reduced scale", () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const progress: string[] = [];

  before(async () => {
    database = await createTestDatabase();
    handle = await openDatabase({ ...database, databasePoolSize: 2 });
    await seedDemo(handle.db, { pepper: PEPPER, uploadSbom: ingestRunSbom }, NOW, {
      size: "large",
      scale: 0.012,
      chunkSize: 5,
      onProgress: (line) => progress.push(line),
    });
  });
  after(async () => {
    await handle.close();
    await database.drop();
  });

  test("holds the demo plus the generated teams and repositories, and reports progress per chunk", async () => {
    assert.equal(await rowCount(handle.db, "repositories"), 8 + 12);
    assert.ok((await rowCount(handle.db, "accounts")) > 3);
    assert.deepEqual(progress.length, 4);
    assert.match(progress.at(-1)!, /^20\/20 repositories, [\d,]+ occurrences \(\d+\.\d s\)$/);
    const memberships = await handle.db
      .selectFrom("memberships as m")
      .innerJoin("users as u", "u.id", "m.user_id")
      .select(handle.db.fn.countAll<string>().as("n"))
      .where("u.email", "=", DEMO_USER_EMAIL)
      .executeTakeFirstOrThrow();
    assert.ok(Number(memberships.n) > 2, "the demo user belongs to generated teams too");
  });

  test("keeps finding states consistent across runs", async () => {
    assertConsistent(await stateViolations(handle.db));
  });
});
