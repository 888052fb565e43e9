// test-runner: execution-mode independent (processing on a database, no GraphQL)
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Kysely } from "kysely";
import type { Database } from "../src/db/types.ts";
import { recomputeFindingStates } from "../src/ingestion/sarif/finding-states.ts";
import { type OpenTestDatabase, openTestDatabase } from "./helpers/database.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { type Scene, sarifScenes } from "./helpers/sarif-scene.ts";

/**
 * The states of a renamed file's findings on a real database (docs/ingestion.md "Renamed
 * files"), through the paths that compare a check with its base: as the report is staged and
 * published (the base findings it lacks remembered from staging), and when a rebase sets every
 * state again (the state pass over the check and the RESOLVED copies of the base). The reports are ESLint's of test/fixtures/tools/js-renames before and after
 * `git mv src/outside.js src/ranges/outside.js` (scripts/make-fixtures.sh renames).
 */

const REPORTS = path.resolve(import.meta.dirname, "fixtures", "renames");
/** Where make-fixtures.sh ran ESLint: the SARIF's absolute paths lie under it. */
const WORK_DIR = "/tmp/assay-fixtures/js-renames";
const RENAMED = new Map([["src/ranges/outside.js", "src/outside.js"]]);

let database: OpenTestDatabase;
let db: Kysely<Database>;

before(async () => {
  database = await openTestDatabase();
  db = database.handle.db;
});

after(() => database?.close());

const { aScene, aNextScene, ingest, summaryOf } = sarifScenes(() => db);

const report = (version: string) => fs.readFile(path.join(REPORTS, `${version}.sarif`), "utf8");

/** The base check: ESLint's three findings in src/outside.js. */
async function aBase(): Promise<Scene> {
  const base = await aScene();
  await ingest(base, await report("base"), { workDir: WORK_DIR });
  assert.deepEqual(await summaryOf(base.check.id), [
    "eqeqeq src/outside.js:6:17 INTRODUCED",
    "no-unused-vars src/outside.js:5:9 INTRODUCED",
    "prefer-const src/outside.js:3:7 INTRODUCED",
  ]);
  return base;
}

const EXISTING_AT_NEW_PATH = [
  "eqeqeq src/ranges/outside.js:6:17 EXISTING",
  "no-unused-vars src/ranges/outside.js:5:9 EXISTING",
  "prefer-const src/ranges/outside.js:3:7 EXISTING",
];

describe("a renamed file's findings against the base", () => {
  // The base read into memory and judged in Node, or too large for that and looked up by PostgreSQL.
  for (const [judged, rememberedBase] of [
    ["in Node", undefined],
    ["by PostgreSQL", 0],
  ] as const) {
    it(`are EXISTING at the new path and nothing is RESOLVED (the base judged ${judged})`, async () => {
      const base = await aBase();
      const head = await aNextScene(base);
      const { result } = await ingest(head, await report("moved"), {
        workDir: WORK_DIR,
        baseCheckId: base.check.id,
        renamedFiles: RENAMED,
        ...(rememberedBase === undefined ? {} : { rememberedBase }),
      });
      assert.deepEqual(await summaryOf(head.check.id), EXISTING_AT_NEW_PATH);
      assert.deepEqual(
        [result.counts?.introduced, result.counts?.existing, result.counts?.resolved],
        [0, 3, 0],
      );
      await assertIssueCountsMatchFindings(db, "a renamed file");
    });
  }

  it("stay EXISTING when a rebase sets the states again, and INTRODUCED without a base", async () => {
    const base = await aBase();
    const head = await aNextScene(base);
    await ingest(head, await report("moved"), {
      workDir: WORK_DIR,
      baseCheckId: base.check.id,
      renamedFiles: RENAMED,
    });
    await db.transaction().execute((tx) => recomputeFindingStates(tx, head.check.id, null));
    assert.deepEqual(
      await summaryOf(head.check.id),
      EXISTING_AT_NEW_PATH.map((line) => line.replace("EXISTING", "INTRODUCED")),
    );
    const counts = await db
      .transaction()
      .execute((tx) => recomputeFindingStates(tx, head.check.id, base.check.id));
    assert.deepEqual(await summaryOf(head.check.id), EXISTING_AT_NEW_PATH);
    assert.deepEqual([counts.introduced, counts.existing, counts.resolved], [0, 3, 0]);
    await assertIssueCountsMatchFindings(db, "a rebase");
  });

  it("without the rename are RESOLVED at the old path and INTRODUCED at the new one, as before", async () => {
    const base = await aBase();
    const head = await aNextScene(base);
    await ingest(head, await report("moved"), { workDir: WORK_DIR, baseCheckId: base.check.id });
    assert.deepEqual(await summaryOf(head.check.id), [
      "eqeqeq src/outside.js:6:17 RESOLVED",
      "eqeqeq src/ranges/outside.js:6:17 INTRODUCED",
      "no-unused-vars src/outside.js:5:9 RESOLVED",
      "no-unused-vars src/ranges/outside.js:5:9 INTRODUCED",
      "prefer-const src/outside.js:3:7 RESOLVED",
      "prefer-const src/ranges/outside.js:3:7 INTRODUCED",
    ]);
  });
});
