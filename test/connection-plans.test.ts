// test-runner: execution-mode independent (the database connection; no GraphQL)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import { type DatabaseHandle, openDatabase } from "../src/db/database.ts";
import type { Database } from "../src/db/types.ts";
import {
  ConnectionLoaders,
  type ConnectionResult,
  type ConnectionSource,
  type RowFilter,
} from "../src/graphql/pagination.ts";
import { ingestRunSbom } from "../src/ingestion/sca/sbom-upload.ts";
import { enabledAnalyzersOfRepository } from "../src/modules/checks/enabled-analyzers-store.ts";
import {
  occurrenceFilter,
  occurrencesOfIssueInCheck,
  occurrencesOfRepository,
} from "../src/modules/checks/occurrence-store.ts";
import {
  findVisibleRepositoryIssuesByKeys,
  type RepositoryIssueRow,
  repositoryIssueFilter,
  repositoryIssuesOfRepository,
} from "../src/modules/checks/repository-issue-store.ts";
import { seedDemo } from "../src/modules/demo/demo-seed.ts";
import { runsOfRepository } from "../src/modules/runs/run-store.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { analysedPlanOf, recordingStatements, rowsVisited } from "./helpers/plans.ts";

/**
 * A page or a total of one repository from a source rooted at the repository's row
 * (`samePlanForEveryParent`) is sent with the repository as a plain parameter, so that the API's
 * named statements get one generic plan per connection instead of being planned at every run
 * (docs/benchmarks.md "One plan for a repository's issues"). The answers must be the ones the
 * array form gives when several repositories are read in one statement. The same holds for a
 * repository issue looked up by its key (`node(id:)` of a `RepositoryIssue`).
 */

let database: TestDatabase;
let handle: DatabaseHandle;
/** The demo's repositories with current findings, by internal id. */
let repositoryIds: string[];
/** The demo user, who sees them. */
let viewerId: string;

before(async () => {
  database = await createTestDatabase();
  // One connection, as the API's pool names statements: pg_prepared_statements shows this session's.
  handle = await openDatabase(
    { databaseUrl: database.databaseUrl, dataDir: database.dataDir, databasePoolSize: 1 },
    { preparedStatements: true },
  );
  const { email } = await seedDemo(handle.db, {
    pepper: "connection-plans-pepper",
    uploadSbom: ingestRunSbom,
  });
  viewerId = (
    await handle.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow()
  ).id;
  const { rows } = await sql<{ id: string }>`
    SELECT DISTINCT c.repository_id::text AS id FROM checks AS c
    JOIN check_issue_counts AS k ON k.check_id = c.id ORDER BY 1`.execute(handle.db);
  repositoryIds = rows.map((row) => row.id);
});
after(async () => {
  await handle?.close();
  await database?.drop();
});

/**
 * The page (its rows and cursors) and the total of each parent, read together in one batch, of
 * the rows `filter` keeps.
 */
async function read(
  db: Kysely<Database>,
  source: ConnectionSource,
  parents: readonly string[],
  filter?: RowFilter,
): Promise<Array<{ rows: unknown[]; cursors: string[]; total: number }>> {
  const loaders = new ConnectionLoaders(db);
  const results = await Promise.all(
    parents.map(
      (parent) =>
        loaders.load<unknown>(source, parent, { first: 5 }, filter) as Promise<ConnectionResult<unknown>>,
    ),
  );
  return Promise.all(
    results.map(async (result) => ({
      rows: result.edges.map((edge) => edge.node),
      cursors: result.edges.map((edge) => edge.cursor),
      total: await result.totalCount(),
    })),
  );
}

/** Plans PostgreSQL made for this session's named statements whose text contains `marker`. */
async function plansOf(db: Kysely<Database>, marker: string) {
  const { rows } = await sql<{ statement: string; generic: number; custom: number }>`
    SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom
    FROM pg_prepared_statements WHERE NOT from_sql AND strpos(statement, ${marker}) > 0`.execute(db);
  return rows;
}

