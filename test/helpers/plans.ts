import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "../../src/db/types.ts";

/** The part of a plan node (EXPLAIN, FORMAT JSON) the plan tests read. */
export interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

/** Runs `statement` under `EXPLAIN (ANALYZE, FORMAT JSON)`; answers the plan's root. */
export async function analysedPlan(db: Kysely<Database>, statement: RawBuilder<unknown>): Promise<PlanNode> {
  const { rows } = await sql<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>`
    EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`.execute(db);
  return rows[0]!["QUERY PLAN"][0]!.Plan;
}

/** Rows of `table` the plan's scans visited, filtered-out ones included, over all loops. */
export function rowsVisited(node: PlanNode, table: string): number {
  const own =
    node["Relation Name"] === table
      ? (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0)) * node["Actual Loops"]
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsVisited(child, table), 0);
}
