import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { type OpenTestDatabase, openTestDatabase } from "../../test/helpers/database.ts";
import { byPathThenLine } from "./tools-runs.ts";

let database: OpenTestDatabase;
before(async () => {
  database = await openTestDatabase();
});
after(() => database?.close());

/** Paths where bytes, UTF-16 units and a language's rules disagree. */
const PATHS = [
  "src/a.ts",
  "src/B.ts",
  "src/\uFF01.ts",
  "src/\u{1F600}.ts",
  "src/\u00E4.ts",
  "src/a-b.ts",
  "lib/z.ts",
];

test("findings merged across checks come in the database's order of paths, then by line", async () => {
  const findings = PATHS.flatMap((path) => [
    { path, beginLine: 12 },
    { path, beginLine: 3 },
  ]);
  const merged = [...findings].sort(byPathThenLine);
  const { rows } = await sql<{ path: string; line: number }>`
    SELECT f.path, f.line
    FROM unnest(${findings.map((f) => f.path)}::text[], ${findings.map((f) => f.beginLine)}::int[]) AS f(path, line)
    ORDER BY f.path COLLATE "C", f.line`.execute(database.handle.db);
  assert.deepEqual(
    merged.map((f) => [f.path, f.beginLine]),
    rows.map((row) => [row.path, row.line]),
  );
  // Where comparing UTF-16 units would have put them the other way round.
  assert.ok(
    merged.findIndex((f) => f.path === "src/\uFF01.ts") <
      merged.findIndex((f) => f.path === "src/\u{1F600}.ts"),
  );
  assert.ok("src/\u{1F600}.ts" < "src/\uFF01.ts");
});
