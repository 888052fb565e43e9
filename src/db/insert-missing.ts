import type { Kysely, RawBuilder } from "kysely";
import type { Database } from "./types.ts";

/**
 * Runs `statement`, which inserts the rows it is given that are missing and answers all of them,
 * the ones it inserted and the ones that were there (`INSERT … ON CONFLICT DO NOTHING RETURNING`
 * beside a read of the same rows). A row another transaction inserted and committed while this
 * statement waited for it is in neither half, since the read sees the table as it was when the
 * statement began; when fewer than `expected` rows come back, `missingRead` (given the rows found)
 * reads the rest again, which a new statement sees.
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
