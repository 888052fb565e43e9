import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Kysely, KyselyPlugin, QueryResult, UnknownRow } from "kysely";
import type { Database } from "../src/db/types.ts";
import { findOccurrenceFingerprintPage } from "../src/modules/checks/occurrence-write-store.ts";
import { type OpenTestDatabase, openTestDatabase } from "./helpers/database.ts";
import { aResult, sarifLog, sarifScenes } from "./helpers/sarif-scene.ts";

/**
 * `findOccurrenceFingerprintPage`, the pages staging reads a check in (the base, or the findings
 * a report must not repeat): each page sends the position of its last row alone, read by a second
 * statement (docs/benchmarks.md "Fewer columns in the pages of a check's findings").
 */

let database: OpenTestDatabase;
let db: Kysely<Database>;

before(async () => {
  database = await openTestDatabase();
  db = database.handle.db;
});

after(() => database?.close());

const { aScene, ingest, occurrencesOf } = sarifScenes(() => db);

/** A check holding one finding in each of `files`, in that (path) order. */
async function aCheckWith(files: string[]): Promise<string> {
  const scene = await aScene();
  const results = files.map((file) => aResult("unused", file, 1, { message: `'${file}' is unused.` }));
  await ingest(scene, sarifLog([{ rules: [{ id: "unused" }], results }]));
  return scene.check.id;
}

/** Every page of the check, `size` rows each, as fingerprints. */
async function allPages(source: Kysely<Database>, checkId: string, size: number): Promise<string[][]> {
  const pages: string[][] = [];
  let after = null;
  do {
    const page = await findOccurrenceFingerprintPage(source, checkId, after, size);
    pages.push(page.rows.map((row) => row.fingerprint));
    after = page.next;
  } while (after !== null);
  return pages;
}

describe("a check's findings a page at a time", () => {
  it("reads every finding once, in path order, whatever the page size", async () => {
    const checkId = await aCheckWith(["src/a.js", "src/b.js", "src/c.js", "src/d.js", "src/e.js"]);
    const byPath = (await occurrencesOf(checkId)).map((o) => o.fingerprint);
    for (const size of [1, 2, 5, 6]) {
      const pages = await allPages(db, checkId, size);
      assert.deepEqual(pages.flat(), byPath, `pages of ${size}`);
      assert.ok(pages.every((page) => page.length <= size));
    }
  });

  it("reads the page again whole when its last row is deleted before its position is read", async () => {
    const checkId = await aCheckWith(["src/a.js", "src/b.js", "src/c.js"]);
    const [a, b, c] = (await occurrencesOf(checkId)).map((o) => o.fingerprint);
    let deleted = false;
    // After the page's first statement answers, its last row goes (as a failed artifact's rows do).
    const deleteLastRow: KyselyPlugin = {
      transformQuery: (args) => args.node,
      async transformResult(args): Promise<QueryResult<UnknownRow>> {
        const rows = args.result.rows;
        const last = rows.at(-1);
        if (!deleted && rows.length === 2 && last && "fingerprint" in last && !("path" in last)) {
          deleted = true;
          await db.deleteFrom("occurrences").where("id", "=", String(last.id)).execute();
        }
        return args.result;
      },
    };
    const pages = await allPages(db.withPlugin(deleteLastRow), checkId, 2);
    assert.equal(deleted, true, "the row was deleted between the page's two statements");
    // b's row is gone; the page read again holds a and c, and ends where c does.
    assert.deepEqual(pages, [[a, c], []]);
    assert.ok(b !== undefined && !pages.flat().includes(b));
  });
});
