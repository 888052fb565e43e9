import SchemaBuilder from "@pothos/core";
import type { GraphQLContext } from "./context.ts";

/**
 * The one schema builder. Each domain module adds its types, fields and root queries to it;
 * `schema.ts` imports the modules and builds the schema.
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: string; Output: string };
    UUID: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
    JSONString: { Input: string; Output: string };
    GenericScalar: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  defaultFieldNullability: false,
});

builder.queryType({ description: "The root of every read." });

/** The builder's resolved type parameters, for helpers that take Pothos refs and builders. */
export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
