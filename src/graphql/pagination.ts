import DataLoader from "dataloader";
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "../db/types.ts";
import { badUserInput } from "./errors.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./limits.ts";

/**
 * Keyset pagination for Relay connections, batched by parent.
 *
 * A connection is a filtered, ordered set of rows under one parent (a user's accounts, a
 * repository's runs). Pages are read with a keyset condition on the order columns, never with a
 * growing OFFSET over the whole set, so a page after 10,000 rows costs what the first one does.
 * All parents asked for in one tick are read with one statement, a LATERAL join over the parent
 * ids, so a list of 100 repositories with their runs costs the same statements as a list of 10.
 *
 * Cursors are opaque: base64url of the row's order-column values. Timestamps keep PostgreSQL's
 * microseconds (they pass through as text), so rows created within one millisecond still page
 * correctly.
 */

/**
 * One column of a connection's order. The last must be unique; use the row's random `key`, not
 * its integer id, since cursors carry these values and integer ids never leave the database.
 */
export interface OrderKey {
  column: string;
  kind: "text" | "bigint" | "timestamptz" | "integer";
}

/** Where a connection's rows come from and in which order. */
export interface ConnectionSource {
  /** Names the loader; unique per source. */
  name: string;
  /** A table or parenthesised subquery; aliased `s` in the generated SQL. */
  from: RawBuilder<unknown>;
  /** Column of `from` holding the parent id. */
  parentColumn: string;
  /**
   * A second parent column, for a connection under a pair of ids (such as the occurrences of one
   * issue in one check). Parent ids are then given as `"<first>:<second>"`.
   */
  secondParentColumn?: string;
  /** Order columns, all in `direction`. */
  order: readonly OrderKey[];
  direction: "asc" | "desc";
  /**
   * Where totals come from without reading the rows, when the filter allows: a relation (aliased
   * `s`) with the same parent columns and one row per group of rows, the group's size in `n`.
   * `columns` are the columns of it a filter may test, each meaning what the same column of `from`
   * does. A total under a filter that tests any other column counts the rows of `from`.
   */
  counted?: { from: RawBuilder<unknown>; columns: readonly string[] };
  /**
   * True when a plan for one parent cannot depend on which parent it is: `from` starts at the
   * parent's own row (its primary key, such as `repositories AS repo` with `repo.id` as the parent
   * column) and reaches every other row through laterals of it that PostgreSQL cannot flatten (a
   * `LIMIT`, an aggregate), so the parent's value never reaches another table's index as a
   * constant. A page or a total of one parent is then sent with the parent as a plain parameter
   * instead of an array, and PostgreSQL keeps one generic plan for it on each connection after a
   * few runs rather than planning the statement again at every run, which was most of what the
   * derived sources cost it (docs/decisions.md "One repository's page as a plain parameter").
   * Leave it unset for a source read by a range of an index over the parent (a check's findings, a
   * repository's runs): its best plan depends on how many rows the parent has, which only a plan
   * made for the value knows.
   */
  samePlanForEveryParent?: boolean;
}

/**
 * A filter of a connection's rows: `condition` on alias `s`; `key` identifies it within a request
 * (two filters with one key must be the same); `columns` lists the columns of `s` the condition
 * reads, when the filter knows them (a source's `counted` relation can answer only those).
 */
export interface RowFilter {
  key: string;
  condition: RawBuilder<boolean>;
  columns?: readonly string[];
}

const NO_FILTER: RowFilter = { key: "", condition: sql<boolean>`true`, columns: [] };

/** The arguments every connection takes. */
export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
  offset?: number | null;
}

/** What a connection field resolves to; lazy parts are computed only when selected. */
export interface ConnectionResult<Row> {
  edges: Array<{ cursor: string; node: Row }>;
  pageInfo: {
    startCursor: string | null;
    endCursor: string | null;
    hasNextPage: () => Promise<boolean>;
    hasPreviousPage: () => Promise<boolean>;
  };
  totalCount: () => Promise<number>;
}

interface NormalisedArgs {
  first: number | null;
  last: number | null;
  after: string[] | null;
  before: string[] | null;
  offset: number;
}

const CURSOR_PREFIX = "cursor:";

/** Encodes order-column values (as text) into an opaque cursor. */
export function encodeCursor(values: readonly string[]): string {
  return Buffer.from(CURSOR_PREFIX + JSON.stringify(values), "utf8").toString("base64url");
}

