import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/**
 * The reference an assistant needs to write its own GraphQL: the schema's SDL and the documented
 * example operations (docs/examples), offered as MCP resources.
 */

/** One documented example: `name.graphql` and, when there is one, `name.variables.json`. */
export interface ExampleOperation {
  name: string;
  query: string;
  variables?: string;
}

/** What the resources serve. */
export interface McpDocuments {
  /** The schema as `npm run schema:print` prints it (schema.graphql); printed on first use. */
  sdl: () => string;
  examples: readonly ExampleOperation[];
}

/** The URI of the SDL resource. */
export const SCHEMA_URI = "assay://schema.graphql";

/** The URI of an example's operation or its variables. */
export function exampleUri(name: string, part: "graphql" | "variables.json"): string {
  return `assay://examples/${name}.${part}`;
}

/** The example operations in `dir`, by name; none when the folder is missing. */
export async function readExampleOperations(dir: string): Promise<ExampleOperation[]> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const names = files
    .filter((file) => file.endsWith(".graphql"))
    .map((file) => file.slice(0, -".graphql".length))
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const query = await readFile(path.join(dir, `${name}.graphql`), "utf8");
      const variables = await readFile(path.join(dir, `${name}.variables.json`), "utf8").catch(
        () => undefined,
      );
      return variables === undefined ? { name, query } : { name, query, variables };
    }),
  );
}

/** The first comment lines of an example: what it shows, for the resource's description. */
function summaryOf(query: string): string {
  const lines: string[] = [];
  for (const line of query.split("\n")) {
    if (!line.startsWith("#")) break;
    lines.push(line.replace(/^#\s?/, ""));
  }
  return lines.join(" ").trim() || "An example operation.";
}

/** Offers the SDL and every example (operation and variables) on `server`. */
export function registerResources(server: McpServer, documents: McpDocuments): void {
  server.registerResource(
    "graphql-schema",
    SCHEMA_URI,
    {
      title: "Assay GraphQL schema (SDL)",
      description:
        "The whole GraphQL schema of this Assay server, with a description on every type, field and argument. Send operations to /graphql/ with the same token.",
      mimeType: "application/graphql",
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: "application/graphql", text: documents.sdl() }] }),
  );
  for (const example of documents.examples) {
    server.registerResource(
      `example-${example.name}`,
      exampleUri(example.name, "graphql"),
      {
        title: `Example: ${example.name}`,
        description: summaryOf(example.query),
        mimeType: "application/graphql",
      },
      (uri) => ({ contents: [{ uri: uri.href, mimeType: "application/graphql", text: example.query }] }),
    );
    const { variables } = example;
    if (variables === undefined) continue;
    server.registerResource(
      `example-${example.name}-variables`,
      exampleUri(example.name, "variables.json"),
      {
        title: `Example variables: ${example.name}`,
        description: `Variables for the example operation ${example.name}.`,
        mimeType: "application/json",
      },
      (uri) => ({ contents: [{ uri: uri.href, mimeType: "application/json", text: variables }] }),
    );
  }
}
