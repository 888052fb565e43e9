// test-runner: execution-mode independent (upgrades a database; the reads it sends are covered elsewhere in both modes)
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, test } from "node:test";
import { type Kysely, Migrator, sql } from "kysely";
import type { RunningApp } from "../src/app.ts";
import { migrateToLatest, openDatabase } from "../src/db/database.ts";
import * as findingsStoredTwice from "../src/db/migrations/0027-findings-stored-twice.ts";
import { migrationProvider } from "../src/db/migrations/index.ts";
import type { Database } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { FingerprintSequence, fingerprintContext } from "../src/ingestion/fingerprint.ts";
import { artifactProcessingHandler } from "../src/ingestion/process-job.ts";
import { generatePat, hashPat } from "../src/modules/auth/pat.ts";
import { runArtifactJob } from "./helpers/builders-artifacts.ts";
import { createEmptyDatabase } from "./helpers/database.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { insert, insertOwner, type OldDb } from "./helpers/legacy-rows.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { dataOf, gql } from "./helpers/server.ts";
import { upgradeAndStart } from "./helpers/upgrade-start.ts";

/**
 * Findings stored twice before `ALREADY_REPORTED` (migration 0027, docs/ingestion.md "The same
 * findings reported twice"). A database at 0024 holds, in one repository, what the processing of
 * that time stored for a lint report sent twice to one run (every finding twice) and for the next
 * run's report sent twice (its findings twice, one more the second time, and each base finding
 * that is gone copied RESOLVED twice, once per base row), with a third upload of the first report still being processed (its
 * rows staged, its artifact QUEUED). After the upgrade, the same reports uploaded to another
 * repository of the same database and processed by today's code must give the same rows, issue
 * counts, artifact results, announced issues and API answers.
 */

const PEPPER = "test-pepper-0123456789abcdef";
const ANALYZER = "twice-lint";
const LAST_BEFORE = "0024-current-sca-checks";

/** One SARIF result of the reports below. */
interface Finding {
  rule: string;
  level: "warning" | "error";
  path: string;
  line: number;
  message: string;
  suppressed?: boolean;
}

const EQ = { rule: "TW-001", level: "warning", message: "Expected '===' and instead saw '=='." } as const;
const SHADOW = {
  rule: "TW-002",
  level: "error",
  message: "'total' is already declared in the upper scope.",
} as const;
const EVAL = { rule: "TW-003", level: "error", message: "eval can be harmful." } as const;

/** The first run's findings: two identical ones in one file (ordinals 0 and 1), one suppressed. */
const FIRST: Finding[] = [
  { ...EQ, path: "src/a.js", line: 3 },
  { ...EQ, path: "src/b.js", line: 5 },
  { ...EQ, path: "src/b.js", line: 9 },
  { ...SHADOW, path: "src/c.js", line: 1, suppressed: true },
  { ...SHADOW, path: "src/d.js", line: 7 },
];
/** The next run's: the three `==` still there, a new `eval`; both shadowings gone. */
const SECOND: Finding[] = [FIRST[0]!, FIRST[1]!, FIRST[2]!, { ...EVAL, path: "src/e.js", line: 2 }];
/** The next run's report from the job run again, which found one `==` more: that one is kept. */
const SECOND_AGAIN: Finding[] = [...SECOND, { ...EQ, path: "src/f.js", line: 4 }];

/** A SARIF log of `findings`; `rerun` stamps it as a CI job run again does (other bytes). */
function sarifOf(findings: readonly Finding[], rerun: number): string {
  const rules = [...new Set(findings.map((f) => f.rule))].map((id) => ({
    id,
    shortDescription: { text: `${id} rule` },
    defaultConfiguration: { level: findings.find((f) => f.rule === id)!.level },
  }));
  return JSON.stringify({
    version: "2.1.0",
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    runs: [
      {
        tool: { driver: { name: "Twice Lint", rules } },
        invocations: [{ executionSuccessful: true, startTimeUtc: `2025-03-0${rerun + 1}T10:00:00Z` }],
        automationDetails: { id: `lint/run-${rerun}` },
        results: findings.map((f) => ({
          ruleId: f.rule,
          level: f.level,
          message: { text: f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: f.path },
                region: { startLine: f.line, startColumn: 5, endLine: f.line, endColumn: 12 },
              },
            },
          ],
          ...(f.suppressed && { suppressions: [{ kind: "inSource" }] }),
        })),
      },
    ],
  });
}

