import { builder } from "./builder.ts";
import type { GraphQLContext } from "./context.ts";
import { notFound } from "./errors.ts";
import { decodeGlobalId } from "./global-id.ts";
import { NodeInterface, type NodeShape, tagNode } from "./relay.ts";

/** Loads a node of one type by its key, answering null when it is missing or not visible. */
export type NodeLoader = (ctx: GraphQLContext, key: string) => Promise<NodeShape | null>;

const nodeLoaders = new Map<string, NodeLoader>();

/** Makes `typeName` resolvable through `node(id:)`. Each node type's module calls this once. */
export function registerNodeType(typeName: string, load: NodeLoader): void {
  if (nodeLoaders.has(typeName)) throw new Error(`node type ${typeName} registered twice`);
  nodeLoaders.set(typeName, load);
}

/** The type names `node(id:)` resolves, for tests and docs. */
export function nodeTypeNames(): string[] {
  return [...nodeLoaders.keys()].sort();
}

/**
 * Resolves a global id for the viewer. Malformed ids, unknown types, missing rows and rows the
 * viewer may not see all end in the same NOT_FOUND error, so the answer reveals nothing.
 */
export async function resolveNode(ctx: GraphQLContext, id: string): Promise<NodeShape> {
  const decoded = decodeGlobalId(id);
  const load = decoded && nodeLoaders.get(decoded.typeName);
  const row = decoded && load ? await load(ctx, decoded.key) : null;
  if (!decoded || !row) throw notFound(`No node with id "${id}" exists.`);
  return tagNode(row, decoded.typeName);
}

builder.queryField("node", (t) =>
  t.field({
    type: NodeInterface,
    nullable: true,
    description: "Any object by its global id. Use inline fragments (`... on Repository`) to select fields.",
    args: { id: t.arg.id({ required: true, description: "A global id, as returned in an `id` field." }) },
    resolve: (_root, args, ctx) => resolveNode(ctx, String(args.id)),
  }),
);