/**
 * The longest cursor decoded. Cursors carry the order columns' values, and some are text a tool
 * wrote (a file path, a title) with no limit of their own, so the bound is generous: it only keeps
 * a hostile argument from costing more than reading it did.
 */
const MAX_CURSOR_LENGTH = 65_536;

/** Decodes a cursor made by {@link encodeCursor}; `undefined` when it is not one of ours. */
export function decodeCursor(cursor: string, width: number): string[] | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH) return undefined;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  if (!text.startsWith(CURSOR_PREFIX)) return undefined;
  try {
    const values: unknown = JSON.parse(text.slice(CURSOR_PREFIX.length));
    if (Array.isArray(values) && values.length === width && values.every((v) => typeof v === "string")) {
      return values as string[];
    }
  } catch {
    // Falls through to undefined.
  }
  return undefined;
}

// What each order column's text form looks like. A cursor from another connection (or an edited
// one) would otherwise reach the SQL casts and fail the request with an internal error.
const CURSOR_VALUE_PATTERNS: Record<OrderKey["kind"], RegExp> = {
  text: /^/,
  bigint: /^-?\d{1,19}$/,
  integer: /^-?\d{1,10}$/,
  timestamptz: /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:?\d{2}){0,2}|Z)?$/,
};

/** True when the date and time parts name a real instant (no February 30th, no hour 25). */
function isRealTimestamp(text: string): boolean {
  const [, y, mo, d, h, mi, se] = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(text) ?? [];
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(se)));
  return (
    date.getUTCFullYear() === Number(y) &&
    date.getUTCMonth() === Number(mo) - 1 &&
    date.getUTCDate() === Number(d) &&
    date.getUTCHours() === Number(h) &&
    date.getUTCMinutes() === Number(mi) &&
    date.getUTCSeconds() === Number(se)
  );
}

function fitsOrder(values: readonly string[], source: ConnectionSource): boolean {
  return source.order.every((key, i) => {
    const value = values[i] ?? "";
    return (
      CURSOR_VALUE_PATTERNS[key.kind].test(value) && (key.kind !== "timestamptz" || isRealTimestamp(value))
    );
  });
}

function normaliseArgs(args: ConnectionArgs, source: ConnectionSource): NormalisedArgs {
  const count = (name: "first" | "last" | "offset"): number | null => {
    const value = args[name];
    if (value === null || value === undefined) return null;
    if (!Number.isInteger(value) || value < 0) {
      throw badUserInput(`Argument "${name}" must be a non-negative integer.`, name);
    }
    if (name !== "offset" && value > MAX_PAGE_SIZE) {
      throw badUserInput(`Argument "${name}" must not exceed ${MAX_PAGE_SIZE}.`, name);
    }
    return value;
  };
  const cursor = (name: "after" | "before"): string[] | null => {
    const value = args[name];
    if (value === null || value === undefined) return null;
    const decoded = decodeCursor(value, source.order.length);
    if (!decoded || !fitsOrder(decoded, source)) {
      throw badUserInput(`Argument "${name}" is not a valid cursor for this connection.`, name);
    }
    return decoded;
  };
  const first = count("first");
  const last = count("last");
  return {
    first: first === null && last === null ? DEFAULT_PAGE_SIZE : first,
    last,
    after: cursor("after"),
    before: cursor("before"),
    offset: count("offset") ?? 0,
  };
}

function columns(source: ConnectionSource, alias: string): RawBuilder<unknown> {
  return sql.join(source.order.map((key) => sql.ref(`${alias}.${key.column}`)));
}

function cursorValues(source: ConnectionSource, values: readonly string[]): RawBuilder<unknown> {
  return sql.join(source.order.map((key, i) => sql`cast(${values[i]} as ${sql.raw(key.kind)})`));
}

/** `(s.k1, s.k2) <op> (v1, v2)`: PostgreSQL compares row values lexicographically. */
function compare(
  source: ConnectionSource,
  op: "<" | ">" | "<=" | ">=",
  values: readonly string[],
): RawBuilder<boolean> {
  return sql<boolean>`(${columns(source, "s")}) ${sql.raw(op)} (${cursorValues(source, values)})`;
}