/** The fingerprints processing gives a report's findings, in order. */
function fingerprintsOf(findings: readonly Finding[]): string[] {
  const sequence = new FingerprintSequence();
  return findings.map((f) =>
    sequence.next({
      analyzer: ANALYZER,
      ruleId: f.rule,
      path: f.path,
      context: fingerprintContext({ partialFingerprints: {}, fingerprints: {}, message: f.message }, null),
    }),
  );
}

interface Legacy {
  token: string;
  login: string;
  /** The repository the reports go to after the upgrade, through today's processing. */
  freshKey: string;
}

/**
 * What the processing of 0024's time stored for the reports: every finding of a report sent
 * twice once per artifact, each artifact's result counting them all, the next run's RESOLVED
 * copies once per base row, the checks' issue counts and the announced issues counting them so.
 */
async function writeLegacy(db: OldDb): Promise<Legacy> {
  const { token, lastFour } = generatePat();
  const login = "twice-team";
  const freshKey = newRowKey();
  await db.transaction().execute(async (trx) => {
    const { userId, accountId } = await insertOwner(trx, {
      email: "twice@example.test",
      firstName: "Twice",
      lastName: "Owner",
      login,
      tokenHash: hashPat(token, PEPPER),
      lastFour,
    });
    const repository = (name: string, key: string) =>
      insert(trx, "repositories", {
        key,
        account_id: accountId,
        name,
        default_branch: "main",
        is_activated: true,
      });
    const repositoryId = await repository("legacy", newRowKey());
    await repository("fresh", freshKey);
    const analyzerId = await insert(trx, "analyzers", {
      key: newRowKey(),
      shortcode: ANALYZER,
      name: "Twice Lint",
      type: "CUSTOM",
    });
    const issues = new Map<string, string>();
    for (const [rule, category, severity] of [
      [EQ.rule, "ANTI_PATTERN", "MINOR"],
      [SHADOW.rule, "BUG_RISK", "MAJOR"],
      [EVAL.rule, "BUG_RISK", "MAJOR"],
    ] as const) {
      issues.set(
        rule,
        await insert(trx, "issues", {
          key: newRowKey(),
          analyzer_id: analyzerId,
          shortcode: rule,
          title: `${rule} rule`,
          category,
          severity,
        }),
      );
    }

    const run = (commit: string, at: string, fields: Record<string, unknown>) =>
      insert(trx, "analysis_runs", {
        key: newRowKey(),
        run_uid: randomUUID(),
        repository_id: repositoryId,
        branch_name: "main",
        commit_oid: commit,
        created_at: at,
        updated_at: at,
        finished_at: at,
        ...fields,
      });
    const check = (runId: string, fields: Record<string, unknown>) =>
      insert(trx, "checks", {
        key: newRowKey(),
        run_id: runId,
        analyzer_id: analyzerId,
        sequence: 1,
        finished_at: "2025-03-01T10:05:00Z",
        ...fields,
      });
    const artifact = (runId: string, checkId: string, at: string, fields: Record<string, unknown>) =>
      insert(trx, "artifacts", {
        key: newRowKey(),
        repository_id: repositoryId,
        run_id: runId,
        check_id: checkId,
        kind: "SARIF",
        analyzer: ANALYZER,
        reporter: "api",
        compression: "NONE",
        stored_bytes: 900,
        report_bytes: 900,
        format: "SARIF 2.1.0",
        content_sha256: Buffer.from(randomUUID().replaceAll("-", ""), "hex"),
        uploaded_by: userId,
        created_at: at,
        processed_at: at,
        ...fields,
      });
    const result = (findings: readonly Finding[], counts: Record<string, number>) =>
      JSON.stringify({
        read: findings.length,
        stored: findings.length,
        skipped: {},
        warnings: [],
        counts: {
          suppressed: findings.filter((f) => f.suppressed).length,
          rules: new Set(findings.map((f) => f.rule)).size,
          ...counts,
        },
      });
    const occurrences = async (
      checkId: string,
      artifactId: string | null,
      findings: readonly Finding[],
      stateOf: (finding: Finding) => string,
    ) => {
      const fingerprints = fingerprintsOf(findings);
      for (const [i, f] of findings.entries()) {
        await insert(trx, "occurrences", {
          key: newRowKey(),
          check_id: checkId,
          issue_id: issues.get(f.rule),
          artifact_id: artifactId,
          path: f.path,
          begin_line: f.line,
          begin_column: 5,
          end_line: f.line,
          end_column: 12,
          title: f.message,
          fingerprint: fingerprints[i],
          state: stateOf(f),
          is_suppressed: f.suppressed === true,
          severity: f.level === "error" ? "MAJOR" : "MINOR",
        });
      }
    };

    // The first run: its report, then the same report again from a CI job run again.
    const firstRun = await run("c1".repeat(20), "2025-03-01T10:00:00Z", {
      status: "PENDING",
      reopened_from: "FAILURE",
    });
    const firstCheck = await check(firstRun, { status: "PENDING", reopened_from: "FAILURE" });
    const a1 = await artifact(firstRun, firstCheck, "2025-03-01T10:01:00Z", {
      status: "PROCESSED",
      result: result(FIRST, { introduced: 5, existing: 0, resolved: 0 }),
    });
    await occurrences(firstCheck, a1, FIRST, () => "INTRODUCED");
    const a2 = await artifact(firstRun, firstCheck, "2025-03-01T10:30:00Z", {
      status: "PROCESSED",
      result: result(FIRST, { introduced: 10, existing: 0, resolved: 0 }),
    });
    await occurrences(firstCheck, a2, FIRST, () => "INTRODUCED");

    // The next run: its report twice, and each gone base row copied RESOLVED: twice per finding.
    const secondRun = await run("c2".repeat(20), "2025-03-02T10:00:00Z", {
      status: "FAILURE",
      base_run_id: firstRun,
      base_oid: "c1".repeat(20),
    });
    const secondCheck = await check(secondRun, { status: "FAILURE" });
    const stateOf = (f: Finding) => (FIRST.includes(f) ? "EXISTING" : "INTRODUCED");
    const b1 = await artifact(secondRun, secondCheck, "2025-03-02T10:01:00Z", {
      status: "PROCESSED",
      result: result(SECOND, { introduced: 1, existing: 3, resolved: 4 }),
    });
    await occurrences(secondCheck, b1, SECOND, stateOf);
    const b2 = await artifact(secondRun, secondCheck, "2025-03-02T10:02:00Z", {
      status: "PROCESSED",
      result: result(SECOND_AGAIN, { introduced: 3, existing: 6, resolved: 4 }),
    });
    await occurrences(secondCheck, b2, SECOND_AGAIN, stateOf);
    const gone = FIRST.filter((f) => !SECOND.includes(f));
    for (let copy = 0; copy < 2; copy += 1) {
      await occurrences(secondCheck, null, gone, () => "RESOLVED");
    }

    // The first report a third time, uploaded after the next run, its rows staged, not published.
    const a3 = await artifact(firstRun, firstCheck, "2025-03-02T11:00:00Z", {
      status: "QUEUED",
      processed_at: null,
    });
    await occurrences(firstCheck, a3, FIRST.slice(0, 2), () => "INTRODUCED");

    // What the checks' writers counted, and what the events announced from the next run.
    await sql`
      INSERT INTO check_issue_counts (check_id, issue_id, severity, state, is_suppressed, occurrences)
      SELECT o.check_id, o.issue_id, o.severity, o.state, o.is_suppressed, count(*)
      FROM occurrences AS o
      WHERE o.check_id IN (${firstCheck}, ${secondCheck}) AND (o.artifact_id IS NULL OR o.artifact_id <> ${a3})
      GROUP BY o.check_id, o.issue_id, o.severity, o.state, o.is_suppressed`.execute(trx);
    await trx
      .insertInto("repository_issue_announcements")
      .values({ repository_id: repositoryId, run_id: secondRun })
      .execute();
    await sql`
      INSERT INTO announced_repository_issues (repository_id, issue_id, occurrences)
      SELECT ${repositoryId}, k.issue_id, sum(k.occurrences)
      FROM check_issue_counts AS k WHERE k.check_id = ${secondCheck} AND k.state <> 'RESOLVED'
      GROUP BY k.issue_id`.execute(trx);
  });
  return { token, login, freshKey };
}

