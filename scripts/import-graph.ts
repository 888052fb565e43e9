/**
 * The import graph of a source tree, folded to folders, and the two questions we ask of it: does
 * any group of folders import each other in a cycle, and does any import cross a layer the wrong
 * way. Pure: it works on file texts handed in (a map from path to text), so it is tested on tiny
 * in-memory trees and run on `src/` by `scripts/check-boundaries.ts`.
 *
 * Imports are read from the text, not through a TypeScript program: the statements we care about
 * are top-level and Biome-formatted, so a pattern over line starts finds them in milliseconds.
 */
import path from "node:path";

/** One import or re-export statement as written. */
export interface ImportStatement {
  specifier: string;
  /** 1-based line of the statement's first line. */
  line: number;
  /** The statement folded onto one line, as the failure message shows it. */
  text: string;
  /** `import type` / `export type`: erased at run time, but still a dependency between folders. */
  typeOnly: boolean;
}

/** An import between two files of the tree, with the folder-level nodes they belong to. */
export interface ImportEdge extends ImportStatement {
  fromFile: string;
  toFile: string;
  fromNode: string;
  toNode: string;
}

/** A relative import that names no file of the tree: reported, so no edge is silently lost. */
export interface UnresolvedImport extends ImportStatement {
  fromFile: string;
}

/** The file-level edges of a tree, each labelled with its folder-level nodes. */
export interface ImportGraph {
  edges: ImportEdge[];
  unresolved: UnresolvedImport[];
}

// `import x from "m"`, `import { a, type B } from "m"`, `import * as n from "m"`, `export { a } from "m"`,
// `export * from "m"`, `export type { T } from "m"`: the clause between keyword and `from` holds only
// names, braces, commas, `*` and whitespace, so a declaration like `export const a = …` never matches.
const FROM_STATEMENT = /^(import|export)\s+(type\s+)?[\w$\s{},*]*?\s*from\s*["']([^"'\n]+)["']/gm;
// `import "m"`: a side-effect import (the module registry is made of these).
const BARE_IMPORT = /^import\s*["']([^"'\n]+)["']/gm;
// `import("m")` anywhere: a deferred import is still a dependency.
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"'\n]+)["']\s*\)/g;

function lineAt(source: string, index: number): number {
  let line = 1;
  for (let i = source.indexOf("\n"); i !== -1 && i < index; i = source.indexOf("\n", i + 1)) line++;
  return line;
}

function statementText(raw: string): string {
  return raw.replace(/\s+/g, " ").trim();
}

/** Reads every import, re-export and dynamic import of one file's text, in source order. */
export function parseImports(source: string): ImportStatement[] {
  const found: Array<ImportStatement & { index: number }> = [];
  for (const match of source.matchAll(FROM_STATEMENT)) {
    found.push({
      specifier: match[3]!,
      index: match.index,
      line: lineAt(source, match.index),
      text: statementText(match[0]),
      typeOnly: match[2] !== undefined,
    });
  }
  for (const pattern of [BARE_IMPORT, DYNAMIC_IMPORT]) {
    for (const match of source.matchAll(pattern)) {
      found.push({
        specifier: match[1]!,
        index: match.index,
        line: lineAt(source, match.index),
        text: statementText(match[0]),
        typeOnly: false,
      });
    }
  }
  return found.sort((a, b) => a.index - b.index).map(({ index: _index, ...statement }) => statement);
}

/**
 * Builds the graph of `files` (paths relative to the tree's root, `/`-separated). Only relative
 * imports make edges (packages and `node:` modules are outside the tree); `nodeOf` names the
 * folder-level node each file belongs to, and `undefined` leaves a file out (tests, for example).
 */
export function buildImportGraph(
  files: ReadonlyMap<string, string>,
  nodeOf: (file: string) => string | undefined,
): ImportGraph {
  const graph: ImportGraph = { edges: [], unresolved: [] };
  for (const [fromFile, source] of files) {
    const fromNode = nodeOf(fromFile);
    if (fromNode === undefined) continue;
    for (const statement of parseImports(source)) {
      if (!statement.specifier.startsWith(".")) continue;
      const toFile = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), statement.specifier));
      if (!files.has(toFile)) {
        graph.unresolved.push({ ...statement, fromFile });
        continue;
      }
      const toNode = nodeOf(toFile);
      if (toNode === undefined) continue;
      graph.edges.push({ ...statement, fromFile, toFile, fromNode, toNode });
    }
  }
  return graph;
}

/** The folder-level adjacency of `edges`: node → node → the file imports that make that edge. */
export function foldToNodes(edges: readonly ImportEdge[]): Map<string, Map<string, ImportEdge[]>> {
  const nodes = new Map<string, Map<string, ImportEdge[]>>();
  for (const edge of edges) {
    if (!nodes.has(edge.toNode)) nodes.set(edge.toNode, new Map());
    const targets = nodes.get(edge.fromNode) ?? new Map<string, ImportEdge[]>();
    nodes.set(edge.fromNode, targets);
    // Imports inside one folder are that folder's own business.
    if (edge.fromNode === edge.toNode) continue;
    const list = targets.get(edge.toNode) ?? [];
    list.push(edge);
    targets.set(edge.toNode, list);
  }
  return nodes;
}

/** Strongly connected groups of two or more nodes (Tarjan's algorithm), each sorted by name. */
export function findCycleGroups(adjacency: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];

  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of adjacency.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) groups.push(group.sort());
  };

  for (const node of [...adjacency.keys()].sort()) if (!index.has(node)) visit(node);
  return groups.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest path from `from` to `to` (both included) through nodes of `group`; undefined if none. */
export function shortestPath(
  adjacency: ReadonlyMap<string, ReadonlyMap<string, unknown>>,
  from: string,
  to: string,
  group: ReadonlySet<string>,
): string[] | undefined {
  const previous = new Map<string, string>([[from, from]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    if (node === to) {
      const path = [to];
      while (path[0] !== from) path.unshift(previous.get(path[0]!)!);
      return path;
    }
    for (const next of [...(adjacency.get(node)?.keys() ?? [])].sort()) {
      if (!group.has(next) || previous.has(next)) continue;
      previous.set(next, node);
      queue.push(next);
    }
  }
  return undefined;
}

/**
 * The cycles to show: for every folder edge inside a group, the shortest cycle through it,
 * rotated to start at its smallest name and deduplicated. Every edge that has to go appears in
 * at least one of them, without listing the exponentially many cycles a large group may hold.
 */
export function describeCycles(adjacency: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[][] {
  const cycles = new Map<string, string[]>();
  for (const group of findCycleGroups(adjacency)) {
    const members = new Set(group);
    for (const from of group) {
      for (const to of adjacency.get(from)?.keys() ?? []) {
        if (!members.has(to)) continue;
        const back = shortestPath(adjacency, to, from, members);
        if (!back) continue;
        const cycle = [from, ...back.slice(0, -1)];
        const first = cycle.indexOf([...cycle].sort()[0]!);
        const rotated = [...cycle.slice(first), ...cycle.slice(0, first)];
        cycles.set(rotated.join(" → "), rotated);
      }
    }
  }
  return [...cycles.values()].sort((a, b) => a.length - b.length || a.join().localeCompare(b.join()));
}

/** How an edge is shown in a failure message: `file:line  statement`. */
export function formatEdge(edge: ImportEdge): string {
  return `${edge.fromFile}:${edge.line}  ${edge.text}`;
}
