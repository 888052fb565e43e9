import path from "node:path";
import { DEFAULT_MIGRATION_TABLE, Kysely, type LogEvent, Migrator, PostgresDialect, sql } from "kysely";
import pg from "pg";
import type { Config } from "../config.ts";
import { type EmbeddedDatabase, findRunningEmbedded, startEmbeddedDatabase } from "./embedded.ts";
import { buildTemplate, copyTemplate, templateDirectory } from "./embedded-template.ts";
import { migrationProvider } from "./migrations/index.ts";
import {
  MAX_NAMED_PER_CONNECTION,
  MAX_NAMED_PER_EMBEDDED_CONNECTION,
  PreparingPool,
} from "./prepared-statements.ts";
import type { Database } from "./types.ts";

/** The embedded database queues statements; more connections than this only wait longer. */
const EMBEDDED_POOL_SIZE = 4;

/**
 * Connections the API's pool keeps open while no request comes, when its size allows (src/app.ts).
 * A connection closed after its idle time takes its named statements and generic plans with it:
 * the next request opens a new one and has PostgreSQL parse and plan every statement again, so
 * a dashboard read once a minute paid that at every read (docs/benchmarks.md "Connections kept
 * open while idle"). Sequential reads of a repository's issues use three connections at once.
 */
export const API_IDLE_CONNECTIONS = 4;

/** How long a connection beyond those kept open may stay idle before the pool closes it. */
const IDLE_TIMEOUT_MS = 30_000;

/**
 * TCP keepalive on connections to PostgreSQL, after this long without traffic: a connection kept
 * open for hours must not be dropped silently by a firewall or NAT between the instance and the
 * database, nor be found dead only when a request needs it.
 */
const KEEPALIVE_AFTER_MS = 60_000;

/** An open database, PostgreSQL or embedded, behind the same Kysely instance. */
export interface DatabaseHandle {
  db: Kysely<Database>;
  kind: "postgres" | "embedded";
  /** The pool's connections at this moment: open, idle, and statements waiting for one. */
  poolStats(): { total: number; idle: number; waiting: number };
  /** True when the database answers a trivial query within a second. */
  ping(): Promise<boolean>;
  /** Closes the pool and, for the embedded database, stops its process. */
  close(): Promise<void>;
}

/** Options of {@link openDatabase} beyond the configuration. */
export interface DatabaseOptions {
  /**
   * Called with the SQL of every statement run through Kysely and the milliseconds it took as the
   * client saw it, after it ran (failed or not). Tests count statements with it, benchmarks time
   * them; it must be cheap and must not throw.
   */
  onQuery?: (sql: string, durationMs: number) => void;
  /** Called when a statement fails or an idle connection is lost (metrics count them); must not throw. */
  onError?: () => void;
  /** Called after every statement with its time and whether it failed (tracing); must not throw. */
  onStatement?: (sql: string, durationMs: number, failed: boolean) => void;
  /**
   * Embedded database only: a data directory opened for the first time starts as a copy of the
   * migrated template (embedded-template.ts) when the install has one. For callers that migrate
   * to the latest version next, as the server does.
   */
  fromTemplate?: boolean;
  /**
   * Embedded database only: its process, already being started for this data directory by
   * {@link startEmbeddedForServer}; the handle owns it. Undefined from it means another process
   * serves the directory, and the handle connects to that one.
   */
  embedded?: Promise<EmbeddedDatabase | undefined>;
  /**
   * Send statements seen more than once as named (prepared) statements (prepared-statements.ts).
   * The API's pool does; the worker's and the CLI's do not.
   */
  preparedStatements?: boolean;
  /**
   * Connections kept open while idle, at most the pool's size (the API's pool:
   * {@link API_IDLE_CONNECTIONS}); the others close after 30 s without use. Default none.
   */
  idleConnections?: number;
}

/**
 * Opens the configured database: PostgreSQL when `DATABASE_URL` is set, otherwise the embedded
 * one under `ASSAY_DATA_DIR` (started here, or reused when another Assay process serves it).
 */
