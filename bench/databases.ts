import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { type AppOptions, type RunningApp, startApp } from "../src/app.ts";
import { parseConfig } from "../src/config.ts";
import { migrateToLatest, openDatabase } from "../src/db/database.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { ingestRunSbom } from "../src/ingestion/sca/sbom-upload.ts";
import { createLogger } from "../src/logger.ts";
import { seedDemo } from "../src/modules/demo/demo-seed.ts";
import type { Cleanup } from "./processes.ts";

/**
 * The data the benchmark runs against: a fresh database of its own on each backend, migrated and
 * holding the demo seed, removed at clean-up.
 *
 * It does not reuse test/helpers/database.ts: `prepareTemplate` drops and recreates the shared
 * `assay_test_template` database, which would break a test run going on at the same time. A
 * benchmark database is created empty, migrated and seeded instead (a second or two).
 */

/** The demo repository the `node(id:)` query asks for. */
const BENCH_REPOSITORY = "api-gateway";

/** A seeded database and what the queries need from it. */
export interface BenchDatabase {
  backend: "embedded" | "postgres";
  /** PostgreSQL connection string; undefined for the embedded database. */
  databaseUrl: string | undefined;
  /** The embedded database's data directory (an empty temp directory for PostgreSQL). */
  dataDir: string;
  /** The demo user's personal access token. */
  token: string;
  /** The demo user's e-mail, which `{ viewer { email } }` must return. */
  email: string;
  /** The global id and name of a repository the demo user can see. */
  repository: { id: string; name: string };
}

function databaseUrlFor(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs one statement on the server's `postgres` database. */
async function adminQuery(base: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrlFor(base, "postgres") });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Migrates and seeds the database at `databaseUrl` (or the embedded one in `dataDir`). */
async function migrateAndSeed(
  databaseUrl: string | undefined,
  dataDir: string,
  pepper: string,
): Promise<Pick<BenchDatabase, "token" | "email" | "repository">> {
  const handle = await openDatabase({ databaseUrl, dataDir, databasePoolSize: 2 });
  try {
    await migrateToLatest(handle.db);
    const { token, email } = await seedDemo(handle.db, { pepper, uploadSbom: ingestRunSbom });
    const row = await handle.db
      .selectFrom("repositories")
      .select(["key", "name"])
      .where("name", "=", BENCH_REPOSITORY)
      .executeTakeFirstOrThrow();
    return { token, email, repository: { id: encodeGlobalId("Repository", row.key), name: row.name } };
  } finally {
    await handle.close();
  }
}

/**
 * Creates a seeded database on `backend` (PostgreSQL under `postgresUrl`'s server) and registers
 * its removal with `cleanup`.
 */
export async function createBenchDatabase(
  backend: "embedded" | "postgres",
  postgresUrl: string | undefined,
  pepper: string,
  cleanup: Cleanup,
  /** PostgreSQL only: the new database's locale (collation and character classes), else the server's default. */
  locale?: string,
): Promise<BenchDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-bench-"));
  cleanup.add(`remove ${dataDir}`, async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  if (backend === "embedded") {
    return {
      backend,
      databaseUrl: undefined,
      dataDir,
      ...(await migrateAndSeed(undefined, dataDir, pepper)),
    };
  }
  if (!postgresUrl) throw new Error("the PostgreSQL benchmark needs DATABASE_URL");
  const name = `assay_bench_${randomBytes(6).toString("hex")}`;
  if (locale !== undefined && !/^[A-Za-z0-9_.@-]+$/.test(locale))
    throw new Error(`not a locale name: ${locale}`);
  await adminQuery(
    postgresUrl,
    locale === undefined
      ? `CREATE DATABASE ${name}`
      : `CREATE DATABASE ${name} TEMPLATE template0 LOCALE '${locale}'`,
  );
  cleanup.add(`drop database ${name}`, () =>
    adminQuery(postgresUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  );
  const databaseUrl = databaseUrlFor(postgresUrl, name);
  return { backend, databaseUrl, dataDir, ...(await migrateAndSeed(databaseUrl, dataDir, pepper)) };
}

/**
 * Assay's app in this process over `database` (made with `pepper`), on a free port: no job worker,
 * no rate limit, no Redis, logging at warn. For the benchmarks that time single requests.
 */
export function startAppOver(
  database: BenchDatabase,
  pepper: string,
  options: AppOptions = {},
): Promise<RunningApp> {
  const { REDIS_URL: _redis, ...environment } = process.env;
  const config = parseConfig({
    ...environment,
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: database.databaseUrl,
    ASSAY_DATA_DIR: database.dataDir,
    ASSAY_TOKEN_PEPPER: pepper,
    ASSAY_WORKER: "false",
    RATE_LIMIT_PER_HOUR: "0",
    LOG_LEVEL: "warn",
  });
  return startApp(config, createLogger(config.logLevel), options);
}

/** Deletes every Redis key under `prefix` (the rate-limit counters a benchmark server wrote). */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}

/** Counts the Redis keys under `prefix`, to prove a server keeps its counters there. */
export async function countRedisKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    return (await redis.keys(`${prefix}*`)).length;
  } finally {
    redis.disconnect();
  }
}

/** The PostgreSQL server's version, for the report. */
export async function postgresVersion(postgresUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrlFor(postgresUrl, "postgres") });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>("SHOW server_version");
    return rows[0]?.server_version ?? "unknown";
  } finally {
    await client.end();
  }
}

/** The Redis server's version, for the report. */
export async function redisVersion(redisUrl: string): Promise<string> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    return (await redis.info("server")).match(/redis_version:(\S+)/)?.[1] ?? "unknown";
  } finally {
    redis.disconnect();
  }
}
