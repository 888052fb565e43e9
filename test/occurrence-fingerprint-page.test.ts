import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Kysely } from "kysely";
import type { Database } from "../src/db/types.ts";
import { findOccurrenceFingerprintPage } from "../src/modules/checks/occurrence-write-store.ts";
import { type OpenTestDatabase, openTestDatabase } from "./helpers/database.ts";
import { aResult, sarifLog, sarifScenes } from "./helpers/sarif-scene.ts";

/**
 * `findOccurrenceFingerprintPage`, the pages staging reads a check in before it writes a row (the
 * base's findings, and the check's own a report must not repeat): every finding once, in the
 * order of the (check, path, line, key) index, each page resuming after the last.
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
});