const REPOSITORY_QUERY = `query($login: String!, $name: String!) {
  repository(login: $login, name: $name, vcsProvider: GITHUB) {
    analysisRuns(first: 5) { edges { node { commitOid status
      summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed
        occurrenceDistributionByAnalyzer { analyzerShortcode introduced }
        occurrenceDistributionByCategory { category introduced }
        occurrenceDistributionBySeverity { severity introduced } }
      checks(first: 5) { edges { node { analyzer { shortcode } status
        summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed }
        issues(first: 20) { totalCount edges { node { path beginLine shortcode severity title } } }
        artifacts(first: 5) { totalCount edges { node { status readCount storedCount skippedCount
          skipped { reason count } warnings } } } } } } } } }
    issues(first: 20) { totalCount edges { node { issue { shortcode } occurrences(first: 20) { totalCount } } } }
    issueOccurrences(first: 20) { totalCount }
  }
}`;

/** Everything compared between the two repositories, with ids made comparable. */
async function snapshot(db: Kysely<Database>, repositoryName: string) {
  const { rows: artifacts } = await sql<{ key: string; check_id: string; status: string; result: unknown }>`
    SELECT a.key, a.check_id::text AS check_id, a.status, a.result
    FROM artifacts AS a JOIN repositories AS repo ON repo.id = a.repository_id
    WHERE repo.name = ${repositoryName} ORDER BY a.id`.execute(db);
  // An artifact is named by its run's commit and its place among its check's artifacts.
  const names = new Map<string, string>();
  const { rows: runs } = await sql<{ check_id: string; commit_oid: string }>`
    SELECT c.id::text AS check_id, r.commit_oid FROM checks AS c JOIN analysis_runs AS r ON r.id = c.run_id
    JOIN repositories AS repo ON repo.id = r.repository_id WHERE repo.name = ${repositoryName}`.execute(db);
  const commitOf = new Map(runs.map((r) => [r.check_id, r.commit_oid]));
  for (const a of artifacts) {
    const place = artifacts.filter((b) => b.check_id === a.check_id).indexOf(a) + 1;
    names.set(a.key, `${commitOf.get(a.check_id)}#${place}`);
  }
  const named = (value: unknown): unknown =>
    JSON.parse(
      JSON.stringify(value).replace(/artifact ([A-Za-z0-9+/=]+) of this check/g, (_, id: string) => {
        const key = Buffer.from(id, "base64").toString("utf8").split(":")[1]!;
        return `artifact ${names.get(key)} of this check`;
      }),
    );
  const { rows: occurrences } = await sql<Record<string, unknown>>`
    SELECT r.commit_oid, o.artifact_id IS NULL AS no_artifact, (SELECT a.key FROM artifacts AS a WHERE a.id = o.artifact_id) AS artifact,
      o.fingerprint, o.issue_id::text AS issue_id, o.path, o.begin_line, o.begin_column, o.end_line, o.end_column,
      o.title, o.state, o.is_suppressed, o.severity
    FROM occurrences AS o JOIN checks AS c ON c.id = o.check_id JOIN analysis_runs AS r ON r.id = c.run_id
    JOIN repositories AS repo ON repo.id = r.repository_id
    WHERE repo.name = ${repositoryName}
      AND (o.artifact_id IS NULL OR o.artifact_id NOT IN (SELECT q.id FROM artifacts AS q WHERE q.status = 'QUEUED'))
    ORDER BY r.commit_oid, o.state, o.fingerprint, o.artifact_id`.execute(db);
  const { rows: counts } = await sql`
    SELECT r.commit_oid, k.issue_id::text AS issue_id, k.severity, k.state, k.is_suppressed, k.occurrences
    FROM check_issue_counts AS k JOIN checks AS c ON c.id = k.check_id JOIN analysis_runs AS r ON r.id = c.run_id
    JOIN repositories AS repo ON repo.id = r.repository_id
    WHERE repo.name = ${repositoryName}
    ORDER BY r.commit_oid, k.issue_id, k.severity, k.state, k.is_suppressed`.execute(db);
  const { rows: announced } = await sql`
    SELECT a.issue_id::text AS issue_id, a.occurrences FROM announced_repository_issues AS a
    JOIN repositories AS repo ON repo.id = a.repository_id WHERE repo.name = ${repositoryName}
    ORDER BY a.issue_id`.execute(db);
  return {
    occurrences: occurrences.map((o) => named({ ...o, artifact: names.get(String(o.artifact)) ?? null })),
    counts,
    artifacts: artifacts.map((a) => ({ name: names.get(a.key), status: a.status, result: named(a.result) })),
    announced,
  };
}

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

