import { CoverageAccumulator, type FileHandle, readCount, readLineNumber } from "./accumulator.ts";
import { type ResolvedCoveragePath, resolveCoveragePath } from "./paths.ts";
import {
  type CoverageErrorLocation,
  CoverageFormatError,
  type CoveragePathOptions,
  type CoverageReport,
  type GoModule,
} from "./types.ts";

type GoMode = "set" | "count" | "atomic";

interface Block {
  path: string;
  startLine: number;
  endLine: number;
  statements: number;
  count: number;
}

const BLOCK = /^(.+):(\d+)\.(\d+),(\d+)\.(\d+) (\d+) (-?\d+)$/;

/**
 * Parses a Go cover profile (`go test -coverprofile`): a `mode:` line, then one
 * `file:startLine.startCol,endLine.endCol numStmts count` line per block. The same block listed
 * several times (one entry per test binary with `-coverpkg`, or concatenated profiles, each
 * possibly repeating `mode:`) merges: counts add up, or in `set` mode the block is covered if any
 * entry is. Blocks without statements are skipped. Each block's statements are placed on lines
 * by {@link statementLines}, and a line's hits are the largest count of the blocks with a
 * statement on it, so a line is covered when any statement on it ran. Go profiles have no branch
 * data.
 *
 * Files are named by import path. A file under one of `goModules` lies in that module's directory
 * ({@link goModulePath}); any other loses `workDir` or a strip prefix (the module path) when it
 * lies under one. When some files were so placed, the profile is known to be the repository's,
 * and the others (another module's packages, from `-coverpkg=all`) lie outside the repository;
 * when none was, the paths are kept as written. A last line cut short is refused as truncated.
 */
export function parseGoProfile(text: string, options: CoveragePathOptions = {}): CoverageReport {
  const { blocks, files } = readBlocks(text);
  // The paths are resolved here, modules first, and handed to the accumulator as they are.
  const report = new CoverageAccumulator("go", {});
  const resolved = new Map([...files.keys()].map((path) => [path, resolveGoPath(path, options)]));
  const rootKnown = [...resolved.values()].some((r) => r.underRoot);
  const fileOf = (path: string, where: CoverageErrorLocation) => {
    const r = resolved.get(path)!;
    return report.placedFile(r.path, where, r.outside || (rootKnown && !r.underRoot));
  };
  for (const [path, where] of files) fileOf(path, where);
  addLineHits(report, blocks.values(), fileOf);
  return report.build();
}

/** A profile's file placed by the module it lies in, else as any report's path. */
function resolveGoPath(path: string, options: CoveragePathOptions): ResolvedCoveragePath {
  const placed = goModulePath(path, options.goModules ?? []);
  return placed === null
    ? resolveCoveragePath(path, options)
    : { path: placed, outside: false, underRoot: true };
}

/**
 * The repository path of a file a Go profile names by import path: the rest of the path after the
 * longest of `modules`' paths it lies under, in that module's directory. Null when it lies under
 * none. Module paths nest (`example.com/shop` and `example.com/shop/tools` may be two modules), so
 * the longest wins, as it does for the go command.
 */
export function goModulePath(importPath: string, modules: readonly GoModule[]): string | null {
  let best: GoModule | undefined;
  for (const module of modules) {
    if (!importPath.startsWith(`${module.modulePath}/`)) continue;
    if (best === undefined || module.modulePath.length > best.modulePath.length) best = module;
  }
  if (best === undefined) return null;
  const rest = importPath.slice(best.modulePath.length + 1);
  return best.directory === "" ? rest : `${best.directory}/${rest}`;
}

