import { createHash } from "node:crypto";
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
 * Only the API's pool on PostgreSQL does this (src/app.ts). The worker's pool does not: ingestion
 * writes checks PostgreSQL's statistics have not seen yet, and its plans are chosen with the values
 * of each run (docs/benchmarks.md, "Plans that do not depend on statistics"). Nor does the
 * embedded database, whose one session all connections share, so that names would collide.
 *
 * A named `SELECT r.*` stops working once a migration adds a column to `r` (PostgreSQL answers
 * "cached plan must not change result type"), as happens to an instance still running while a
 * newer one migrates. Such a statement is given a new name on that connection, and run again
 * unnamed when no transaction is open (within one, the transaction has already failed).
 */

/** The most statement names one connection is given; more texts run unnamed. */
export const MAX_NAMED_PER_CONNECTION = 256;

/** Texts seen once, remembered until this many; then forgotten, and counted afresh. */
const MAX_TEXTS_SEEN_ONCE = 4096;

/** Statements worth a plan kept per connection: reads and row writes, never transaction control. */
const PREPARABLE = /^\s*(select|with|insert|update|delete)\b/i;

/** PostgreSQL's SQLSTATE for a prepared statement whose result columns changed under it. */
const FEATURE_NOT_SUPPORTED = "0A000";
const RESULT_TYPE_CHANGED = "cached plan must not change result type";

/** How each connection names statements: per text, the name it was given. */
interface ConnectionNames {
  byText: Map<string, string>;
}

/**
 * A pool for Kysely's PostgresDialect over `pool`, whose connections send statements named as the
 * module comment says. Everything else (the pool's size, events, statistics) stays `pool`'s.
 */
export class PreparingPool implements PostgresPool {
  private readonly seenOnce = new Set<string>();
  private readonly preparable = new Set<string>();
  private readonly names = new WeakMap<pg.PoolClient, ConnectionNames>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly maxNamedPerConnection = MAX_NAMED_PER_CONNECTION,
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let names = this.names.get(client);
    if (names === undefined) {
      names = { byText: new Map() };
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
      connection.byText.size < this.maxNamedPerConnection &&
      this.isWorthNaming(sqlText)
    ) {
      name = statementName(sqlText, 0);
      connection.byText.set(sqlText, name);
    }
    if (name === undefined) return client.query(sqlText, values);
    try {
      return await client.query({ name, text: sqlText, values });
    } catch (error) {
      if (!isResultTypeChanged(error)) throw error;
      // The old name stays on the server until the connection closes; the next run prepares anew.
      connection.byText.set(
        sqlText,
        statementName(sqlText, Number(name.slice(name.lastIndexOf("_") + 1)) + 1),
      );
      if (transactionStatus(client) !== "I") throw error;
      return client.query(sqlText, values);
    }
  }
}

/** A statement's name: a digest of its text, and how many times it was renamed on this connection. */
function statementName(sqlText: string, generation: number): string {
  return `assay_${createHash("sha256").update(sqlText).digest("base64url").slice(0, 24)}_${generation}`;
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
