import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "../../db/types.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";
import { escapeLike } from "../catalog/catalog-store.ts";
import { latestShownValueOf } from "../metrics/metric-store.ts";

/**
 * SQL of the code coverage report (docs/reports.md): each repository of an account with its
 * latest AGGREGATE line (LCV) and branch (BCV) coverage value and the threshold set now (what
 * `Repository.metrics` holds the value to), not the one recorded with the value.
 */

/** A row of `AccountReportsNamespace.codeCoverage.repositories`. */
export interface CoverageRepositoryRow {
  id: string;
  key: string;
  name: string;
  account_id: string;
  lcv: number | null;
  lcv_threshold: number | null;
  bcv: number | null;
  bcv_threshold: number | null;
}

/** The sort keys of the contract's `CodeCoverageReportRepositorySortKey`, plus our default. */
export type CoverageSortKey =
  | "NAME"
  | "LCV_ASCENDING"
  | "LCV_DESCENDING"
  | "BCV_ASCENDING"
  | "BCV_DESCENDING";

/** Sorting on a coverage value: the value in millionths, with nulls replaced so they sort last. */
const NULL_LAST_ASC = "9000000000000000000";
const NULL_LAST_DESC = "-9000000000000000000";

// The newest value is read through its own LIMIT 1 over metric_values_item_order_idx. Ordering
// the join of item and values instead made PostgreSQL read and sort every value the item ever had
// (12,000 for a repository analysed 12,000 times) for each repository on the page.
function latestAggregate(shortcode: "LCV" | "BCV"): RawBuilder<unknown> {
  return sql`LEFT JOIN LATERAL (
      SELECT v.value, it.threshold
      FROM repository_metric_items AS it
      CROSS JOIN LATERAL ${latestShownValueOf(sql.ref("it.id"))} AS v
      WHERE it.repository_id = repo.id AND it.metric_shortcode = ${sql.lit(shortcode)}
        AND it.metric_key = 'AGGREGATE'
    ) AS ${sql.raw(shortcode.toLowerCase())} ON true`;
}

const COVERAGE_ROWS = sql`SELECT repo.id, repo.key, repo.name, repo.account_id,
      lcv.value AS lcv, lcv.threshold AS lcv_threshold, bcv.value AS bcv, bcv.threshold AS bcv_threshold,
      coalesce(round(lcv.value * 1000000)::bigint, ${sql.lit(NULL_LAST_ASC)}::bigint) AS lcv_sort_asc,
      coalesce(round(lcv.value * 1000000)::bigint, ${sql.lit(NULL_LAST_DESC)}::bigint) AS lcv_sort_desc,
      coalesce(round(bcv.value * 1000000)::bigint, ${sql.lit(NULL_LAST_ASC)}::bigint) AS bcv_sort_asc,
      coalesce(round(bcv.value * 1000000)::bigint, ${sql.lit(NULL_LAST_DESC)}::bigint) AS bcv_sort_desc
    FROM repositories AS repo
    ${latestAggregate("LCV")}
    ${latestAggregate("BCV")}`;

function coverageSource(sortKey: CoverageSortKey): ConnectionSource {
  const from = sql`(${COVERAGE_ROWS})`;
  if (sortKey === "NAME") {
    return {
      name: "coverageOfAccount:NAME",
      from,
      parentColumn: "account_id",
      order: [
        { column: "name", kind: "text" },
        { column: "key", kind: "text" },
      ],
      direction: "asc",
    };
  }
  const [metric, way] = sortKey.split("_") as ["LCV" | "BCV", "ASCENDING" | "DESCENDING"];
  const direction = way === "ASCENDING" ? "asc" : "desc";
  return {
    name: `coverageOfAccount:${sortKey}`,
    from,
    parentColumn: "account_id",
    order: [
      { column: `${metric.toLowerCase()}_sort_${direction}`, kind: "bigint" },
      { column: "key", kind: "text" },
    ],
    direction,
  };
}

/** The connection source of each sort key (built once, so each has one loader). */
export const COVERAGE_SOURCES: Readonly<Record<CoverageSortKey, ConnectionSource>> = {
  NAME: coverageSource("NAME"),
  LCV_ASCENDING: coverageSource("LCV_ASCENDING"),
  LCV_DESCENDING: coverageSource("LCV_DESCENDING"),
  BCV_ASCENDING: coverageSource("BCV_ASCENDING"),
  BCV_DESCENDING: coverageSource("BCV_DESCENDING"),
};

/** `repositories(q:)`: names containing `q`, case-insensitively (LIKE wildcards taken literally). */
export function coverageNameFilter(q: string | null | undefined) {
  if (q === null || q === undefined || q === "") return undefined;
  return { key: `q:${q}`, condition: sql<boolean>`s.name ILIKE ${`%${escapeLike(q)}%`} ESCAPE '\\'` };
}

/** Coverage rows of repositories with these keys that `viewerId` can see. */
export async function findVisibleCoverageRowsByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<CoverageRepositoryRow[]> {
  const result = await sql<CoverageRepositoryRow>`
    SELECT s.id::text AS id, s.key, s.name, s.account_id::text AS account_id, s.lcv, s.lcv_threshold,
      s.bcv, s.bcv_threshold
    FROM (${COVERAGE_ROWS}) AS s
    JOIN memberships AS m ON m.account_id = s.account_id
    WHERE m.user_id = ${viewerId} AND s.key = ANY(cast(${keys} as text[]))`.execute(db);
  return result.rows;
}
