import { CompiledQuery, type Kysely, type RawBuilder, sql } from "kysely";
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
 * `db` with a plugin that keeps every statement run through it, compiled as it is sent, so that a
 * test can explain the statements a loader builds (a connection's page and total) without
 * rebuilding them.
 */
export function recordingStatements(db: Kysely<Database>): {
  db: Kysely<Database>;
  statements: CompiledQuery[];
} {
  const statements: CompiledQuery[] = [];
  const recording = db.withPlugin({
    transformQuery(args) {
      statements.push(db.getExecutor().compileQuery(args.node, args.queryId));
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { db: recording, statements };
}

/** Runs a recorded statement under `EXPLAIN (ANALYZE, FORMAT JSON)`; answers the plan's root. */
export async function analysedPlanOf(db: Kysely<Database>, statement: CompiledQuery): Promise<PlanNode> {
  const { rows } = await db.executeQuery<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
    CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
  );
  return rows[0]!["QUERY PLAN"][0]!.Plan;
}
