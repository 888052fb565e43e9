/**
 * `npm run bench:heavy-read`: whether the heavy read costs the same on a repository ten times as
 * large. It asks for a repository's `issues(first: 100)` with `totalCount`, and under each issue
 * `occurrences(first: 5)` with `totalCount`, on a repository whose latest run holds `--findings`
 * findings; then adds findings to the same run until it holds `--factor` times as many, and asks
 * again. It prints the median time of each, their ratio (issue 14's target: ≤ 1.5 for ten times
 * the data), and the SQL statements one request sent.
 *
 * Runs against a fresh database of its own, migrated and holding the demo seed: PostgreSQL under
 * DATABASE_URL, else the embedded database. The app runs in this process; the findings are
 * written with set-based SQL spread over `--issues` issues of the python analyzer (rules beyond its
 * catalog are added, as a tool's unknown rules are), then the run's check gets
 * its issue counts the way every writer of findings gives them (`refreshCheckIssueCounts`).
 * docs/benchmarks.md "Heavy reads" has the figures.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { type Kysely, sql } from "kysely";
import type { Database } from "../src/db/types.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { refreshCheckIssueCounts } from "../src/modules/checks/issue-count-store.ts";
import { createBenchDatabase, startAppOver } from "./databases.ts";
import { integerOption } from "./options.ts";
import { Cleanup } from "./processes.ts";
import { describeRun, median } from "./report.ts";

const USAGE = `Usage: [DATABASE_URL=postgres://...] npm run bench:heavy-read [-- options]

Times issues(first: 100) with occurrences and totalCounts on a repository of --findings findings,
then on the same repository grown to --factor times as many, and prints the ratio.

Options:
  --findings N   findings in the latest run at first, default 50000
  --factor N     how many times as many findings the second measurement has, default 10
  --issues N     distinct issues they are spread over, default 150 (at most the catalog's)
  --runs N       timed requests per size (the median is shown), default 15
  --warmup N     untimed requests before them, default 3
  --help         this text
`;

interface Options {
  findings: number;
  factor: number;
  issues: number;
  runs: number;
  warmup: number;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      findings: { type: "string" },
      factor: { type: "string" },
      issues: { type: "string" },
      runs: { type: "string" },
      warmup: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    findings: integerOption("findings", values.findings, 50_000),
    factor: integerOption("factor", values.factor, 10, 2),
    issues: integerOption("issues", values.issues, 150),
    runs: integerOption("runs", values.runs, 15),
    warmup: integerOption("warmup", values.warmup, 3, 0),
  };
}

const QUERY = `query($login: String!, $name: String!) {
  repository(login: $login, name: $name, vcsProvider: GITHUB) {
    issues(first: 100) { totalCount edges { node { issue { shortcode }
      occurrences(first: 5) { totalCount edges { node { path beginLine } } } } } }
  }
}`;

/** The repository the findings go into, and its latest run's check. */
interface Subject {
  login: string;
  name: string;
  checkId: string;
  issueIds: string[];
}

/** A repository in the demo user's personal account, with one finished run on main and its python check. */
async function createSubject(db: Kysely<Database>, email: string, issues: number): Promise<Subject> {
  const account = await sql<{ id: string; login: string }>`
    SELECT a.id, a.login FROM accounts AS a
    JOIN memberships AS m ON m.account_id = a.id JOIN users AS u ON u.id = m.user_id
    WHERE u.email = ${email} AND a.vcs_provider = 'GITHUB' ORDER BY a.type = 'USER' DESC, a.id LIMIT 1`.execute(
    db,
  );
  const { id: accountId, login } = account.rows[0]!;
  const name = `heavy-read-${randomBytes(3).toString("hex")}`;
  const repository = await db
    .insertInto("repositories")
    .values({ key: newRowKey(), account_id: accountId, name, default_branch: "main", is_activated: true })
    .returning("id")
    .executeTakeFirstOrThrow();
  const run = await db
    .insertInto("analysis_runs")
    .values({
      key: newRowKey(),
      run_uid: crypto.randomUUID(),
      repository_id: repository.id,
      branch_name: "main",
      commit_oid: randomBytes(20).toString("hex"),
      status: "SUCCESS",
      finished_at: new Date(),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const analyzer = await db
    .selectFrom("analyzers")
    .select("id")
    .where("shortcode", "=", "python")
    .executeTakeFirstOrThrow();
  const check = await db
    .insertInto("checks")
    .values({ key: newRowKey(), run_id: run.id, analyzer_id: analyzer.id, sequence: 1, status: "SUCCESS" })
    .returning("id")
    .executeTakeFirstOrThrow();
  // A tool's rules beyond the catalog's own become issues when its reports name them; these make
  // up the number asked for.
  await sql`
    INSERT INTO issues (key, analyzer_id, shortcode, title, category, severity)
    SELECT 'hri' || lpad(n::text, 7, '0'), ${analyzer.id}, 'HR-' || lpad(n::text, 4, '0'), 'Bench rule ' || n,
      (ARRAY['BUG_RISK', 'ANTI_PATTERN', 'STYLE', 'SECURITY', 'PERFORMANCE'])[1 + n % 5],
      (ARRAY['MINOR', 'MAJOR', 'CRITICAL'])[1 + n % 3]
    FROM generate_series(1, ${issues}::int) AS n`.execute(db);
  const issueRows = await db
    .selectFrom("issues")
    .select("id")
    .where("analyzer_id", "=", analyzer.id)
    .orderBy("shortcode")
    .limit(issues)
    .execute();
  return { login, name, checkId: check.id, issueIds: issueRows.map((row) => row.id) };
}

/**
 * Adds findings `from`..`to` (1-based, `to` inclusive) to the subject's check, a fifth of them
 * INTRODUCED and a twentieth RESOLVED, in shuffled order, then rewrites the check's issue counts.
 */
async function addFindings(db: Kysely<Database>, subject: Subject, from: number, to: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await sql`
      INSERT INTO occurrences (key, check_id, issue_id, path, begin_line, end_line, title, fingerprint, state)
      SELECT 'hr' || lpad(n::text, 8, '0'), ${subject.checkId},
        (${subject.issueIds}::bigint[])[1 + n % ${subject.issueIds.length}],
        'src/module_' || lpad((n % 997)::text, 3, '0') || '.py', 1 + (n::bigint * 7919) % 3000, 1 + (n::bigint * 7919) % 3000,
        'Finding ' || n, md5('hr' || n),
        CASE WHEN n % 20 = 0 THEN 'RESOLVED' WHEN n % 5 = 0 THEN 'INTRODUCED' ELSE 'EXISTING' END
      FROM generate_series(${from}::int, ${to}::int) AS n ORDER BY md5(n::text)`.execute(tx);
    await refreshCheckIssueCounts(tx, [subject.checkId]);
  });
  await sql`ANALYZE`.execute(db);
}

