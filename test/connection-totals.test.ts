// test-runner: execution-mode independent (the loaders' SQL, no GraphQL execution)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { DatabaseHandle } from "../src/db/database.ts";
import { ConnectionLoaders, type ConnectionSource, type RowFilter } from "../src/graphql/pagination.ts";
import { type OpenTestDatabase, openTestDatabase } from "./helpers/database.ts";

/**
 * A connection's `totalCount` comes from its source's `counted` relation (the group sizes a
 * summary table holds) when the filter reads only columns that relation has, and from the rows
 * otherwise. Here the relation is deliberately not the rows' own counts, so each answer shows
 * which of the two was read.
 */

let database: OpenTestDatabase;
let handle: DatabaseHandle;

before(async () => {
  database = await openTestDatabase();
  handle = database.handle;
});

after(() => database?.close());

// Parent 1 has three rows (two of kind x), parent 2 one; the counted relation says 100 + 10 and 1000.
const source: ConnectionSource = {
  name: "totals-under-test",
  from: sql`(SELECT * FROM (VALUES (1::bigint, 'a', 'x'), (1::bigint, 'b', 'x'), (1::bigint, 'c', 'y'),
    (2::bigint, 'd', 'x')) AS v(parent_id, key, kind))`,
  parentColumn: "parent_id",
  order: [{ column: "key", kind: "text" }],
  direction: "asc",
  counted: {
    from: sql`(SELECT * FROM (VALUES (1::bigint, 'x', 100), (1::bigint, 'y', 10), (2::bigint, 'x', 1000))
      AS v(parent_id, kind, n))`,
    columns: ["parent_id", "kind"],
  },
};

async function totals(filter?: RowFilter): Promise<number[]> {
  const loaders = new ConnectionLoaders(handle.db);
  const connections = await Promise.all(
    ["1", "2", "3"].map((parent) => loaders.load(source, parent, {}, filter)),
  );
  return Promise.all(connections.map((connection) => connection.totalCount()));
}

describe("connection totals", () => {
  test("without a filter, every parent's total is summed from the counted relation in one batch", async () => {
    assert.deepEqual(await totals(), [110, 1000, 0]);
  });

  test("a filter on the relation's columns is summed from it", async () => {
    assert.deepEqual(
      await totals({ key: "kind", condition: sql<boolean>`s.kind = 'x'`, columns: ["kind"] }),
      [100, 1000, 0],
    );
  });

  test("a filter on a column the relation lacks counts the rows", async () => {
    assert.deepEqual(
      await totals({ key: "key", condition: sql<boolean>`s.key <> 'a'`, columns: ["key"] }),
      [2, 1, 0],
    );
  });

  test("a filter that does not say what it reads counts the rows", async () => {
    assert.deepEqual(await totals({ key: "opaque", condition: sql<boolean>`s.kind = 'x'` }), [2, 1, 0]);
  });

  test("pages are always read from the rows", async () => {
    const loaders = new ConnectionLoaders(handle.db);
    const page = await loaders.load<{ key: string }>(source, "1", { first: 2 });
    assert.deepEqual(
      page.edges.map((edge) => edge.node.key),
      ["a", "b"],
    );
    assert.equal(await page.pageInfo.hasNextPage(), true);
  });
});
