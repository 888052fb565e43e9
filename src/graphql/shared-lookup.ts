import type { Kysely } from "kysely";
import type { Database } from "../db/types.ts";

/**
 * Lookups shared by the concurrent requests of this process.
 *
 * A request's loaders batch what one request asks for; under load, many requests ask for the same
 * kind of row at the same time (`node(id:)` on a repository: one statement each). A shared lookup
 * gathers the queries that the requests of one turn of the event loop make, and runs them as one
 * statement once that turn's I/O has been read (`setImmediate`), at most {@link MAX_SHARED_BATCH}
 * queries a statement. Each caller receives the rows of its own queries only: a query names
 * everything that decides its rows (for a visibility check, the viewer), so two callers get the
 * same rows only for the same query.
 *
 * Exactness: the statement starts after every caller of its batch asked, so it reads every write
 * committed before any of them asked, as the caller's own statement would have. A failed statement
 * fails every caller of its batch with its error, as each would have failed alone; it does not
 * reach the callers of other batches.
 *
 * The loaders stay per request (src/graphql/context.ts): a request's DataLoader still caches and
 * batches its own keys, and its batch function asks the shared lookup.
 */

/** The most queries one statement of a shared lookup is given; more make further statements. */
export const MAX_SHARED_BATCH = 100;

/** How a shared lookup runs its queries and tells which rows answer which query. */
export interface SharedLookupSpec<Q, R> {
  /** Identifies a query; queries with the same key are one query of a batch. */
  keyOfQuery(query: Q): string;
  /** The key of the query that `row` answers. */
  keyOfRow(row: R): string;
  /** Runs `queries` (distinct, at most `maxBatch`) as one statement: the rows of every one. */
  run(db: Kysely<Database>, queries: readonly Q[]): Promise<readonly R[]>;
  /** The most queries a statement is given; defaults to {@link MAX_SHARED_BATCH}. */
  maxBatch?: number;
}

/** One statement's worth of queries, and the rows it answers once run. */
interface Batch<Q, R> {
  queries: Map<string, Q>;
  rows: Promise<Map<string, R[]>>;
  settle(run: Promise<Map<string, R[]>>): void;
}

/** A lookup of one database shared by every request of this process; see the module comment. */
export class SharedLookup<Q, R> {
  readonly #db: Kysely<Database>;
  readonly #spec: SharedLookupSpec<Q, R>;
  readonly #maxBatch: number;
  /** Batches gathered this turn, dispatched together; the last one still takes queries. */
  #gathering: Batch<Q, R>[] = [];

  constructor(db: Kysely<Database>, spec: SharedLookupSpec<Q, R>) {
    const maxBatch = spec.maxBatch ?? MAX_SHARED_BATCH;
    if (!Number.isInteger(maxBatch) || maxBatch < 1) {
      throw new RangeError(`maxBatch must be an integer of at least 1, got ${maxBatch}`);
    }
    this.#db = db;
    this.#spec = spec;
    this.#maxBatch = maxBatch;
  }

  /** The rows of each of `queries`, in their order (an empty list where none matched). */
  async load(queries: readonly Q[]): Promise<R[][]> {
    const keys = queries.map((query) => this.#spec.keyOfQuery(query));
    const batches = new Set(queries.map((query, i) => this.#add(keys[i] as string, query)));
    const answered = await Promise.all([...batches].map((batch) => batch.rows));
    return keys.map((key) => {
      for (const rows of answered) {
        const found = rows.get(key);
        if (found) return found;
      }
      return [];
    });
  }

  /** Puts `query` in the batch gathering now, or a new one when that one is full. */
  #add(key: string, query: Q): Batch<Q, R> {
    let batch = this.#gathering.at(-1);
    if (batch?.queries.has(key)) return batch;
    if (!batch || batch.queries.size >= this.#maxBatch) {
      if (this.#gathering.length === 0) setImmediate(() => this.#dispatch());
      batch = newBatch<Q, R>();
      this.#gathering.push(batch);
    }
    batch.queries.set(key, query);
    return batch;
  }

  #dispatch(): void {
    const batches = this.#gathering;
    this.#gathering = [];
    for (const batch of batches) batch.settle(this.#run([...batch.queries.values()]));
  }

  async #run(queries: Q[]): Promise<Map<string, R[]>> {
    const rows = await this.#spec.run(this.#db, queries);
    const byKey = new Map<string, R[]>();
    for (const row of rows) {
      const key = this.#spec.keyOfRow(row);
      const list = byKey.get(key);
      if (list) list.push(row);
      else byKey.set(key, [row]);
    }
    return byKey;
  }
}

function newBatch<Q, R>(): Batch<Q, R> {
  let settle: (run: Promise<Map<string, R[]>>) => void = () => undefined;
  const rows = new Promise<Map<string, R[]>>((resolve) => {
    settle = resolve;
  });
  return { queries: new Map(), rows, settle };
}

/**
 * Declares a lookup shared by the requests of this process, one per database handle (each server
 * of a process, and each test's, has its own). Loaders call it from their batch function.
 */
export function defineSharedLookup<Q, R>(
  spec: SharedLookupSpec<Q, R>,
): (db: Kysely<Database>) => SharedLookup<Q, R> {
  const lookups = new WeakMap<Kysely<Database>, SharedLookup<Q, R>>();
  return (db) => {
    let lookup = lookups.get(db);
    if (!lookup) {
      lookup = new SharedLookup(db, spec);
      lookups.set(db, lookup);
    }
    return lookup;
  };
}
