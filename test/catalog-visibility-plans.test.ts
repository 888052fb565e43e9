// test-runner: execution-mode independent (the stores' SQL on the database; no GraphQL)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import type { AccountRow, AnalyzerRow, Database, IssueRow, UserRow } from "../src/db/types.ts";
import { ConnectionLoaders } from "../src/graphql/pagination.ts";
import {
  countVisibleIssuesByCategory,
  findVisibleIssuesByAnalyzerAndShortcode,
  findVisibleIssuesByKeys,
  visibleIssuesOfAnalyzer,
} from "../src/modules/catalog/catalog-store.ts";
import { anAccount, aUser } from "./helpers/builders.ts";
import { anAnalyzer, issuesIn } from "./helpers/builders-catalog.ts";
import { type OpenTestDatabase, openTestDatabase } from "./helpers/database.ts";
import { analysedPlanOf, recordingStatements, rowsVisited } from "./helpers/plans.ts";

/**
 * An analyzer's issues as a viewer reads them (`Analyzer.issues`, `issue(shortcode:)`,
 * `numIssues`, `issueDistribution`, `node(id:)`) are the shared catalog's and the viewer's
 * accounts' own (src/modules/catalog/catalog-store.ts `issuesVisibleTo`). With one tool used by
 * many accounts, each with its own issue of every rule, what each of these statements visits must
 * stay the shared issues and the viewer's accounts' own: a plan that walks the analyzer's issues
 * and filters out other accounts' would cost every viewer as much as all accounts together.
 */

const SHARED = 30;
const RULES = 25;
const OTHER_ACCOUNTS = 200;
/** What the viewer may read of the analyzer: the shared issues and its two accounts' own. */
const VISIBLE = SHARED + 2 * RULES;

let database: OpenTestDatabase;
let db: Kysely<Database>;
let analyzer: AnalyzerRow;
let viewer: UserRow;
let mine: AccountRow[];
let shared: IssueRow[];
let own: IssueRow[];
let others: IssueRow[];

/** The issues of one tool's rules, as an account's uploads file them. */
function rulesOf(account: AccountRow) {
  return Array.from({ length: RULES }, (_, n) => ({ analyzer, account, shortcode: `rule-${n}` }));
}

before(async () => {
  database = await openTestDatabase();
  db = database.handle.db;
  analyzer = await anAnalyzer(db, { type: "COMMUNITY" });
  shared = await issuesIn(
    db,
    Array.from({ length: SHARED }, () => ({ analyzer })),
  );
  viewer = await aUser(db);
  mine = [
    await anAccount(db, {}, [{ user: viewer }]),
    await anAccount(db, {}, [{ user: viewer, role: "CONTRIBUTOR" }]),
  ];
  own = await issuesIn(db, mine.flatMap(rulesOf));
  const strangers: AccountRow[] = [];
  for (let n = 0; n < OTHER_ACCOUNTS; n++) {
    strangers.push(await anAccount(db, {}, [{ user: await aUser(db) }]));
  }
  others = await issuesIn(db, strangers.flatMap(rulesOf));
  await sql`ANALYZE issues`.execute(db);
  await sql`ANALYZE memberships`.execute(db);
});
after(async () => {
  await database?.close();
});

/** The statements `read` sends, each with the rows of `issues` its plan visits. */
async function issueRowsVisited(read: (db: Kysely<Database>) => Promise<unknown>): Promise<number[]> {
  const recording = recordingStatements(db);
  await read(recording.db);
  const { statements } = recording;
  assert.ok(statements.length > 0);
  return Promise.all(
    statements.map(async (statement) => rowsVisited(await analysedPlanOf(db, statement), "issues")),
  );
}

/** Asserts each statement visited at most what the viewer may read. */
function assertWithinVisible(visited: readonly number[]): void {
  for (const rows of visited) {
    assert.ok(
      rows <= VISIBLE,
      `${rows} issue rows visited; the viewer reads ${VISIBLE} of the ${SHARED + (2 + OTHER_ACCOUNTS) * RULES}`,
    );
  }
}

describe("an analyzer's issues read for a viewer among many accounts", () => {
  test("a page of Analyzer.issues and its total visit only the shared issues and the viewer's accounts'", async () => {
    let page: string[] = [];
    let total = 0;
    const visited = await issueRowsVisited(async (recording) => {
      const connection = await new ConnectionLoaders(recording).load<IssueRow>(
        visibleIssuesOfAnalyzer(viewer.id),
        analyzer.id,
        { first: 20 },
      );
      page = connection.edges.map((edge) => edge.node.key);
      total = await connection.totalCount();
    });
    assert.equal(visited.length, 2);
    assertWithinVisible(visited);
    const visible = new Set([...shared, ...own].map((issue) => issue.key));
    assert.equal(new Set(page).size, 20);
    assert.ok(page.every((key) => visible.has(key)));
    assert.equal(total, VISIBLE);
  });

  test("issue(shortcode:) visits only the viewer's accounts' issues of the shortcode, and answers the first filed", async () => {
    let found: IssueRow[] = [];
    const visited = await issueRowsVisited(async (recording) => {
      found = await findVisibleIssuesByAnalyzerAndShortcode(recording, viewer.id, [
        { analyzerId: analyzer.id, shortcode: "rule-7" },
      ]);
    });
    assert.ok(
      visited.every((rows) => rows <= 2),
      `${visited} issue rows visited for one shortcode`,
    );
    assert.deepEqual(
      found.map((issue) => issue.key),
      [own.find((issue) => issue.shortcode === "rule-7" && issue.account_id === mine[0]!.id)!.key],
    );
  });

  test("numIssues and issueDistribution (one count) visit only what the viewer may read", async () => {
    let counts: Array<{ count: number }> = [];
    const visited = await issueRowsVisited(async (recording) => {
      counts = await countVisibleIssuesByCategory(recording, viewer.id, [analyzer.id]);
    });
    assertWithinVisible(visited);
    assert.equal(
      counts.reduce((sum, row) => sum + row.count, 0),
      VISIBLE,
    );
  });

  test("node(id:) of issues visits only the keys asked for, and answers none of another account's", async () => {
    const keys = [shared[0]!.key, own[0]!.key, others[0]!.key, others.at(-1)!.key];
    let found: IssueRow[] = [];
    const visited = await issueRowsVisited(async (recording) => {
      found = await findVisibleIssuesByKeys(recording, viewer.id, keys);
    });
    // Each key is looked up at most once among the shared issues and once for each of the
    // viewer's accounts.
    assert.ok(
      visited.every((rows) => rows <= keys.length * (1 + mine.length)),
      `${visited} issue rows visited for ${keys.length} keys`,
    );
    assert.deepEqual(found.map((issue) => issue.key).sort(), [shared[0]!.key, own[0]!.key].sort());
  });
});
