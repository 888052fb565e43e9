import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { type OpenTestDatabase, openTestDatabase } from "../../test/helpers/database.ts";
import { arrayParameter } from "./array-parameter.ts";

let database: OpenTestDatabase;
before(async () => {
  database = await openTestDatabase();
});
after(() => database?.close());

/** What the database reads from `values` sent as `arrayParameter` gives them, cast to `type`. */
async function readBack(values: readonly (string | number | boolean | null)[], type: string) {
  const { rows } = await sql<{
    v: unknown[];
  }>`SELECT ${arrayParameter(values)}::${sql.raw(type)} AS v`.execute(database.handle.db);
  return rows[0]?.v;
}

test("text the way JSON writes it is sent as array text, and reads back the same", async () => {
  const values = [
    "plain",
    'a "quoted" word',
    "a back\\slash, and \\\\ two",
    'a backslash before n: \\n, before a quote: \\"',
    "commas, {braces} and 'single quotes'",
    "  spaced  ",
    "",
    "NULL",
    "null",
    "ünïcödé and 😀",
    null,
  ];
  assert.equal(typeof arrayParameter(values), "string");
  assert.deepEqual(await readBack(values, "text[]"), values);
});

test("integers, bigints as text and booleans read back as the arrays given", async () => {
  assert.equal(arrayParameter([1, -2, 0, 2147483647]), "{1,-2,0,2147483647}");
  assert.deepEqual(await readBack([1, -2, 0, 2147483647], "int[]"), [1, -2, 0, 2147483647]);
  assert.deepEqual(await readBack(["9007199254740993", "1"], "bigint[]"), ["9007199254740993", "1"]);
  assert.deepEqual(await readBack([true, false, null], "boolean[]"), [true, false, null]);
  assert.deepEqual(await readBack([], "text[]"), []);
});

test("text JSON would escape otherwise, and numbers it cannot write, go to node-postgres unchanged", async () => {
  for (const values of [
    ["a line\nand another"],
    ["a tab\there", "fine"],
    ["a control \u0001 character"],
    ["a lone surrogate \ud800"],
  ]) {
    assert.equal(arrayParameter(values), values, JSON.stringify(values));
    const expected = values.map((v) => v.replace(/\ud800/, "\ufffd"));
    const read = (await readBack(values, "text[]")) as string[];
    // PostgreSQL stores no lone surrogate: node-postgres sends its UTF-8 replacement.
    assert.deepEqual(read, values[0]?.includes("\ud800") ? expected : values);
  }
  for (const values of [[1, Number.NaN], [Number.POSITIVE_INFINITY]])
    assert.equal(arrayParameter(values), values);
});
