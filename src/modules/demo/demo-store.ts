import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/types.ts";
import { DEMO_TEAM_LOGIN } from "./account-plan.ts";

/**
 * The demo generator's own SQL: whether the demo is there, the bulk writer of its generated rows,
 * and the statistics refresh after a load. The bulk writer is table-generic by design (the
 * generator's plan-writer.ts names the tables and columns): it writes rows no domain service
 * would create this fast, and only the demo uses it.
 *
 * Fast inserts for generated data: each statement sends one array per column and inserts
 * `INSERT ... SELECT * FROM unnest($1::type[], $2::type[], ...)`. A statement then has as many
 * parameters as the table has columns, whatever the number of rows, and PostgreSQL parses it once
 * per batch: about ten times faster than multi-row VALUES through the same driver.
 */

/** Rows per statement: large enough to amortise round trips, small enough to keep memory flat. */
export const BATCH_ROWS = 5000;

/**
 * A column to insert: its name, its PostgreSQL type, and how to read it from a row. An
 * `integer[]` column's value is the array's literal (`{1,2,3}`): sent as text, cast on insert.
 */
export interface Column<Row> {
  name: string;
  type:
    | "text"
    | "bigint"
    | "integer"
    | "boolean"
    | "timestamptz"
    | "double precision"
    | "jsonb"
    | "uuid"
    | "integer[]";
  value: (row: Row) => string | number | boolean | Date | null;
}

/** A column spec, compactly. */
export function column<Row>(
  name: string,
  type: Column<Row>["type"],
  value: Column<Row>["value"],
): Column<Row> {
  return { name, type, value };
}

function statement<Row>(table: string, columns: Column<Row>[], rows: Row[], returning: boolean) {
  const names = sql.join(columns.map((c) => sql.ref(c.name)));
  const arrays = sql.join(
    columns.map((c) => {
      const values = rows.map(c.value);
      return sql`${values}::${sql.raw(c.type === "integer[]" ? "text" : c.type)}[]`;
    }),
  );
  // unnest(...) AS u(c0, c1, ...): the array literals cast back to arrays in the select list.
  const aliases = columns.map((_, i) => `c${i}`);
  const selected = sql.join(
    columns.map((c, i) => sql.raw(c.type === "integer[]" ? `u.c${i}::integer[]` : `u.c${i}`)),
  );
  const returningKeys = returning ? sql` RETURNING key, id` : sql``;
  return sql<{
    key: string;
    id: string;
  }>`INSERT INTO ${sql.table(table)} (${names}) SELECT ${selected} FROM unnest(${arrays}) AS u(${sql.raw(aliases.join(", "))})${returningKeys}`;
}

/** Inserts `rows` into `table` in batches. */
export async function insertRows<Row>(
  db: Kysely<Database>,
  table: string,
  columns: Column<Row>[],
  rows: Row[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH_ROWS) {
    await statement(table, columns, rows.slice(i, i + BATCH_ROWS), false).execute(db);
  }
}

/** Inserts `rows` (whose table has `key` and `id`) and returns the new ids by key. */
export async function insertRowsReturningIds<Row>(
  db: Kysely<Database>,
  table: string,
  columns: Column<Row>[],
  rows: Row[],
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (let i = 0; i < rows.length; i += BATCH_ROWS) {
    const result = await statement(table, columns, rows.slice(i, i + BATCH_ROWS), true).execute(db);
    for (const row of result.rows) ids.set(row.key, String(row.id));
  }
  return ids;
}

/** True when the database already holds the demo team. */
export async function hasDemoData(db: Kysely<Database>): Promise<boolean> {
  const row = await db
    .selectFrom("accounts")
    .select("id")
    .where("login", "=", DEMO_TEAM_LOGIN)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Refreshes the planner's statistics of every table of ours (after a bulk load). The system
 * catalogs are left alone: a plain ANALYZE would read them too, which is two thirds of its time on
 * the embedded database after the demo seed (about 250 ms against 90).
 */
export async function analyzeTables(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = current_schema()`.execute(db);
  if (rows.length > 0) await sql.raw(`ANALYZE ${rows.map((row) => row.name).join(", ")}`).execute(db);
}