/** The operator meaning "comes after" in the connection's order. */
function afterOp(source: ConnectionSource, inclusive = false): "<" | ">" | "<=" | ">=" {
  const op = source.direction === "asc" ? ">" : "<";
  return (inclusive ? `${op}=` : op) as "<" | ">" | "<=" | ">=";
}

function beforeOp(source: ConnectionSource, inclusive = false): "<" | ">" | "<=" | ">=" {
  const op = source.direction === "asc" ? "<" : ">";
  return (inclusive ? `${op}=` : op) as "<" | ">" | "<=" | ">=";
}

function cursorExpression(source: ConnectionSource): RawBuilder<string> {
  return sql<string>`json_build_array(${sql.join(source.order.map((key) => sql`cast(${sql.ref(`s.${key.column}`)} as text)`))})::text`;
}

function orderBy(source: ConnectionSource, reverse: boolean, alias = "s"): RawBuilder<unknown> {
  const dir = (source.direction === "desc") !== reverse ? sql.raw("DESC") : sql.raw("ASC");
  return sql.join(source.order.map((key) => sql`${sql.ref(`${alias}.${key.column}`)} ${dir}`));
}

type Row = Record<string, unknown> & { __parent: string; __cursor: string };

function parentColumns(source: ConnectionSource): string[] {
  return source.secondParentColumn ? [source.parentColumn, source.secondParentColumn] : [source.parentColumn];
}

/** `s.<parent column> = <value>` for each parent column. */
function matchParent(source: ConnectionSource, values: readonly RawBuilder<unknown>[]): RawBuilder<boolean> {
  return sql<boolean>`${sql.join(
    parentColumns(source).map((column, i) => sql`s.${sql.ref(column)} = ${values[i]}`),
    sql` AND `,
  )}`;
}

/** The parent ids as one bigint array per parent column. */
function parentArrays(source: ConnectionSource, parents: readonly string[]): RawBuilder<unknown>[] {
  return parentColumns(source).map(
    (_, i) => sql`cast(${parents.map((parent) => parent.split(":")[i] ?? "")} as bigint[])`,
  );
}

/**
 * The one parent's ids as plain bigint parameters, one per parent column, when the statement for
 * `parents` names it that way (see `ConnectionSource.samePlanForEveryParent`); undefined when it
 * names its parents as arrays.
 */
function singleParent(
  source: ConnectionSource,
  parents: readonly string[],
): RawBuilder<unknown>[] | undefined {
  if (!source.samePlanForEveryParent || parents.length !== 1) return undefined;
  const ids = parents[0]!.split(":");
  if (ids.length !== parentColumns(source).length) return undefined;
  return ids.map((id) => sql`cast(${id} as bigint)`);
}

/**
 * Rows `s` of any of `parents`: one parent of a `samePlanForEveryParent` source by plain
 * parameters, otherwise by arrays of the parent ids.
 */
function inParents(source: ConnectionSource, parents: readonly string[]): RawBuilder<boolean> {
  const single = singleParent(source, parents);
  if (single) return matchParent(source, single);
  if (!source.secondParentColumn) {
    return sql<boolean>`s.${sql.ref(source.parentColumn)} = ANY(cast(${parents} as bigint[]))`;
  }
  const columnRefs = parentColumns(source).map((column) => sql.ref(`s.${column}`));
  return sql<boolean>`(${sql.join(columnRefs)}) IN (SELECT * FROM unnest(${sql.join(parentArrays(source, parents))}))`;
}

/** The text form of a parent id, from the columns `refs` (the inverse of splitting on `:`). */
function parentText(refs: readonly string[]): RawBuilder<string> {
  return sql<string>`${sql.join(
    refs.map((ref) => sql`${sql.ref(ref)}::text`),
    sql` || ':' || `,
  )}`;
}

/**
 * One edge of a page. Its cursor is encoded when it is first read, since most reads select the
 * nodes and not their cursors: encoding each edge's took about a tenth of the server's CPU for a
 * page of 50 issues with 5 findings each (docs/benchmarks.md).
 */
class Edge<T> {
  readonly node: T;
  private encoded: string | undefined;

  constructor(private readonly row: Row) {
    this.node = stripRow<T>(row);
  }

  get cursor(): string {
    this.encoded ??= encodeCursor(JSON.parse(this.row.__cursor));
    return this.encoded;
  }
}