/** The profile's blocks merged by position, and each file's first mention. */
function readBlocks(text: string): { blocks: Map<string, Block>; files: Map<string, CoverageErrorLocation> } {
  const blocks = new Map<string, Block>();
  const files = new Map<string, CoverageErrorLocation>();
  let mode: GoMode | undefined;
  const lines = text.split(/\r?\n/);
  const lastLine = lastNonBlank(lines);
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index]!.trim();
    const where = { line: index + 1 };
    if (raw === "") continue;
    if (raw.startsWith("mode:")) {
      mode = readMode(raw, mode, where);
      continue;
    }
    if (mode === undefined)
      throw new CoverageFormatError("go", "the first line must be mode: set|count|atomic", where);
    const match = BLOCK.exec(raw);
    if (match === null) {
      if (index === lastLine) {
        throw new CoverageFormatError(
          "go",
          `the last line "${raw.slice(0, 200)}" is cut short (expected file:startLine.startCol,endLine.endCol numStmts count): the profile looks truncated`,
          where,
        );
      }
      throw new CoverageFormatError(
        "go",
        "expected file:startLine.startCol,endLine.endCol numStmts count",
        where,
      );
    }
    const [, path, startLine, startCol, endLine, endCol, statements, count] = match;
    const block: Block = {
      path: path!,
      startLine: readLineNumber("go", startLine, "start line", where),
      endLine: readLineNumber("go", endLine, "end line", where),
      statements: readCount("go", statements, "statement count", where),
      count: readCount("go", count, "execution count", where),
    };
    if (block.endLine < block.startLine) {
      throw new CoverageFormatError(
        "go",
        `block ends (line ${endLine}) before it starts (line ${startLine})`,
        where,
      );
    }
    const key = `${path}:${startLine}.${startCol},${endLine}.${endCol}`;
    const seen = blocks.get(key);
    if (seen === undefined) blocks.set(key, block);
    else seen.count = mode === "set" ? Math.max(seen.count, block.count) : seen.count + block.count;
    if (!files.has(block.path)) files.set(block.path, where);
  }
  return { blocks, files };
}

function readMode(raw: string, current: GoMode | undefined, where: CoverageErrorLocation): GoMode {
  const declared = raw.slice("mode:".length).trim();
  if (declared !== "set" && declared !== "count" && declared !== "atomic") {
    throw new CoverageFormatError("go", `unknown mode "${declared}" (expected set, count or atomic)`, where);
  }
  if (current !== undefined && current !== declared && (current === "set" || declared === "set")) {
    throw new CoverageFormatError("go", `mode ${declared} mixed with mode ${current}`, where);
  }
  return declared;
}

function lastNonBlank(lines: readonly string[]): number {
  let index = lines.length - 1;
  while (index >= 0 && lines[index]!.trim() === "") index -= 1;
  return index;
}

function addLineHits(
  report: CoverageAccumulator,
  blocks: Iterable<Block>,
  fileOf: (path: string, where: CoverageErrorLocation) => FileHandle,
): void {
  const hitsByFile = new Map<string, Map<number, number>>();
  for (const block of blocks) {
    if (block.statements === 0) continue;
    let hits = hitsByFile.get(block.path);
    if (hits === undefined) {
      hits = new Map();
      hitsByFile.set(block.path, hits);
    }
    for (const line of statementLines(block)) hits.set(line, Math.max(hits.get(line) ?? 0, block.count));
  }
  for (const [path, hits] of hitsByFile) {
    const file = fileOf(path, {});
    for (const [line, count] of hits) report.addHits(file, line, count);
  }
}

/**
 * The lines that hold a block's statements. The profile gives a block's span and its number of
 * statements, not their lines, and `go tool cover` counts statements (its percentage is covered
 * statements over statements). A block that opens a body starts at its `{` (or a case's `:`),
 * whose line holds none of the block's statements, and a block that runs to the body's end stops
 * after the closing `}`, alone on its line; so while the span has more lines than statements its
 * first line, then its last, are dropped, and the first lines that remain, one per statement, are
 * the block's. gofmt puts one statement on a line, so this counts the statements Go counts: a
 * statement over several lines counts once, on one of them.
 */
export function statementLines(block: Pick<Block, "startLine" | "endLine" | "statements">): number[] {
  let first = block.startLine;
  let last = block.endLine;
  if (last - first + 1 > block.statements) first += 1;
  if (last - first + 1 > block.statements) last -= 1;
  const lines: number[] = [];
  for (let line = first; line <= last && lines.length < block.statements; line++) lines.push(line);
  return lines;
}
