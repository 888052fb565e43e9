import assert from "node:assert/strict";
import { after, before, mock, test } from "node:test";
import { DEFAULT_MIGRATION_TABLE, sql } from "kysely";
import { createTestDatabase, type TestDatabase } from "../../test/helpers/database.ts";
import { startTestServer } from "../../test/helpers/server.ts";
import {
  API_IDLE_CONNECTIONS,
  type DatabaseHandle,
  migrateToLatest,
  openDatabase,
  pendingMigrations,
} from "./database.ts";
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

/**
 * Has 4 statements hold a connection of `pool` each at once, then lets the pool stand idle past
 * its idle timeout on mocked timers; answers how many connections it still has.
 */
async function connectionsLeftAfterIdle(pool: DatabaseHandle): Promise<number> {
  let arrived = 0;
  let allArrived!: () => void;
  const everyoneIn = new Promise<void>((resolve) => {
    allArrived = resolve;
  });
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const holders = Array.from({ length: 4 }, () =>
    pool.db.connection().execute(async (connection) => {
      await sql`SELECT 1`.execute(connection);
      arrived += 1;
      if (arrived === 4) allArrived();
      await released;
    }),
  );
  await everyoneIn;
  assert.equal(pool.poolStats().total, 4);
  // The idle timers are set as the connections go back to the pool.
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    release();
    await Promise.all(holders);
    assert.equal(pool.poolStats().idle, 4);
    mock.timers.tick(31_000);
    return pool.poolStats().total;
  } finally {
    mock.timers.reset();
  }
}

/** The same with a pool of its own, of 4 connections, opened with `idleConnections`. */
async function connectionsLeftInPoolOfFour(idleConnections: number | undefined): Promise<number> {
  const pool = await openDatabase(
    { databaseUrl: database.databaseUrl, dataDir: database.dataDir, databasePoolSize: 4 },
    idleConnections === undefined ? {} : { idleConnections },
  );
  try {
    return await connectionsLeftAfterIdle(pool);
  } finally {
    await pool.close();
  }
}

test("a pool keeps its idle connections up to idleConnections past the idle timeout, and closes the others", async () => {
  assert.equal(await connectionsLeftInPoolOfFour(undefined), 0);
  assert.equal(await connectionsLeftInPoolOfFour(2), 2);
  // Never more than the pool's size.
  assert.equal(await connectionsLeftInPoolOfFour(API_IDLE_CONNECTIONS * 4), 4);
});

test("the API's pool keeps its connections open while idle", async () => {
  const server = await startTestServer();
  try {
    assert.equal(await connectionsLeftAfterIdle(server.app.database), API_IDLE_CONNECTIONS);
  } finally {
    await server.stop();
  }
});