test("findings stored twice before ALREADY_REPORTED are repaired by the upgrade into what processing the same reports stores today", async () => {
  const database = await createEmptyDatabase();
  let app: RunningApp | undefined;
  cleanups.push(async () => {
    await app?.stop();
    await database.drop();
  });

  const handle = await openDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    databasePoolSize: 2,
  });
  let legacy: Legacy;
  try {
    const { error } = await new Migrator({ db: handle.db, provider: migrationProvider }).migrateTo(
      LAST_BEFORE,
    );
    if (error) throw error;
    legacy = await writeLegacy(handle.db as OldDb);
    // The data set is what the old processing left: both runs' findings counted twice.
    const { rows } = await sql<{ state: string; n: number }>`
      SELECT state, sum(occurrences)::int AS n FROM check_issue_counts GROUP BY state ORDER BY state`.execute(
      handle.db,
    );
    assert.deepEqual(rows, [
      { state: "EXISTING", n: 6 },
      { state: "INTRODUCED", n: 13 },
      { state: "RESOLVED", n: 4 },
    ]);
  } finally {
    await handle.close();
  }

  const started = await upgradeAndStart(database, PEPPER);
  if (started.config.databaseUrl) assert.ok(started.migrated.includes("0027-findings-stored-twice"));
  app = started.app;
  const { db } = app.database;
  const endpoint = `${app.url}/graphql/`;

  // The same reports, through today's upload and processing, to the other repository.
  const handler = artifactProcessingHandler(db, started.config, testLogger("processing").logger);
  const upload = async (commit: string, findings: readonly Finding[], rerun: number, process = true) => {
    const answer = dataOf(
      await gql(endpoint, legacy.token, UPLOAD_MUTATION, {
        input: {
          repositoryId: encodeGlobalId("Repository", legacy.freshKey),
          commitOid: commit,
          branch: "main",
          analyzer: ANALYZER,
          data: sarifOf(findings, rerun),
        },
      }),
    ).uploadArtifact as { ok: boolean; error: string | null; artifactId: string | null };
    assert.equal(answer.ok, true, answer.error ?? "");
    if (!process) return;
    const queued = await db.selectFrom("artifacts").select("id").where("status", "=", "QUEUED").execute();
    const mine = queued.filter((a) => !legacyQueued.has(String(a.id)));
    assert.equal(mine.length, 1);
    assert.deepEqual(await runArtifactJob(db, handler, mine[0]!.id), { status: "done" });
  };
  const legacyQueued = new Set(
    (await db.selectFrom("artifacts").select("id").where("status", "=", "QUEUED").execute()).map((a) =>
      String(a.id),
    ),
  );
  await upload("c1".repeat(20), FIRST, 0);
  await upload("c1".repeat(20), FIRST, 1);
  await upload("c2".repeat(20), SECOND, 2);
  await upload("c2".repeat(20), SECOND_AGAIN, 3);
  await upload("c1".repeat(20), FIRST, 4, false);

  const fresh = await snapshot(db, "fresh");
  const repaired = await snapshot(db, "legacy");
  // The reference really holds each finding once, and the RESOLVED ones of the next run once.
  assert.equal(fresh.occurrences.length, 5 + 5 + 2);
  assert.deepEqual(repaired, fresh);
  await assertIssueCountsMatchFindings(db, "the upgrade and the uploads");

  // The rows staged for the upload still being processed are left alone.
  const staged = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM occurrences WHERE artifact_id IN (
      SELECT id FROM artifacts WHERE status = 'QUEUED' AND repository_id = (
        SELECT id FROM repositories WHERE name = 'legacy'))`.execute(db);
  assert.deepEqual(staged.rows, [{ n: 2 }]);

  // Every figure the API reads from them is the same in both repositories.
  const answerOf = async (name: string) =>
    dataOf(await gql(endpoint, legacy.token, REPOSITORY_QUERY, { login: legacy.login, name })).repository;
  const freshAnswer = await answerOf("fresh");
  const named = (answer: unknown) =>
    JSON.stringify(answer).replace(
      /artifact [A-Za-z0-9+/=]+ of this check/g,
      "artifact (the first) of this check",
    );
  assert.equal(named(await answerOf("legacy")), named(freshAnswer));
  // Each finding counted once: the next run's (newest first) and the first run's summaries.
  type Summary = {
    occurrencesIntroduced: number;
    occurrencesResolved: number;
    occurrencesSuppressed: number;
  };
  const { analysisRuns } = freshAnswer as { analysisRuns: { edges: Array<{ node: { summary: Summary } }> } };
  assert.deepEqual(
    analysisRuns.edges.map(({ node: { summary: s } }) => [
      s.occurrencesIntroduced,
      s.occurrencesResolved,
      s.occurrencesSuppressed,
    ]),
    [
      [2, 2, 0],
      [4, 0, 1],
    ],
  );

  // Running the repair again changes nothing.
  await db.transaction().execute((trx) => findingsStoredTwice.up(trx as unknown as Kysely<unknown>));
  assert.deepEqual(await snapshot(db, "legacy"), repaired);
});

const UPLOAD_MUTATION = `mutation Upload($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error artifactId } }`;

/** A tiny check history at 0024, for the rules no upload of today can make. */
async function writeEdgeCases(db: OldDb): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const accountId = await insert(trx, "accounts", {
      key: newRowKey(),
      login: "edge-team",
      vcs_provider: "GITHUB",
      type: "TEAM",
    });
    const repositoryId = await insert(trx, "repositories", {
      key: newRowKey(),
      account_id: accountId,
      name: "edge",
      default_branch: "main",
      is_activated: true,
    });
    const analyzerId = await insert(trx, "analyzers", {
      key: newRowKey(),
      shortcode: "edge-lint",
      name: "Edge Lint",
      type: "CUSTOM",
    });
    const issueId = await insert(trx, "issues", {
      key: newRowKey(),
      analyzer_id: analyzerId,
      shortcode: "EL-1",
      title: "EL-1",
      category: "STYLE",
      severity: "MINOR",
    });
    const runAndCheck = async (commit: string, at: string, baseRunId: string | null) => {
      const runId = await insert(trx, "analysis_runs", {
        key: newRowKey(),
        run_uid: randomUUID(),
        repository_id: repositoryId,
        branch_name: "main",
        commit_oid: commit.repeat(40),
        status: "SUCCESS",
        created_at: at,
        updated_at: at,
        finished_at: at,
        base_run_id: baseRunId,
      });
      const checkId = await insert(trx, "checks", {
        key: newRowKey(),
        run_id: runId,
        analyzer_id: analyzerId,
        sequence: 1,
        status: "SUCCESS",
      });
      return { runId, checkId };
    };
    const artifact = (runId: string, checkId: string, key: string, processedAt: string, said: string[]) =>
      insert(trx, "artifacts", {
        key,
        repository_id: repositoryId,
        run_id: runId,
        check_id: checkId,
        kind: "SARIF",
        analyzer: "edge-lint",
        reporter: "api",
        compression: "NONE",
        stored_bytes: 10,
        content_sha256: Buffer.from(randomUUID().replaceAll("-", ""), "hex"),
        status: "PROCESSED",
        result: JSON.stringify({ read: 2, stored: 2, skipped: {}, warnings: said, counts: {} }),
        processed_at: processedAt,
      });
    const row = (
      checkId: string,
      artifactId: string | null,
      fingerprint: string,
      state: string,
      title = "a finding",
    ) =>
      insert(trx, "occurrences", {
        key: newRowKey(),
        check_id: checkId,
        issue_id: issueId,
        artifact_id: artifactId,
        path: "src/x.js",
        begin_line: 1,
        end_line: 1,
        title,
        fingerprint,
        state,
      });

    const first = await runAndCheck("e", "2025-04-01T10:00:00Z", null);
    // Uploaded first, published last: the artifact uploaded after it holds what both gave.
    const late = await artifact(first.runId, first.checkId, "edgelate01", "2025-04-01T10:09:00Z", [
      ...earlierWarnings(20),
      "2 more warning(s) left out.",
    ]);
    const early = await artifact(
      first.runId,
      first.checkId,
      "edgeearly1",
      "2025-04-01T10:01:00Z",
      earlierWarnings(19),
    );
    await row(first.checkId, null, "f1", "INTRODUCED");
    await row(first.checkId, early, "f1", "INTRODUCED");
    await row(first.checkId, early, "f2", "INTRODUCED", "a finding at /home/ci/a/src/x.js");
    await row(first.checkId, late, "f2", "INTRODUCED", "a finding at /home/ci/b/src/x.js");
    await row(first.checkId, late, "f3", "INTRODUCED");
    // The next run copied each base row of f2 as RESOLVED, the one of the artifact dropped first.
    const next = await runAndCheck("f", "2025-04-02T10:00:00Z", first.runId);
    await row(next.checkId, null, "f2", "RESOLVED", "a finding at /home/ci/b/src/x.js");
    await row(next.checkId, null, "f2", "RESOLVED", "a finding at /home/ci/a/src/x.js");
    await row(next.checkId, null, "f1", "RESOLVED");
    await row(next.checkId, null, "f3", "RESOLVED");
  });
}

/** Warnings an artifact's processing gave besides findings already reported. */
function earlierWarnings(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `earlier warning ${i + 1}`);
}

test("the repair keeps findings of no artifact first, then the artifact published first, and the RESOLVED copy of the row kept; its warnings stay within twenty", async () => {
  const database = await createEmptyDatabase();
  cleanups.push(() => database.drop());
  const handle = await openDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    databasePoolSize: 2,
  });
  const { db } = handle;
  try {
    const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(LAST_BEFORE);
    if (error) throw error;
    await writeEdgeCases(db as OldDb);
    assert.ok((await migrateToLatest(db)).includes("0027-findings-stored-twice"));

    const { rows } = await sql<{
      commit: string;
      artifact: string | null;
      fingerprint: string;
      title: string;
    }>`
      SELECT left(r.commit_oid, 1) AS commit, a.key AS artifact, o.fingerprint, o.title
      FROM occurrences AS o JOIN checks AS c ON c.id = o.check_id JOIN analysis_runs AS r ON r.id = c.run_id
      LEFT JOIN artifacts AS a ON a.id = o.artifact_id
      ORDER BY r.commit_oid, o.fingerprint`.execute(db);
    assert.deepEqual(rows, [
      { commit: "e", artifact: null, fingerprint: "f1", title: "a finding" },
      { commit: "e", artifact: "edgeearly1", fingerprint: "f2", title: "a finding at /home/ci/a/src/x.js" },
      { commit: "e", artifact: "edgelate01", fingerprint: "f3", title: "a finding" },
      { commit: "f", artifact: null, fingerprint: "f1", title: "a finding" },
      { commit: "f", artifact: null, fingerprint: "f2", title: "a finding at /home/ci/a/src/x.js" },
      { commit: "f", artifact: null, fingerprint: "f3", title: "a finding" },
    ]);

    const results = await db.selectFrom("artifacts").select(["key", "result"]).orderBy("key").execute();
    const reported = (where: string) =>
      `1 result(s) were already ${where} (the same findings, by fingerprint) and were not counted again.`;
    const outcome = (warnings: string[]) => ({
      read: 2,
      stored: 1,
      skipped: { ALREADY_REPORTED: 1 },
      warnings,
      counts: {},
    });
    assert.deepEqual(results, [
      {
        key: "edgeearly1",
        result: outcome([...earlierWarnings(19), reported("among the check's findings")]),
      },
      // Its sentence is the twenty-first: counted among those left out, as processing counts it.
      { key: "edgelate01", result: outcome([...earlierWarnings(20), "3 more warning(s) left out."]) },
    ]);
    await assertIssueCountsMatchFindings(db, "the repair");
  } finally {
    await handle.close();
  }
});
