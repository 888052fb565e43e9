import {
  CompiledQuery,
  type Kysely,
  type QueryId,
  type RawBuilder,
  type RootOperationNode,
  sql,
} from "kysely";
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

/**
 * The statements `run` sends through the database handle it is given, compiled as they were sent
 * (text and parameters), so a test can look at the plan of exactly what a store or a connection
 * loader reads.
 */
export async function recordedStatements(
  db: Kysely<Database>,
  run: (db: Kysely<Database>) => Promise<unknown>,
): Promise<CompiledQuery[]> {
  const sent: Array<{ node: RootOperationNode; queryId: QueryId }> = [];
  const recording = db.withPlugin({
    transformQuery: (args) => {
      sent.push(args);
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  await run(recording);
  return sent.map(({ node, queryId }) => db.getExecutor().compileQuery(node, queryId));
}

/** Runs a recorded statement under `EXPLAIN (ANALYZE, FORMAT JSON)`; answers the plan's root. */
export async function analysedPlanOf(db: Kysely<Database>, statement: CompiledQuery): Promise<PlanNode> {
  const { rows } = await db.executeQuery<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
    CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
  );
  return rows[0]!["QUERY PLAN"][0]!.Plan;
}
