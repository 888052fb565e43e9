import { type GraphQLSchema, lexicographicSortSchema, printSchema } from "graphql";
import { builder } from "./graphql/builder.ts";
import "./modules/index.ts";

let schema: GraphQLSchema | undefined;

/** The API's schema, built once from every module. */
export function buildAssaySchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: false });
  return schema;
}

/** The schema as SDL, sorted so the committed `schema.graphql` diffs cleanly. */
export function printAssaySchema(): string {
  return printSchemaOf(buildAssaySchema());
}

/** `schema` as schema.graphql holds it: sorted, printed, one trailing newline. */
export function printSchemaOf(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema)).trimEnd()}\n`;
}
