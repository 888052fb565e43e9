import { sql } from "kysely";
import type { RowFilter } from "../../graphql/pagination.ts";
import { normaliseNames } from "./filters.ts";

/**
 * The filters of the check, occurrence and repository-issue connections, as the
 * `{ key, condition }` pairs `ConnectionLoaders.load` takes (a condition on alias `s`): SQL
 * fragments the stores' connection sources apply, built from the arguments filters.ts
 * normalises.
 */

/**
 * A connection filter: `key` names it within a request, `condition` applies it to alias `s`, and
 * `columns`, when known, are the columns of `s` it reads.
 */
export type ConnectionFilter = RowFilter;

/** Rows whose `column` (an analyzer id) belongs to one of these analyzer shortcodes. */
export function analyzerInFilter(
  shortcodes: ReadonlyArray<string | null | undefined> | null | undefined,
  column = "analyzer_id",
): ConnectionFilter | undefined {
  const names = normaliseNames(shortcodes);
  if (names.length === 0) return undefined;
  return {
    key: `analyzerIn:${column}:${JSON.stringify(names)}`,
    condition: sql<boolean>`s.${sql.ref(column)} IN (SELECT id FROM analyzers WHERE shortcode = ANY(cast(${names} as text[])))`,
    columns: [column],
  };
}