/**
 * Loads pages of one connection for many parents at once. Create one per request (through
 * {@link ConnectionLoaders}); each distinct (filter, arguments) pair gets its own batch.
 */
class ConnectionBatch<T> {
  private readonly pages: DataLoader<string, Row[]>;
  private readonly counts: DataLoader<string, number>;
  private readonly existence: DataLoader<string, boolean>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly source: ConnectionSource,
    private readonly rowFilter: RowFilter,
    private readonly args: NormalisedArgs,
  ) {
    this.pages = new DataLoader((parents) => this.loadPages(parents));
    this.counts = new DataLoader((parents) => this.loadCounts(parents));
    this.existence = new DataLoader((probes) => this.loadExistence(probes));
  }

  /** The connection of one parent. */
  async load(parentId: string): Promise<ConnectionResult<T>> {
    const { first, last } = this.args;
    const rows = await this.pages.load(parentId);
    const backward = first === null;
    const limit = (backward ? last : first) ?? DEFAULT_PAGE_SIZE;
    const hasMore = rows.length > limit;
    let page = hasMore ? rows.slice(0, limit) : rows;
    if (backward) page = page.reverse();
    let trimmedFront = false;
    if (!backward && last !== null && page.length > last) {
      page = page.slice(page.length - last);
      trimmedFront = true;
    }
    const edges = page.map((row) => new Edge<T>(row));
    const firstValues = page[0] ? (JSON.parse(page[0].__cursor) as string[]) : null;
    const lastValues = page.at(-1) ? (JSON.parse(page.at(-1)!.__cursor) as string[]) : null;

    const anyBefore = (): Promise<boolean> => {
      if (firstValues) return this.probe(parentId, "before", firstValues, false);
      if (this.args.after) return this.probe(parentId, "before", this.args.after, true);
      return this.args.offset > 0 ? this.probe(parentId, "any", null, false) : Promise.resolve(false);
    };
    const anyAfter = (): Promise<boolean> => {
      if (lastValues) return this.probe(parentId, "after", lastValues, false);
      if (this.args.before) return this.probe(parentId, "after", this.args.before, true);
      return Promise.resolve(false);
    };
    return {
      edges,
      pageInfo: {
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
        hasNextPage: backward ? anyAfter : async () => hasMore,
        hasPreviousPage: backward
          ? async () => hasMore
          : async () => trimmedFront || (page.length > 0 && this.args.offset > 0) || anyBefore(),
      },
      totalCount: () => this.counts.load(parentId),
    };
  }

  private probe(
    parentId: string,
    side: "before" | "after" | "any",
    values: string[] | null,
    inclusive: boolean,
  ) {
    return this.existence.load(JSON.stringify([parentId, side, values, inclusive]));
  }

  private async loadPages(parents: readonly string[]): Promise<Row[][]> {
    const { source, args } = this;
    const backward = args.first === null;
    const limit = ((backward ? args.last : args.first) ?? DEFAULT_PAGE_SIZE) + 1;
    const parentNames = parentColumns(source).map((_, i) => (i === 0 ? "parent_id" : `parent_id${i + 1}`));
    const parentRefs = parentNames.map((name) => sql.ref(`p.${name}`));
    const conditions: RawBuilder<boolean>[] = [this.rowFilter.condition];
    if (args.after) conditions.push(compare(source, afterOp(source), args.after));
    if (args.before) conditions.push(compare(source, beforeOp(source), args.before));
    if (backward && args.offset > 0) {
      // `offset` skips rows from the front of the window; going backward, turn it into a bound:
      // everything after the offset-th row of the window.
      // The subquery's own alias `s` shadows the outer one, so the same conditions apply inside.
      const nth = sql`(SELECT ${columns(source, "s")} FROM ${source.from} AS s
        WHERE ${matchParent(source, parentRefs)} AND ${sql.join(conditions, sql` AND `)}
        ORDER BY ${orderBy(source, false)} OFFSET ${args.offset - 1} LIMIT 1)`;
      conditions.push(sql<boolean>`(${columns(source, "s")}) ${sql.raw(afterOp(source))} ${nth}`);
    }
    const where = sql.join(conditions, sql` AND `);
    const offset = backward ? 0 : args.offset;
    const single = singleParent(source, parents);
    const parentRows = single
      ? sql`(SELECT ${sql.join(single.map((id, i) => sql`${id} AS ${sql.ref(parentNames[i]!)}`))}, 1 AS ord) AS p`
      : sql`unnest(${sql.join(parentArrays(source, parents))}) WITH ORDINALITY
        AS p(${sql.join(parentNames.map((name) => sql.ref(name)))}, ord)`;
    const result = await sql<Row>`
      SELECT ${parentText(parentNames.map((name) => `p.${name}`))} AS __parent, x.*
      FROM ${parentRows}
      CROSS JOIN LATERAL (
        SELECT s.*, ${cursorExpression(source)} AS __cursor
        FROM ${source.from} AS s
        WHERE ${matchParent(source, parentRefs)} AND ${where}
        ORDER BY ${orderBy(source, backward)}
        LIMIT ${limit} OFFSET ${offset}
      ) AS x
      ORDER BY p.ord, ${orderBy(source, backward, "x")}`.execute(this.db);
    const byParent = new Map<string, Row[]>(parents.map((p) => [p, []]));
    for (const row of result.rows) byParent.get(row.__parent)?.push(row);
    return parents.map((p) => byParent.get(p) ?? []);
  }

  /**
   * Totals per parent: summed from the source's `counted` relation when the filter reads only
   * columns it has, else counted over the rows.
   */
  private async loadCounts(parents: readonly string[]): Promise<number[]> {
    const { source, rowFilter } = this;
    const counted = source.counted;
    const summed =
      counted !== undefined &&
      (rowFilter.columns?.every((column) => counted.columns.includes(column)) ?? false);
    const columnRefs = parentColumns(source).map((column) => `s.${column}`);
    const result = await sql<{ parent: string; count: string }>`
      SELECT ${parentText(columnRefs)} AS parent, ${summed ? sql`sum(s.n)` : sql`count(*)`} AS count
      FROM ${summed ? counted.from : source.from} AS s
      WHERE ${inParents(source, parents)} AND ${this.rowFilter.condition}
      GROUP BY 1`.execute(this.db);
    const counts = new Map(result.rows.map((r) => [r.parent, Number(r.count)]));
    return parents.map((p) => counts.get(p) ?? 0);
  }

  private async loadExistence(probes: readonly string[]): Promise<boolean[]> {
    const { source } = this;
    const checks = probes.map((probe) => {
      const [parentId, side, values, inclusive] = JSON.parse(probe) as [
        string,
        string,
        string[] | null,
        boolean,
      ];
      const bound =
        side === "any" || !values
          ? sql<boolean>`true`
          : compare(
              source,
              side === "before" ? beforeOp(source, inclusive) : afterOp(source, inclusive),
              values,
            );
      const ids = parentId.split(":").map((id) => sql`cast(${id} as bigint)`);
      return sql<boolean>`EXISTS (SELECT 1 FROM ${source.from} AS s
        WHERE ${matchParent(source, ids)} AND ${this.rowFilter.condition} AND ${bound})`;
    });
    const result = await sql<Record<string, boolean>>`SELECT ${sql.join(
      checks.map((check, i) => sql`${check} AS ${sql.ref(`e${i}`)}`),
    )}`.execute(this.db);
    const row = result.rows[0] ?? {};
    return probes.map((_, i) => row[`e${i}`] === true);
  }
}

function stripRow<T>(row: Row): T {
  const { __parent: _parent, __cursor: _cursor, ...rest } = row;
  return rest as T;
}

/**
 * Per-request registry of connection batches: one batch per (source, filter, arguments), so
 * sibling fields with the same arguments share one statement.
 */
export class ConnectionLoaders {
  private readonly batches = new Map<string, ConnectionBatch<unknown>>();

  constructor(private readonly db: Kysely<Database>) {}

  /** The page of `source` under `parentId`, of the rows `filter` keeps (all when absent). */
  load<T>(
    source: ConnectionSource,
    parentId: string,
    args: ConnectionArgs,
    filter: RowFilter = NO_FILTER,
  ): Promise<ConnectionResult<T>> {
    const normalised = normaliseArgs(args, source);
    const key = JSON.stringify([source.name, filter.key, normalised]);
    let batch = this.batches.get(key);
    if (!batch) {
      batch = new ConnectionBatch<unknown>(this.db, source, filter, normalised);
      this.batches.set(key, batch);
    }
    return batch.load(parentId) as Promise<ConnectionResult<T>>;
  }
}
