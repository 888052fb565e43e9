/**
 * Assay's module boundaries (docs/architecture.md "Module boundaries"), checked over the import
 * graph of `src/`: no import cycle between folders, layers only import downwards, a domain uses
 * another domain's code but not its API surface, and the report readers stay pure. `npm run lint`
 * runs it (scripts/check-boundaries.ts); test/architecture.test.ts proves each rule can fail.
 *
 * `import type` counts like any import. It is erased at run time, but a folder that needs
 * another's types cannot be read or changed without it, and a type-only cycle becomes a real one
 * the day someone imports a value along the same path.
 */
import fs from "node:fs";
import path from "node:path";
import {
  buildImportGraph,
  describeCycles,
  foldToNodes,
  formatEdge,
  type ImportEdge,
  type UnresolvedImport,
} from "./import-graph.ts";
import { findSqlUses } from "./sql-usage.ts";

/**
 * The folder-level node a file of `src/` belongs to: each domain `modules/<domain>`, each other
 * folder `<folder>`, each file directly under `src/` (or `src/modules/`) its own node. Tests and
 * tools' fixtures are left out: a test is a leaf nothing imports, free to assemble what it tests
 * from any layer, and fixtures are other projects' sources.
 */
export function nodeOf(file: string): string | undefined {
  const parts = file.split("/");
  if (parts[0] !== "src" || parts.length < 2) return undefined;
  if (file.endsWith(".test.ts") || parts.includes("fixtures")) return undefined;
  if (parts.length === 2) return parts[1];
  if (parts[1] === "modules") return `modules/${parts[2]}`;
  return parts[1];
}

/** One layer: a name for messages, and its nodes (`modules/*` stands for every domain). */
interface Layer {
  name: string;
  nodes: readonly string[];
}

/**
 * The layers, lowest first. A node imports nodes of its own layer or of lower ones, never of a
 * higher one. A new folder or a new file directly under `src/` must be placed here, or the check
 * fails: the table is the map of the code.
 */
export const LAYERS: readonly Layer[] = [
  // The environment, read once, the logger, the instance's metrics, the compiled server's tree,
  // and the C addon that gives freed memory back.
  { name: "foundation", nodes: ["config.ts", "logger.ts", "observability", "compiled", "native"] },
  // Connections, migrations and row types; the pure report readers.
  { name: "storage and formats", nodes: ["db", "formats"] },
  // Schema machinery and errors, the wire, the job queue: no domain knowledge.
  { name: "infrastructure", nodes: ["graphql", "http", "jobs"] },
  // The MCP server: tools that run GraphQL operations as the caller, over HTTP or stdio.
  { name: "assistant protocol", nodes: ["mcp"] },
  // One folder per domain: types, services, stores, loaders.
  { name: "domains", nodes: ["modules/*"] },
  // Work that spans domains and keeps its SQL in their stores.
  { name: "pipelines", nodes: ["ingestion", "advisory-sync"] },
  // Where the pieces meet: the module list and schema, the job kinds, the server, the CLI.
  { name: "wiring", nodes: ["modules/index.ts", "schema.ts", "job-handlers.ts", "app.ts", "main.ts", "cli"] },
];

/** Nodes that import nothing of `src/` outside themselves: the pure report readers. */
export const PURE_NODES: ReadonlySet<string> = new Set(["formats"]);

/**
 * Where SQL may be built (scripts/sql-usage.ts says what counts): stores, the files named
 * `*-store.ts`, which hold a domain's named statements; `src/db/`, which owns connections and
 * migrations; tests; and the files of {@link SQL_EXCEPTIONS}. Everything else (resolvers,
 * services, pipelines, the CLI) calls a store function and may only hold a `Kysely<Database>`,
 * pass it on and open transactions with it.
 */
const STORE_FILE = /-store\.ts$/;
const SQL_NODES: ReadonlySet<string> = new Set(["db"]);

/**
 * Nodes where even a file named `*-store.ts` builds no SQL: the pipelines, whose statements live
 * in the stores of the domains owning the tables (`src/modules/<domain>/*-store.ts`).
 */
export const SQL_FREE_NODES: ReadonlySet<string> = new Set(["ingestion", "advisory-sync"]);

/** A file outside the stores that may build SQL, with the reason. */
export interface SqlException {
  file: string;
  reason: string;
}

/**
 * Files outside the stores that build SQL, each for a reason. An entry whose file builds no SQL
 * any more fails the check, so the list only shrinks.
 */
export const SQL_EXCEPTIONS: readonly SqlException[] = [
  {
    file: "src/graphql/pagination.ts",
    reason:
      "the generic keyset-pagination engine: it names no table, and wraps the source SQL a store gives it (ConnectionSource) in the keyset and LATERAL batching every connection shares",
  },
];

/**
 * A domain's API surface: its GraphQL type files (`-type.ts`) and resolvers (`-mutations.ts`,
 * and the pipeline's `-mutation.ts`). Every other file of a domain (service, store, loaders,
 * pure helpers) is what other domains may use.
 */
