import type { Kysely, RawBuilder } from "kysely";
import type { Database } from "./types.ts";

/**
 * Runs `statement`, which inserts the rows it is given that are missing and answers all of them,
 * the ones it inserted and the ones that were there (`INSERT … ON CONFLICT DO NOTHING RETURNING`
 * beside a read of the same rows). A row another transaction inserted and committed while this
 * statement waited for it is in neither half, since the read sees the table as it was when the
 * statement began; when fewer than `expected` rows come back, `missingRead` (given the rows found)
 * reads the rest again, which a new statement sees.
 *
 * Where the table has another unique index whose value follows from the conflict target's (a key
 * computed from the same columns), the statement names no conflict target, so that every unique
 * index is an arbiter: otherwise two transactions inserting the same row at the same moment can
 * both pass the target's check, and the second fails on the other index instead of skipping.
 */
export async function insertMissing<Row>(
  tx: Kysely<Database>,
  statement: RawBuilder<Row>,
  expected: number,
  missingRead: (found: readonly Row[]) => RawBuilder<Row>,
): Promise<Row[]> {
  const { rows } = await statement.execute(tx);
  if (rows.length >= expected) return rows;
  const { rows: rest } = await missingRead(rows).execute(tx);
  return [...rows, ...rest];
}

/**
 * Orders strings by UTF-16 code unit, independent of locale: callers of {@link insertMissing} sort
 * their rows by a unique key with it, so concurrent transactions lock shared rows in one order.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders bigint ids (as node-postgres answers them, decimal strings) by value. */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || compareCodeUnits(a, b);
}