export async function openDatabase(
  config: Pick<Config, "databaseUrl" | "dataDir" | "databasePoolSize">,
  options: DatabaseOptions = {},
): Promise<DatabaseHandle> {
  let embedded: EmbeddedDatabase | undefined;
  let poolConfig: pg.PoolConfig;
  if (config.databaseUrl) {
    poolConfig = { connectionString: config.databaseUrl, max: config.databasePoolSize };
  } else {
    embedded = await (options.embedded ?? startEmbedded(config.dataDir, options.fromTemplate === true));
    const target = embedded ?? findRunningEmbedded(config.dataDir);
    if (!target)
      throw new Error(`the embedded database in ${config.dataDir} stopped while it was being opened`);
    poolConfig = {
      host: target.socketDirectory,
      port: target.port,
      user: "postgres",
      database: "postgres",
      max: Math.min(EMBEDDED_POOL_SIZE, config.databasePoolSize),
    };
  }
  const pool = new pg.Pool({
    ...poolConfig,
    min: Math.min(options.idleConnections ?? 0, poolConfig.max ?? 0),
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    // A no-op on the embedded database's Unix socket.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_AFTER_MS,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  const { onQuery, onError, onStatement } = options;
  pool.on("error", () => onError?.());
  // A client in use when its connection drops emits `error` besides failing its query; unheard,
  // that event would crash the process. The failed query already reports the outage.
  pool.on("connect", (client) => client.on("error", () => {}));
  const log =
    onQuery || onError || onStatement
      ? (event: LogEvent) => {
          onQuery?.(event.query.sql, event.queryDurationMillis);
          if (event.level === "error") onError?.();
          onStatement?.(event.query.sql, event.queryDurationMillis, event.level === "error");
        }
      : undefined;
  const embeddedSession = config.databaseUrl === undefined;
  const preparing =
    options.preparedStatements === true &&
    new PreparingPool(pool, {
      maxNamedPerConnection: embeddedSession ? MAX_NAMED_PER_EMBEDDED_CONNECTION : MAX_NAMED_PER_CONNECTION,
      sharedSession: embeddedSession,
    });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: preparing || pool }),
    ...(log && { log }),
  });

  let closed: Promise<void> | undefined;
  return {
    db,
    kind: config.databaseUrl ? "postgres" : "embedded",
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async ping() {
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("timeout")), 1000);
        });
        await Promise.race([pool.query("SELECT 1"), timeout]);
        return true;
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      closed ??= (async () => {
        await db.destroy();
        await embedded?.stop();
      })();
      return closed;
    },
  };
}

/**
 * Applies every pending migration; throws with the failing migration's error. A database that has
 * applied exactly this code's migrations, in order, is left alone after one read of the migration
 * table: Kysely's migrator first lists every column of every table twice to learn whether its own
 * two tables exist, which is most of what an embedded start spent here (docs/benchmarks.md
 * "Migrations already applied"). Anything else (a migration pending, a table not there yet, names
 * this code does not know) goes to the migrator, which migrates or refuses as it always has.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const applied = await appliedMigrations(db);
  const known = await migrationNames();
  if (applied && applied.length === known.length && applied.every((name, i) => name === known[i])) return [];
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/**
 * Starts the embedded database's process for a server on `dataDir`, a new directory as a copy of
 * the template, so that it can start while the server's modules load (both take seconds); hand
 * the promise to {@link openDatabase} as `embedded`. Undefined when another process serves it.
 */
export function startEmbeddedForServer(dataDir: string): Promise<EmbeddedDatabase | undefined> {
  return startEmbedded(dataDir, true);
}

/** Starts the embedded database on `dataDir` unless another process serves it (then undefined). */
async function startEmbedded(dataDir: string, fromTemplate: boolean): Promise<EmbeddedDatabase | undefined> {
  if (findRunningEmbedded(dataDir)) return undefined;
  if (fromTemplate) copyTemplate(await embeddedTemplate(), path.join(dataDir, "pgdata"));
  return startEmbeddedDatabase(dataDir);
}

/** Where this code's embedded template is: named by the PGlite version and the migrations. */
async function embeddedTemplate(): Promise<string> {
  return templateDirectory(await migrationNames());
}

/**
 * Builds the embedded template of this code unless the install has it (`npm ci` runs this):
 * initdb and every migration in a data directory of its own, stopped cleanly. Says where it is
 * and whether it was built now.
 */
export async function prepareEmbeddedTemplate(): Promise<{ template: string; built: boolean }> {
  const template = await embeddedTemplate();
  const built = await buildTemplate(template, async (pgdata) => {
    const handle = await openDatabase({
      databaseUrl: undefined,
      dataDir: path.dirname(pgdata),
      databasePoolSize: 2,
    });
    try {
      await migrateToLatest(handle.db);
    } finally {
      await handle.close();
    }
  });
  return { template, built };
}

/** Names of migrations not yet applied, in the order they would run. */
export async function pendingMigrations(db: Kysely<Database>): Promise<string[]> {
  const applied = new Set(await appliedMigrations(db));
  return (await migrationNames()).filter((name) => !applied.has(name));
}

/** This code's migrations by name, in the order they run. */
async function migrationNames(): Promise<string[]> {
  return Object.keys(await migrationProvider.getMigrations()).sort();
}

/**
 * The migrations the database has applied, in the order Kysely's migrator reads them (by the time
 * each was applied, then by name), or undefined when it has no migration table yet.
 */
async function appliedMigrations(db: Kysely<Database>): Promise<string[] | undefined> {
  const table = await sql<{ present: boolean }>`
    SELECT to_regclass(${DEFAULT_MIGRATION_TABLE}) IS NOT NULL AS present`.execute(db);
  if (!table.rows[0]?.present) return undefined;
  const { rows } = await sql<{ name: string; timestamp: string }>`
    SELECT name, timestamp FROM ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
  return rows
    .sort((a, b) =>
      a.timestamp === b.timestamp
        ? a.name.localeCompare(b.name)
        : new Date(a.timestamp).getTime() - new Date(b.timestamp).getTime(),
    )
    .map((row) => row.name);
}