const GRAPHQL_FILE = /-(type|mutations?)\.ts$/;
const MUTATIONS_FILE = /-mutations?\.ts$/;
const BUILDER_FILE = "src/graphql/builder.ts";

/** A file edge the check accepts for now, with the reason and the change that removes it. */
export interface BoundaryException {
  from: string;
  to: string;
  reason: string;
}

/**
 * Known exceptions, each one import from one file to another. An entry that no longer matches an
 * import fails the check, so the list only shrinks.
 */
export const EXCEPTIONS: readonly BoundaryException[] = [];

/** What kind of rule a problem breaks. */
export type ProblemKind =
  | "cycle"
  | "layer"
  | "purity"
  | "domain"
  | "naming"
  | "unplaced"
  | "unresolved"
  | "sql"
  | "stale";

/** One broken rule, with the imports that break it. */
export interface BoundaryProblem {
  kind: ProblemKind;
  message: string;
  /** The import statements to change, each shown as `file:line  statement`. */
  imports: string[];
}

/** The layer of `node`, by its index in {@link LAYERS}; undefined when no layer holds it. */
export function layerOf(node: string): number | undefined {
  const index = LAYERS.findIndex((layer) =>
    layer.nodes.some((pattern) =>
      pattern.endsWith("/*")
        ? node.startsWith(pattern.slice(0, -1)) && !node.endsWith(".ts")
        : pattern === node,
    ),
  );
  return index === -1 ? undefined : index;
}

const isDomain = (node: string): boolean => node.startsWith("modules/") && !node.endsWith(".ts");

/** The rule `edge` breaks between two different nodes, if any (cycles aside). */
function edgeProblem(edge: ImportEdge): Omit<BoundaryProblem, "imports"> | undefined {
  const from = layerOf(edge.fromNode);
  const to = layerOf(edge.toNode);
  if (from === undefined || to === undefined) return undefined;
  if (PURE_NODES.has(edge.fromNode)) {
    return {
      kind: "purity",
      message: `${edge.fromNode} must stay pure (it reads report formats and nothing else) but imports ${edge.toNode}`,
    };
  }
  if (to > from) {
    return {
      kind: "layer",
      message: `${edge.fromNode} (${LAYERS[from]!.name}) imports ${edge.toNode} (${LAYERS[to]!.name}): a lower layer never imports a higher one`,
    };
  }
  if (!isDomain(edge.fromNode) || !isDomain(edge.toNode)) return undefined;
  if (MUTATIONS_FILE.test(edge.toFile)) {
    return {
      kind: "domain",
      message: `${edge.fromNode} imports the resolvers of ${edge.toNode}: call that domain's service or store instead`,
    };
  }
  if (GRAPHQL_FILE.test(edge.toFile) && !GRAPHQL_FILE.test(edge.fromFile)) {
    return {
      kind: "domain",
      message: `${edge.fromNode} imports a GraphQL type file of ${edge.toNode} outside its own GraphQL files: use that domain's service, store or loaders`,
    };
  }
  return undefined;
}

/** Groups `edges` by the problem each makes, one problem per (message) with all its imports. */
function groupProblems(edges: readonly ImportEdge[]): BoundaryProblem[] {
  const problems = new Map<string, BoundaryProblem>();
  for (const edge of edges) {
    if (edge.fromNode === edge.toNode) continue;
    const problem = edgeProblem(edge);
    if (!problem) continue;
    const entry = problems.get(problem.message) ?? { ...problem, imports: [] };
    entry.imports.push(formatEdge(edge));
    problems.set(problem.message, entry);
  }
  return [...problems.values()];
}

/** A file that builds schema types (it imports the builder) must say so in its name. */
function namingProblems(edges: readonly ImportEdge[]): BoundaryProblem[] {
  return edges
    .filter(
      (edge) =>
        edge.toFile === BUILDER_FILE &&
        (isDomain(edge.fromNode) || edge.fromNode === "ingestion") &&
        !GRAPHQL_FILE.test(edge.fromFile),
    )
    .map((edge) => ({
      kind: "naming" as const,
      message: `${edge.fromFile} adds to the schema but is not named -type.ts or -mutations.ts, so other domains cannot tell it is API surface`,
      imports: [formatEdge(edge)],
    }));
}

/** Nodes no layer holds, each named once with one of its files. */
function unplacedProblems(files: Iterable<string>): BoundaryProblem[] {
  const unplaced = new Map<string, string>();
  for (const file of files) {
    const node = nodeOf(file);
    if (node !== undefined && layerOf(node) === undefined && !unplaced.has(node)) unplaced.set(node, file);
  }
  return [...unplaced].map(([node, file]) => ({
    kind: "unplaced" as const,
    message: `${node} (${file}) is in no layer: add it to LAYERS in scripts/boundaries.ts`,
    imports: [],
  }));
}

const SHOWN_PER_STEP = 4;