describe("a connection of one repository", () => {
  test("the demo has several repositories with findings", () => {
    assert.ok(repositoryIds.length >= 2, `repositories with findings: ${repositoryIds.length}`);
  });

  // Each source as the API reads it: the repository's lists always with their suppression filter.
  const reads: Array<[string, ConnectionSource, RowFilter | undefined]> = [
    ["Repository.issues", repositoryIssuesOfRepository, repositoryIssueFilter({})],
    [
      "Repository.issues(isSuppressed: true)",
      repositoryIssuesOfRepository,
      repositoryIssueFilter({ isSuppressed: true }),
    ],
    ["Repository.issueOccurrences", occurrencesOfRepository, occurrenceFilter({})],
    [
      "Repository.issueOccurrences(isSuppressed: true)",
      occurrencesOfRepository,
      occurrenceFilter({ isSuppressed: true }),
    ],
    ["Repository.enabledAnalyzers", enabledAnalyzersOfRepository, undefined],
  ];
  for (const [name, source, filter] of reads) {
    test(`${name}: one repository alone reads what a batch of several reads for it`, async () => {
      const together = await read(handle.db, source, repositoryIds, filter);
      assert.ok(
        together.some((connection) => connection.total > 0),
        "some repository has rows, or the comparison proves nothing",
      );
      for (const [i, id] of repositoryIds.entries()) {
        const [alone] = await read(handle.db, source, [id], filter);
        assert.deepEqual(alone, together[i], `repository ${id}`);
      }
    });
  }

  test("its page and its total are planned once and then run on a generic plan", async () => {
    const [id] = repositoryIds;
    for (let run = 0; run < 8; run++) {
      await read(handle.db, repositoryIssuesOfRepository, [id!], repositoryIssueFilter({}));
    }
    // The source's columns name its statements; the page selects `__parent`, the total counts.
    // The default list's statements: other tests read the silenced list on this connection too.
    const plans = (await plansOf(handle.db, "i.shortcode, i.analyzer_id, i.tags")).filter((plan) =>
      plan.statement.includes("(s.has_unsuppressed)"),
    );
    const page = plans.filter((plan) => /FROM \(SELECT cast\(\$1 as bigint\)/.test(plan.statement));
    const total = plans.filter((plan) => plan.statement.includes('s."repository_id" = cast($1 as bigint)'));
    assert.equal(page.length, 1, JSON.stringify(plans.map((plan) => plan.statement.slice(0, 80))));
    assert.equal(total.length, 1);
    assert.ok(page[0]!.generic > 0, `page: ${JSON.stringify({ ...page[0], statement: undefined })}`);
    assert.ok(total[0]!.generic > 0, `total: ${JSON.stringify({ ...total[0], statement: undefined })}`);
  });

  test("a source read by a range of the parent's index keeps a plan made for each parent", async () => {
    const [id] = repositoryIds;
    for (let run = 0; run < 8; run++) await read(handle.db, runsOfRepository, [id!]);
    // The runs' page: the table itself under the parent, whatever else mentions it.
    const plans = (await plansOf(handle.db, "FROM analysis_runs AS s")).filter((plan) =>
      /FROM analysis_runs AS s\s+WHERE s\."repository_id" = "p"\."parent_id"/.test(plan.statement),
    );
    assert.equal(plans.length, 1, JSON.stringify(plans.map((plan) => plan.statement.slice(0, 80))));
    // Sent as an array of parents, which PostgreSQL plans for the values at every run.
    assert.match(plans[0]!.statement, /unnest\(/);
  });
});

describe("a repository issue by its key", () => {
  test("one key alone reads what a batch of several reads for it, and runs on a generic plan", async () => {
    const { rows } = await sql<{ key: string }>`
      SELECT r.key || i.key AS key FROM repositories AS r, issues AS i
      WHERE r.id = ${repositoryIds[0]} AND i.id IN (SELECT issue_id FROM check_issue_counts LIMIT 3)
      UNION ALL SELECT 'absentabsentabsentabsent'`.execute(handle.db);
    const keys = rows.map((row) => row.key);
    const together = await findVisibleRepositoryIssuesByKeys(handle.db, viewerId, keys);
    assert.ok(together.length > 0, "some key names a present issue, or the comparison proves nothing");
    for (const key of keys) {
      const alone = await findVisibleRepositoryIssuesByKeys(handle.db, viewerId, [key]);
      assert.deepEqual(
        alone,
        together.filter((row) => row.key === key),
        key,
      );
    }
    for (let run = 0; run < 8; run++)
      await findVisibleRepositoryIssuesByKeys(handle.db, viewerId, [keys[0]!]);
    const plans = (await plansOf(handle.db, "AS w(repository_key, issue_key)")).filter(
      (plan) => !plan.statement.includes("unnest("),
    );
    assert.equal(plans.length, 1, JSON.stringify(plans.map((plan) => plan.statement.slice(0, 80))));
    assert.ok(plans[0]!.generic > 0, JSON.stringify({ ...plans[0], statement: undefined }));
  });
});

describe("silenced findings in the repository's lists", () => {
  // Counts the rows themselves: a filter that does not say which columns it reads.
  const everyRow: RowFilter = { key: "every row", condition: sql<boolean>`true` };

  test("the findings that need attention and the silenced ones are every current finding, and the demo has both", async () => {
    const [open, silenced, all] = await Promise.all([
      read(handle.db, occurrencesOfRepository, repositoryIds, occurrenceFilter({})),
      read(handle.db, occurrencesOfRepository, repositoryIds, occurrenceFilter({ isSuppressed: true })),
      read(handle.db, occurrencesOfRepository, repositoryIds, everyRow),
    ]);
    assert.ok(
      open.some((connection) => connection.total > 0),
      "some repository has open findings",
    );
    assert.ok(
      silenced.some((connection) => connection.total > 0),
      "some repository has silenced findings",
    );
    for (const [i, id] of repositoryIds.entries()) {
      assert.equal(open[i]!.total + silenced[i]!.total, all[i]!.total, `repository ${id}`);
    }
  });

  test("the repository's issues and every total of its findings are filtered without reading a finding", async () => {
    const recording = recordingStatements(handle.db);
    const loaders = new ConnectionLoaders(recording.db);
    let issuesOfBothKinds = 0;
    for (const id of repositoryIds) {
      for (const isSuppressed of [false, true]) {
        const issues = await loaders.load<RepositoryIssueRow>(
          repositoryIssuesOfRepository,
          id,
          { first: 5 },
          repositoryIssueFilter({ isSuppressed }),
        );
        await issues.totalCount();
        const findings = await loaders.load(
          occurrencesOfRepository,
          id,
          { first: 5 },
          occurrenceFilter({ isSuppressed }),
        );
        await findings.totalCount();
        const [first] = issues.edges;
        if (!first) continue;
        issuesOfBothKinds += isSuppressed ? 1 : 0;
        const ofIssue = await loaders.load(
          occurrencesOfIssueInCheck,
          `${first.node.check_id}:${first.node.issue_id}`,
          { first: 5 },
          occurrenceFilter({ isSuppressed }),
        );
        await ofIssue.totalCount();
      }
    }
    assert.ok(issuesOfBothKinds > 0, "some repository has an issue with silenced findings");
    // The issues' pages and totals read the checks' issue counts; the findings' totals sum them.
    const explained = recording.statements.filter(
      (statement) => statement.sql.includes("has_unsuppressed") || statement.sql.includes("sum(s.n)"),
    );
    assert.ok(explained.length >= 8, `${explained.length} statements explained`);
    let counted = 0;
    for (const statement of explained) {
      const plan = await analysedPlanOf(handle.db, statement);
      assert.equal(rowsVisited(plan, "occurrences"), 0, statement.sql.slice(0, 200));
      counted += rowsVisited(plan, "check_issue_counts");
    }
    assert.ok(counted > 0, "the statements read the checks' issue counts");
  });
});
