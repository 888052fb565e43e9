import { createHash, randomBytes } from "node:crypto";
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";
import type pg from "pg";

/**
 * Named (prepared) statements for the API's connections to PostgreSQL.
 *
 * A statement sent unnamed is parsed and planned by PostgreSQL every time it runs; for the API's
 * reads (a repository by key, a page of issues, their counts) planning is about half of what
 * PostgreSQL spends on them (docs/benchmarks.md). A named statement is parsed once per connection,
 * and after five runs PostgreSQL keeps a generic plan for it when that plan is estimated to cost
 * no more than the custom ones did. So a statement text seen a second time in this process is sent
 * named on each connection, up to {@link MAX_NAMED_PER_CONNECTION} names per connection, beyond
 * which texts go unnamed as before.
 *
 * Only the API's pool does this (src/app.ts). The worker's pool does not: ingestion writes checks
 * PostgreSQL's statistics have not seen yet, and its plans are chosen with the values of each run
 * (docs/benchmarks.md, "Plans that do not depend on statistics").
 *
 * The embedded database is one PGlite session under every connection, of every process: there a
 * name is one connection's alone (a prefix drawn for the pool, and the connection's number in it),
 * so two connections never prepare the same name, and the socket server deallocates a connection's
 * names when it goes away (src/db/embedded-socket.ts). Its connections keep fewer names, since
 * every plan stays in the one process's memory.
 *
 * A named `SELECT r.*` stops working once a migration adds a column to `r` (PostgreSQL answers
 * "cached plan must not change result type"), as happens to an instance still running while a
 * newer one migrates. Such a statement is given a new name on that connection, and run again
 * unnamed when no transaction is open (within one, the transaction has already failed).
 */

/** The most statement names one connection is given; more texts run unnamed. */
export const MAX_NAMED_PER_CONNECTION = 256;

/** The same on the embedded database, whose plans all live in its one session. */
export const MAX_NAMED_PER_EMBEDDED_CONNECTION = 64;

/** Texts seen once, remembered until this many; then forgotten, and counted afresh. */
const MAX_TEXTS_SEEN_ONCE = 4096;

/** Statements worth a plan kept per connection: reads and row writes, never transaction control. */
const PREPARABLE = /^\s*(select|with|insert|update|delete)\b/i;

/** PostgreSQL's SQLSTATE for a prepared statement whose result columns changed under it. */
const FEATURE_NOT_SUPPORTED = "0A000";
const RESULT_TYPE_CHANGED = "cached plan must not change result type";

/** How each connection names statements: its prefix, and per text the name it was given. */
interface ConnectionNames {
  prefix: string;
  byText: Map<string, string>;
}

/** Options of {@link PreparingPool}. */
export interface PreparingPoolOptions {
  /** The most names a connection is given. */
  maxNamedPerConnection: number;
  /** True when every connection shares one session (the embedded database): names are per connection. */
  sharedSession: boolean;
}

/**
 * A pool for Kysely's PostgresDialect over `pool`, whose connections send statements named as the
 * module comment says. Everything else (the pool's size, events, statistics) stays `pool`'s.
 */
export class PreparingPool implements PostgresPool {
  private readonly seenOnce = new Set<string>();
  private readonly preparable = new Set<string>();
  private readonly names = new WeakMap<pg.PoolClient, ConnectionNames>();
  /** Drawn once: names of this pool's connections differ from every other process's. */
  private readonly poolTag = randomBytes(4).toString("hex");
  private connections = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PreparingPoolOptions = {
      maxNamedPerConnection: MAX_NAMED_PER_CONNECTION,
      sharedSession: false,
    },
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let names = this.names.get(client);
    if (names === undefined) {
      this.connections += 1;
      const prefix = this.options.sharedSession ? `assay_${this.poolTag}_${this.connections}` : "assay";
      names = { prefix, byText: new Map() };
      this.names.set(client, names);
    }
    const connection = names;
    return {
      // pg's result is what Kysely's PostgresQueryResult describes, with a looser `command` type.
      query: <R>(sqlText: string, parameters: readonly unknown[]) =>
        this.run(client, connection, sqlText, parameters) as Promise<PostgresQueryResult<R>>,
      release: () => client.release(),
    } as PostgresPoolClient;
  }

  end(): Promise<void> {
    return this.pool.end();
  }

  /** Whether `sqlText` has earned a name: it is preparable and was seen before. */
  private isWorthNaming(sqlText: string): boolean {
    if (this.preparable.has(sqlText)) return true;
    if (!PREPARABLE.test(sqlText)) return false;
    if (this.seenOnce.delete(sqlText)) {
      this.preparable.add(sqlText);
      return true;
    }
    if (this.seenOnce.size >= MAX_TEXTS_SEEN_ONCE) this.seenOnce.clear();
    this.seenOnce.add(sqlText);
    return false;
  }

  private async run(
    client: pg.PoolClient,
    connection: ConnectionNames,
    sqlText: string,
    parameters: readonly unknown[],
  ): Promise<pg.QueryResult> {
    const values = [...parameters];
    let name = connection.byText.get(sqlText);
    if (
      name === undefined &&
      connection.byText.size < this.options.maxNamedPerConnection &&
      this.isWorthNaming(sqlText)
    ) {
      name = statementName(connection.prefix, sqlText, 0);
      connection.byText.set(sqlText, name);
    }
    if (name === undefined) return client.query(sqlText, values);
    try {
      return await client.query({ name, text: sqlText, values });
    } catch (error) {
      if (!isResultTypeChanged(error)) throw error;
      // The old name stays on the server until the connection closes; the next run prepares anew.
      const generation = Number(name.slice(name.lastIndexOf("_") + 1)) + 1;
      connection.byText.set(sqlText, statementName(connection.prefix, sqlText, generation));
      if (transactionStatus(client) !== "I") throw error;
      return client.query(sqlText, values);
    }
  }
}

/**
 * A statement's name: the connection's prefix, a digest of its text, and how many times it was
 * renamed on this connection. At most 63 bytes, PostgreSQL's longest name.
 */
function statementName(prefix: string, sqlText: string, generation: number): string {
  return `${prefix}_${createHash("sha256").update(sqlText).digest("base64url").slice(0, 24)}_${generation}`;
}

function isResultTypeChanged(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === FEATURE_NOT_SUPPORTED && typeof message === "string" && message.includes(RESULT_TYPE_CHANGED)
  );
}

/** The connection's transaction status from its last ReadyForQuery: I (idle), T (in one), E (failed one). */
function transactionStatus(client: pg.PoolClient): string | null {
  const status = (client as { getTransactionStatus?: () => string | null }).getTransactionStatus?.();
  return status ?? null;
}