/** Each cycle between folders, with the imports that make every step of it. */
function cycleProblems(edges: readonly ImportEdge[]): BoundaryProblem[] {
  const adjacency = foldToNodes(edges);
  return describeCycles(adjacency).map((cycle) => {
    const imports: string[] = [];
    cycle.forEach((node, i) => {
      const next = cycle[(i + 1) % cycle.length]!;
      const step = adjacency.get(node)?.get(next) ?? [];
      imports.push(`${node} → ${next}:`);
      for (const edge of step.slice(0, SHOWN_PER_STEP)) imports.push(`  ${formatEdge(edge)}`);
      if (step.length > SHOWN_PER_STEP) imports.push(`  … and ${step.length - SHOWN_PER_STEP} more`);
    });
    return {
      kind: "cycle" as const,
      message: `import cycle between folders: ${[...cycle, cycle[0]].join(" → ")}`,
      imports,
    };
  });
}

/** Whether `file` (of node `node`) may build SQL, exceptions aside. */
function mayBuildSql(file: string, node: string): boolean {
  if (SQL_NODES.has(node)) return true;
  return STORE_FILE.test(file) && !SQL_FREE_NODES.has(node);
}

/**
 * Each file that builds SQL where it may not, with the lines that do; and each exception whose
 * file builds none any more.
 */
function sqlProblems(
  files: ReadonlyMap<string, string>,
  exceptions: readonly SqlException[],
): BoundaryProblem[] {
  const problems: BoundaryProblem[] = [];
  const used = new Set<SqlException>();
  for (const [file, source] of files) {
    const node = nodeOf(file);
    if (node === undefined || !file.endsWith(".ts") || mayBuildSql(file, node)) continue;
    const uses = findSqlUses(source);
    if (uses.length === 0) continue;
    const exception = exceptions.find((e) => e.file === file);
    if (exception) {
      used.add(exception);
      continue;
    }
    const where = SQL_FREE_NODES.has(node)
      ? `${node} keeps its statements in the stores of the domains that own the tables (src/modules/<domain>/*-store.ts)`
      : "SQL lives only in stores (files named *-store.ts): move the statement into one as a named function";
    problems.push({
      kind: "sql",
      message: `${file} builds SQL, but ${where}`,
      imports: uses.map((use) => `${file}:${use.line}  ${use.what}`),
    });
  }
  for (const exception of exceptions) {
    if (used.has(exception)) continue;
    problems.push({
      kind: "stale",
      message: `the SQL exception for ${exception.file} matches no file that builds SQL outside a store any more: remove it from SQL_EXCEPTIONS`,
      imports: [],
    });
  }
  return problems;
}

function unresolvedProblems(unresolved: readonly UnresolvedImport[]): BoundaryProblem[] {
  return unresolved.map((statement) => ({
    kind: "unresolved",
    message: `${statement.fromFile} imports "${statement.specifier}", which is no file of src/`,
    imports: [`${statement.fromFile}:${statement.line}  ${statement.text}`],
  }));
}

/**
 * Checks the tree `files` (paths from the repository root, `src/…`, to their text) against the
 * boundaries, accepting the imports `exceptions` name. Returns every problem; none means the tree
 * keeps its boundaries.
 */
export function checkBoundaries(
  files: ReadonlyMap<string, string>,
  exceptions: readonly BoundaryException[] = EXCEPTIONS,
  sqlExceptions: readonly SqlException[] = SQL_EXCEPTIONS,
): BoundaryProblem[] {
  const graph = buildImportGraph(files, nodeOf);
  const used = new Set<BoundaryException>();
  const edges = graph.edges.filter((edge) => {
    const exception = exceptions.find((e) => e.from === edge.fromFile && e.to === edge.toFile);
    if (exception) used.add(exception);
    return !exception;
  });
  const stale = exceptions
    .filter((exception) => !used.has(exception))
    .map((exception) => ({
      kind: "stale" as const,
      message: `the exception ${exception.from} → ${exception.to} matches no import any more: remove it from EXCEPTIONS`,
      imports: [],
    }));
  return [
    ...unresolvedProblems(graph.unresolved),
    ...unplacedProblems(files.keys()),
    ...cycleProblems(edges),
    ...groupProblems(edges),
    ...namingProblems(edges),
    ...sqlProblems(files, sqlExceptions),
    ...stale,
  ];
}

/** The problems as the check prints them. */
export function formatProblems(problems: readonly BoundaryProblem[]): string {
  return problems
    .map((problem) =>
      [`${problem.kind}: ${problem.message}`, ...problem.imports.map((i) => `    ${i}`)].join("\n"),
    )
    .join("\n\n");
}

/**
 * The files under `src/` of the repository at `root`, by their path from the root (`src/…`): the
 * tree {@link checkBoundaries} takes. Only TypeScript is read; other files are listed (with no
 * text) so an import of one resolves. Tools' fixtures are other projects' code and are skipped.
 */
export function readSourceTree(
  root: string,
  dir = "src",
  files = new Map<string, string>(),
): Map<string, string> {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== "fixtures") readSourceTree(root, file, files);
    } else {
      files.set(file, file.endsWith(".ts") ? fs.readFileSync(path.join(root, file), "utf8") : "");
    }
  }
  return files;
}
