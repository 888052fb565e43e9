import { sql } from "kysely";
import type { RowFilter } from "./pagination.ts";

/**
 * Builders of the `{ key, condition, columns }` filters a connection source applies to alias `s`
 * (`RowFilter`, src/graphql/pagination.ts), shared by every domain's store.
 */

/** Joins filters with AND; undefined when there is none. Reads the columns they all read. */
export function allOf(...filters: Array<RowFilter | undefined>): RowFilter | undefined {
  const present = filters.filter((f): f is RowFilter => f !== undefined);
  if (present.length === 0) return undefined;
  const known = present.every((f) => f.columns !== undefined);
  return {
    key: JSON.stringify(present.map((f) => f.key)),
    condition: sql<boolean>`(${sql.join(
      present.map((f) => f.condition),
      sql` AND `,
    )})`,
    columns: known ? [...new Set(present.flatMap((f) => f.columns ?? []))] : undefined,
  };
}

/** Rows whose `column` equals `value`; no filter when `value` is null or undefined. */
export function equalsFilter(column: string, value: string | null | undefined): RowFilter | undefined {
  if (value === null || value === undefined) return undefined;
  return {
    key: `${column}=${JSON.stringify(value)}`,
    condition: sql<boolean>`s.${sql.ref(column)} = ${value}`,
    columns: [column],
  };
}
