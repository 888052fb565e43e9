import type { ArgBuilder, ObjectRef } from "@pothos/core";
import { type BuilderTypes, builder } from "./builder.ts";
import { encodeGlobalId } from "./global-id.ts";
import type { ConnectionArgs, ConnectionResult } from "./pagination.ts";

/**
 * Relay building blocks in the contract's shape: the `Node` interface, `PageInfo`, and
 * `XConnection { pageInfo, edges, totalCount }` / `XEdge { node, cursor }` pairs.
 */

/** What every node row carries: the random key inside its global id. */
export interface NodeShape {
  key: string;
}

const nodeTypeOf = new WeakMap<object, string>();

/** Marks `row` as a node of `typeName`, so the `Node` interface can tell its concrete type. */
export function tagNode<T extends object>(row: T, typeName: string): T {
  nodeTypeOf.set(row, typeName);
  return row;
}

export const NodeInterface = builder.interfaceRef<NodeShape>("Node").implement({
  description:
    "An object with a global id. Ids are opaque: base64 of `<TypeName>:<key>`; pass them back to `node(id:)`.",
  fields: (t) => ({
    id: t.id({ description: "The object's global id.", resolve: () => "" }),
  }),
  resolveType: (value) => nodeTypeOf.get(value) ?? null,
});

/** The `id: ID!` field of a node type named `typeName`. */
export function globalIdField(typeName: string) {
  return {
    description: "The object's global id.",
    resolve: (row: NodeShape) => encodeGlobalId(typeName, row.key),
  };
}

const PageInfo = builder.objectRef<ConnectionResult<unknown>["pageInfo"]>("PageInfo").implement({
  description: "Where a page sits in its connection (Relay cursor connections).",
  fields: (t) => ({
    hasNextPage: t.boolean({
      description: "True when more rows follow the last edge.",
      resolve: (info) => info.hasNextPage(),
    }),
    hasPreviousPage: t.boolean({
      description: "True when rows precede the first edge.",
      resolve: (info) => info.hasPreviousPage(),
    }),
    startCursor: t.string({
      description: "Cursor of the first edge, or null for an empty page.",
      nullable: true,
      resolve: (info) => info.startCursor,
    }),
    endCursor: t.string({
      description: "Cursor of the last edge, or null for an empty page.",
      nullable: true,
      resolve: (info) => info.endCursor,
    }),
  }),
});

/** Declares `${name}Connection` and `${name}Edge` over `nodeRef`. */
export function connectionType<T>(name: string, nodeRef: ObjectRef<BuilderTypes, T>, what: string) {
  const edge = builder.objectRef<{ cursor: string; node: T }>(`${name}Edge`).implement({
    description: `One ${what} in a page, with its cursor.`,
    fields: (t) => ({
      node: t.field({
        type: nodeRef,
        nullable: true,
        description: `The ${what}.`,
        // Pothos cannot evaluate its resolver result type for a generic T; the value is a T.
        resolve: (e) => e.node as never,
      }),
      cursor: t.string({ description: "Opaque cursor for `after`/`before`.", resolve: (e) => e.cursor }),
    }),
  });
  return builder.objectRef<ConnectionResult<T>>(`${name}Connection`).implement({
    description: `A page of ${what}s.`,
    fields: (t) => ({
      pageInfo: t.field({ type: PageInfo, description: "Where this page sits.", resolve: (c) => c.pageInfo }),
      edges: t.field({
        type: [edge],
        nullable: { list: false, items: true },
        description: `The ${what}s of this page, in the connection's order.`,
        resolve: (c) => c.edges,
      }),
      totalCount: t.int({
        description: "How many rows the connection holds with its filters applied, across all pages.",
        resolve: (c) => c.totalCount(),
      }),
    }),
  });
}

/** The arguments every connection takes: `offset`, `before`, `after`, `first`, `last`. */
export function connectionArgs(t: ArgBuilder<BuilderTypes>) {
  return {
    offset: t.int({
      required: false,
      description: "Skip this many rows after the cursor (or from the start).",
    }),
    before: t.string({ required: false, description: "Only rows before this cursor." }),
    after: t.string({ required: false, description: "Only rows after this cursor." }),
    first: t.int({
      required: false,
      description: "At most this many rows from the start (default 100, at most 500).",
    }),
    last: t.int({ required: false, description: "At most this many rows from the end (at most 500)." }),
  };
}

/** Picks the connection arguments out of a field's arguments. */
export function pageArgs(args: ConnectionArgs): ConnectionArgs {
  return { first: args.first, last: args.last, after: args.after, before: args.before, offset: args.offset };
}
