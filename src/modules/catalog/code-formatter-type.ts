import type { CodeFormatterRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { notFound } from "../../graphql/errors.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { analyzerById, codeFormatterByKey, codeFormatterByShortcode } from "./catalog-loaders.ts";
import { allCodeFormatters, CATALOG_ROOT, nameContainsFilter } from "./catalog-store.ts";
import { AnalyzerRef } from "./catalog-type.ts";

/**
 * Code formatters, under both of their names: `CodeFormatter` (2026) and `Transformer` (the name
 * before 2026, which older clients still send). Both types read the `code_formatters` table and
 * answer the same fields; `transformer(s)` are aliases of `codeFormatter(s)`.
 */

/** The error of `codeFormatter(shortcode:)` and `transformer(shortcode:)` for an unknown shortcode. */
export const CODE_FORMATTER_NOT_FOUND = "Code formatter matching query does not exist";

/** Declares one of the two names of a code formatter, with its connection. */
function codeFormatterType(typeName: "CodeFormatter" | "Transformer", description: string) {
  const ref = builder.objectRef<CodeFormatterRow>(typeName).implement({
    description,
    interfaces: [NodeInterface],
    fields: (t) => ({
      id: t.id(globalIdField(typeName)),
      shortcode: t.string({ description: "Stable short name, e.g. `black`.", resolve: (f) => f.shortcode }),
      name: t.string({ description: "Display name.", resolve: (f) => f.name }),
      description: t.string({
        description: "What the formatter does, in Markdown.",
        resolve: (f) => f.description,
      }),
      exampleConfig: t.string({
        nullable: true,
        description: "An example configuration block enabling it.",
        resolve: (f) => f.example_config,
      }),
      logo: t.string({
        nullable: true,
        description: "URL of the formatter's logo.",
        resolve: (f) => f.logo_url,
      }),
      analyzer: t.field({
        type: AnalyzerRef,
        nullable: true,
        description: "The language analyzer it belongs to, if any.",
        resolve: (f, _args, ctx) => (f.analyzer_id === null ? null : analyzerById(ctx).load(f.analyzer_id)),
      }),
    }),
  });
  // Node rows are tagged with their type name; a copy keeps one row read under both names in one
  // request from being tagged twice.
  registerNodeType(typeName, async (ctx, key) => {
    const row = await codeFormatterByKey(ctx).load(key);
    return row && { ...row };
  });
  return { ref, connection: connectionType(typeName, ref, "code formatter") };
}

/** The 2026 name. */
export const CodeFormatter = codeFormatterType(
  "CodeFormatter",
  "A tool that rewrites code to a consistent style, such as Black or Prettier.",
);

/** The name before 2026, kept for older clients; the same rows as `CodeFormatter`. */
export const Transformer = codeFormatterType(
  "Transformer",
  "The former name of `CodeFormatter`: a tool that rewrites code to a consistent style. Same rows, same fields.",
);

async function loadByShortcode(ctx: GraphQLContext, shortcode: string): Promise<CodeFormatterRow> {
  const formatter = await codeFormatterByShortcode(ctx).load(shortcode);
  if (!formatter) throw notFound(CODE_FORMATTER_NOT_FOUND);
  return formatter;
}

/** Declares the two root queries of one name: by shortcode, and the whole list. */
function codeFormatterQueries(
  names: { single: string; list: string },
  type: ReturnType<typeof codeFormatterType>,
  note: string,
): void {
  builder.queryField(names.single, (t) =>
    t.field({
      type: type.ref,
      nullable: true,
      description: `A code formatter by its shortcode. An unknown shortcode answers null with the error "${CODE_FORMATTER_NOT_FOUND}".${note}`,
      args: {
        shortcode: t.arg.string({ required: true, description: "The formatter's shortcode, e.g. `black`." }),
      },
      resolve: (_root, args, ctx) => loadByShortcode(ctx, args.shortcode),
    }),
  );
  builder.queryField(names.list, (t) =>
    t.field({
      type: type.connection,
      nullable: true,
      description: `Every code formatter, ordered by name.${note}`,
      args: {
        ...connectionArgs(t.arg),
        name_Icontains: t.arg.string({
          required: false,
          description:
            "Only formatters whose name contains this text, ignoring case. The text is taken literally: `%` and `_` are not wildcards.",
        }),
      },
      resolve: (_root, args, ctx) =>
        ctx.loaders.connections.load<CodeFormatterRow>(
          allCodeFormatters,
          CATALOG_ROOT,
          pageArgs(args),
          nameContainsFilter(args.name_Icontains),
        ),
    }),
  );
}

codeFormatterQueries({ single: "codeFormatter", list: "codeFormatters" }, CodeFormatter, "");
codeFormatterQueries(
  { single: "transformer", list: "transformers" },
  Transformer,
  " The name before 2026, answered exactly as the `CodeFormatter` query of the same form.",
);
