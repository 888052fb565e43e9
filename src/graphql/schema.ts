import { type GraphQLSchema, lexicographicSortSchema, printSchema } from "graphql";
import "../modules/index.ts";
import { builder } from "./builder.ts";

let schema: GraphQLSchema | undefined;

/** The API's schema, built once from every module. */
export function buildAssaySchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: false });
  return schema;
}

/** The schema as SDL, sorted so the committed `schema.graphql` diffs cleanly. */
export function printAssaySchema(): string {
  return `${printSchema(lexicographicSortSchema(buildAssaySchema())).trimEnd()}\n`;
}
