import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DEFAULT_MIGRATION_TABLE, sql } from "kysely";
import { createTestDatabase, type TestDatabase } from "../../test/helpers/database.ts";
import { type DatabaseHandle, migrateToLatest, openDatabase, pendingMigrations } from "./database.ts";
import { migrationProvider } from "./migrations/index.ts";

let database: TestDatabase;
let handle: DatabaseHandle;
const statements: string[] = [];
let names: string[];

before(async () => {
  database = await createTestDatabase();
  handle = await openDatabase(
    { databaseUrl: database.databaseUrl, dataDir: database.dataDir, databasePoolSize: 2 },
    { onQuery: (text) => statements.push(text) },
  );
  names = Object.keys(await migrationProvider.getMigrations()).sort();
});

after(async () => {
  await handle?.close();
  await database?.drop();
});

const table = sql.table(DEFAULT_MIGRATION_TABLE);

test("a database with every migration applied is checked with one read of the migration table", async () => {
  statements.length = 0;
  assert.deepEqual(await migrateToLatest(handle.db), []);
  assert.deepEqual(await pendingMigrations(handle.db), []);
  // Kysely's migrator would first list every column of every table (pg_attribute), twice.
  assert.equal(statements.filter((text) => /pg_attribute/.test(text)).length, 0);
  assert.ok(statements.length <= 4, `${statements.length} statements:\n${statements.join("\n")}`);
});

test("a migration the database has not applied is listed as pending, in order", async () => {
  const [first, second] = names.slice(-2) as [string, string];
  const { rows } = await sql<{ name: string; timestamp: string }>`
    DELETE FROM ${table} WHERE name IN (${first}, ${second}) RETURNING name, timestamp`.execute(handle.db);
  try {
    assert.deepEqual(await pendingMigrations(handle.db), [first, second]);
  } finally {
    for (const row of rows)
      await sql`INSERT INTO ${table} (name, timestamp) VALUES (${row.name}, ${row.timestamp})`.execute(
        handle.db,
      );
  }
  assert.deepEqual(await pendingMigrations(handle.db), []);
});

test("a database that applied a migration this code does not know is refused, as before", async () => {
  const newer = "9999-from-a-newer-version";
  await sql`INSERT INTO ${table} (name, timestamp) VALUES (${newer}, ${new Date().toISOString()})`.execute(
    handle.db,
  );
  try {
    await assert.rejects(
      migrateToLatest(handle.db),
      /corrupted migrations: previously executed migration 9999/,
    );
    assert.deepEqual(await pendingMigrations(handle.db), []);
  } finally {
    await sql`DELETE FROM ${table} WHERE name = ${newer}`.execute(handle.db);
  }
  assert.deepEqual(await migrateToLatest(handle.db), []);
});

test("migrations recorded out of order are refused, as before", async () => {
  const [first, second] = names.slice(0, 2) as [string, string];
  const { rows } = await sql<{ name: string; timestamp: string }>`
    SELECT name, timestamp FROM ${table} WHERE name IN (${first}, ${second}) ORDER BY name`.execute(
    handle.db,
  );
  const later = new Date(Date.parse(rows[1]!.timestamp) + 1000).toISOString();
  await sql`UPDATE ${table} SET timestamp = ${later} WHERE name = ${first}`.execute(handle.db);
  try {
    await assert.rejects(migrateToLatest(handle.db), /corrupted migrations/);
  } finally {
    await sql`UPDATE ${table} SET timestamp = ${rows[0]!.timestamp} WHERE name = ${first}`.execute(handle.db);
  }
  assert.deepEqual(await migrateToLatest(handle.db), []);
});
