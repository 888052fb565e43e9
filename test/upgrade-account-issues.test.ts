// test-runner: execution-mode independent (migrates a database; no GraphQL)
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Migrator } from "kysely";
import { migrateToLatest, openDatabase } from "../src/db/database.ts";
import { migrationProvider } from "../src/db/migrations/index.ts";
import { newRowKey } from "../src/graphql/global-id.ts";
import { createEmptyDatabase } from "./helpers/database.ts";
import { insert, insertRepositoryWithRun, type OldDb } from "./helpers/legacy-rows.ts";

/**
 * Migration 0039 (docs/ingestion-sarif.md "An account's issues are its own"): every issue stored
 * before is kept with its id and key; a COMMUNITY analyzer's issue that one account alone uses
 * becomes that account's, any other stays shared.
 */

const LAST_BEFORE = "0038-check-fingerprint-version";

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A row of `issues` of `analyzerId`, as every version since the first stores it. */
function anOldIssue(db: OldDb, analyzerId: string, shortcode: string): Promise<string> {
  return insert(db, "issues", {
    key: newRowKey(),
    analyzer_id: analyzerId,
    shortcode,
    title: `Title of ${shortcode}`,
    category: "BUG_RISK",
    severity: "MAJOR",
  });
}

/** An account with a repository, and a finished run of it with one check of `analyzerId`. */
async function anOldAccount(db: OldDb, login: string, analyzerIds: string[]) {
  const { accountId, repositoryId, runId } = await insertRepositoryWithRun(db, login);
  const checks = new Map<string, string>();
  for (const [sequence, analyzerId] of analyzerIds.entries()) {
    checks.set(
      analyzerId,
      await insert(db, "checks", {
        key: newRowKey(),
        run_id: runId,
        analyzer_id: analyzerId,
        sequence,
        status: "SUCCESS",
        finished_at: "2026-11-01T10:05:00Z",
      }),
    );
  }
  return { accountId, repositoryId, checks };
}

/** Counts one finding of `issueId` in `checkId`, as the check's counts store it. */
async function aCount(db: OldDb, checkId: string, issueId: string): Promise<void> {
  await db
    .insertInto("check_issue_counts")
    .values({
      check_id: checkId,
      issue_id: issueId,
      severity: "MAJOR",
      state: "INTRODUCED",
      is_suppressed: false,
      occurrences: 1,
    })
    .execute();
}

test("gives a COMMUNITY analyzer's issue to the one account that uses it, keeps every other shared, and removes none", async () => {
  const database = await createEmptyDatabase();
  cleanups.push(() => database.drop());
  const handle = await openDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    databasePoolSize: 2,
  });
  const db = handle.db as OldDb;
  try {
    const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(LAST_BEFORE);
    if (error) throw error;
    const community = await insert(db, "analyzers", {
      key: newRowKey(),
      shortcode: "eslint",
      name: "eslint",
      type: "COMMUNITY",
    });
    const core = await insert(db, "analyzers", { key: newRowKey(), shortcode: "corelint", name: "corelint" });
    const one = await anOldAccount(db, "one", [community, core]);
    const two = await anOldAccount(db, "two", [community]);
    const three = await anOldAccount(db, "three", []);
    const issues = {
      counted: await anOldIssue(db, community, "counted"),
      both: await anOldIssue(db, community, "both"),
      ignored: await anOldIssue(db, community, "ignored"),
      suppressed: await anOldIssue(db, community, "suppressed"),
      unused: await anOldIssue(db, community, "unused"),
      core: await anOldIssue(db, core, "counted"),
    };
    await aCount(db, one.checks.get(community)!, issues.counted);
    await aCount(db, one.checks.get(community)!, issues.both);
    await aCount(db, two.checks.get(community)!, issues.both);
    await aCount(db, one.checks.get(core)!, issues.core);
    await insert(db, "ignore_rules", {
      key: newRowKey(),
      repository_id: two.repositoryId,
      issue_id: issues.ignored,
      level: "REPOSITORY",
      type: "FOREVER",
    });
    await insert(db, "team_suppressed_issues", {
      key: newRowKey(),
      account_id: three.accountId,
      issue_id: issues.suppressed,
    });
    const before = await db
      .selectFrom("issues")
      .select(["id", "key", "shortcode", "title"])
      .orderBy("id")
      .execute();

    assert.ok((await migrateToLatest(handle.db)).includes("0039-account-issues"));

    const after = await db
      .selectFrom("issues")
      .select(["id", "key", "shortcode", "title", "account_id"])
      .orderBy("id")
      .execute();
    assert.deepEqual(
      after.map(({ account_id: _owner, ...row }) => row),
      before,
      "every issue kept as it was",
    );
    const owner = (id: string) => after.find((row) => String(row.id) === id)?.account_id ?? null;
    assert.equal(String(owner(issues.counted)), one.accountId, "counted by one account's check");
    assert.equal(String(owner(issues.ignored)), two.accountId, "named by one account's ignore rule");
    assert.equal(String(owner(issues.suppressed)), three.accountId, "suppressed by one account's team");
    assert.equal(owner(issues.both), null, "two accounts use it: shared");
    assert.equal(owner(issues.unused), null, "no account uses it: shared");
    assert.equal(owner(issues.core), null, "a CORE analyzer's issue stays the catalog's");

    // An account may now have its own issue of a rule the shared catalog has too, once per account.
    const own = {
      analyzer_id: community,
      shortcode: "both",
      title: "t",
      category: "STYLE",
      severity: "MINOR",
    };
    await insert(db, "issues", { ...own, key: newRowKey(), account_id: one.accountId });
    await assert.rejects(
      insert(db, "issues", { ...own, key: newRowKey(), account_id: one.accountId }),
      /issues_account_shortcode_key/,
    );
    await assert.rejects(insert(db, "issues", { ...own, key: newRowKey() }), /issues_shared_shortcode_key/);
  } finally {
    await handle.close();
  }
});
