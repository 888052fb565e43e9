// test-runner: execution-mode independent (the database connection; no GraphQL)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import { type DatabaseHandle, openDatabase } from "../src/db/database.ts";
import {
  MAX_NAMED_PER_CONNECTION,
  MAX_NAMED_PER_EMBEDDED_CONNECTION,
} from "../src/db/prepared-statements.ts";
import type { Database } from "../src/db/types.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";

/**
 * The API's pool sends a statement seen more than once as a named statement
 * (src/db/prepared-statements.ts), so the database parses it once per connection and may keep its
 * plan; on the embedded database, one session under every connection, each connection's names are
 * its own.
 */

let database: TestDatabase;
let handle: DatabaseHandle;

before(async () => {
  database = await createTestDatabase();
  handle = await openDatabase(
    { databaseUrl: database.databaseUrl, dataDir: database.dataDir, databasePoolSize: 1 },
    { preparedStatements: true },
  );
});
after(async () => {
  await handle?.close();
  await database?.drop();
});

/** Named statements on the pool's one connection whose text is `text`. */
async function namedStatementsOf(db: Kysely<Database>, text: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = ${text} AND NOT from_sql`.execute(
    db,
  );
  return rows[0]!.n;
}

/** A read by a parameter, always the same text. */
const LOOKUP = "select $1::text as name";
const lookup = async (db: Kysely<Database>, name: string) =>
  (await sql<{ name: string }>`select ${name}::text as name`.execute(db)).rows;

describe("the names one connection is given", () => {
  test("stop at the limit: further texts run unnamed, and every answer is right", async () => {
    // A pool of its own, whose one connection has no names yet.
    const own = await openDatabase(
      { databaseUrl: database.databaseUrl, dataDir: database.dataDir, databasePoolSize: 1 },
      { preparedStatements: true },
    );
    try {
      const limit = own.kind === "postgres" ? MAX_NAMED_PER_CONNECTION : MAX_NAMED_PER_EMBEDDED_CONNECTION;
      for (let n = 1; n <= limit + 10; n++) {
        for (let i = 0; i < 2; i++) {
          const { rows } = await sql<{ n: number }>`SELECT ${sql.lit(n)}::int + ${0}::int AS n`.execute(
            own.db,
          );
          assert.deepEqual(rows, [{ n }]);
        }
      }
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_prepared_statements
        WHERE NOT from_sql AND statement LIKE 'SELECT % + $1::int AS n'`.execute(own.db);
      assert.equal(rows[0]!.n, limit);
    } finally {
      await own.close();
    }
  });
});

describe("named statements", () => {
  test("a statement run a second time is named, on either database", async () => {
    const text = LOOKUP;
    await lookup(handle.db, "1");
    assert.equal(await namedStatementsOf(handle.db, text), 0, "a text seen once runs unnamed");
    await lookup(handle.db, "2");
    await lookup(handle.db, "3");
    assert.equal(await namedStatementsOf(handle.db, text), 1);
  });

  test("transaction control is never named, and answers stay right inside a transaction", async () => {
    for (let i = 0; i < 3; i++) {
      const rows = await handle.db.transaction().execute((tx) => lookup(tx, `n${i}`));
      assert.deepEqual(rows, [{ name: `n${i}` }]);
    }
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_prepared_statements
      WHERE NOT from_sql AND statement ~* '^\\s*(begin|commit|rollback)'`.execute(handle.db);
    assert.equal(rows[0]!.n, 0);
  });
});

describe("a named statement whose table changed under it", () => {
  test("is run again unnamed outside a transaction, and named anew afterwards", async () => {
    const db = handle.db;
    await sql`CREATE TABLE prepared_probe (id int PRIMARY KEY, a text)`.execute(db);
    await sql`INSERT INTO prepared_probe VALUES (1, 'one')`.execute(db);
    const read = () =>
      sql<Record<string, unknown>>`SELECT p.* FROM prepared_probe AS p WHERE p.id = ${1}`.execute(db);
    for (let i = 0; i < 3; i++) assert.deepEqual((await read()).rows, [{ id: 1, a: "one" }]);
    // As a newer instance's migration would, while this one runs.
    await sql`ALTER TABLE prepared_probe ADD COLUMN b text DEFAULT 'two'`.execute(db);
    assert.deepEqual((await read()).rows, [{ id: 1, a: "one", b: "two" }]);
    assert.deepEqual((await read()).rows, [{ id: 1, a: "one", b: "two" }]);
  });

  test("fails the transaction it runs in, which the caller retries as a whole", async () => {
    const db = handle.db;
    await sql`CREATE TABLE prepared_probe_tx (id int PRIMARY KEY)`.execute(db);
    const read = (on: Kysely<Database>) =>
      sql`SELECT p.* FROM prepared_probe_tx AS p WHERE p.id = ${1}`.execute(on);
    for (let i = 0; i < 3; i++) await read(db);
    await sql`ALTER TABLE prepared_probe_tx ADD COLUMN c int`.execute(db);
    await assert.rejects(
      db.transaction().execute((tx) => read(tx)),
      /cached plan must not change result type/,
    );
    await db.transaction().execute((tx) => read(tx));
  });
});