/** Sends the query `runs` times after `warmup`; answers the median milliseconds and the statements of one request. */
async function measure(
  endpoint: string,
  token: string,
  subject: Subject,
  options: Options,
  statements: { count: number },
): Promise<{ ms: number; totalCount: number; statements: number }> {
  const send = async () => {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: QUERY, variables: { login: subject.login, name: subject.name } }),
    });
    const body = (await response.json()) as {
      data?: { repository: { issues: { totalCount: number } } };
      errors?: Array<{ message: string }>;
    };
    if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join("; "));
    return body.data!.repository.issues.totalCount;
  };
  for (let i = 0; i < options.warmup; i += 1) await send();
  statements.count = 0;
  const totalCount = await send();
  const perRequest = statements.count;
  const times: number[] = [];
  for (let i = 0; i < options.runs; i += 1) {
    const started = performance.now();
    await send();
    times.push(performance.now() - started);
  }
  return { ms: median(times), totalCount, statements: perRequest };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!options) {
    process.stdout.write(USAGE);
    return;
  }
  const cleanup = new Cleanup();
  const pepper = randomBytes(16).toString("hex");
  const backend = process.env.DATABASE_URL ? "postgres" : "embedded";
  try {
    process.stderr.write(`seeding ${backend === "postgres" ? "a PostgreSQL" : "an embedded"} database...\n`);
    const database = await createBenchDatabase(backend, process.env.DATABASE_URL, pepper, cleanup);
    const statements = { count: 0 };
    const app = await startAppOver(database, pepper, {
      database: { onQuery: () => (statements.count += 1) },
    });
    cleanup.add("stop the app", () => app.stop());
    const db = app.database.db;
    const endpoint = `${app.url}/graphql/`;
    const subject = await createSubject(db, database.email, options.issues);

    const sizes = [options.findings, options.findings * options.factor];
    const results = [];
    let written = 0;
    for (const size of sizes) {
      process.stderr.write(`writing findings up to ${size}...\n`);
      await addFindings(db, subject, written + 1, size);
      written = size;
      results.push({ size, ...(await measure(endpoint, database.token, subject, options, statements)) });
    }
    const run = describeRun({
      busyBefore: undefined,
      tool: "bench/heavy-read.ts: sequential requests from this process",
      pinning: "none",
      settings: `${options.warmup} warm-up and ${options.runs} timed requests per size, rate limit off`,
      services: [backend === "postgres" ? "PostgreSQL (DATABASE_URL)" : "embedded database"],
    });
    process.stdout.write(`${run.join("\n")}\n\n`);
    process.stdout.write(
      `| findings in the run | distinct issues | median ms | statements | × the smaller |\n|---:|---:|---:|---:|---:|\n`,
    );
    for (const result of results) {
      process.stdout.write(
        `| ${result.size.toLocaleString("en-US")} | ${result.totalCount} | ${result.ms.toFixed(1)} | ${result.statements} | ${(result.ms / results[0]!.ms).toFixed(2)} |\n`,
      );
    }
  } finally {
    await cleanup.runAll();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
