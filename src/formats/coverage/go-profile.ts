import { CoverageAccumulator, readCount, readLineNumber } from "./accumulator.ts";
import { CoverageFormatError, type CoveragePathOptions, type CoverageReport } from "./types.ts";

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
 * entry is. Blocks without statements are skipped. A line's hits are the largest count of the
 * blocks spanning it, so a line is covered when any statement on it ran. Go profiles have no
 * branch data.
 */
export function parseGoProfile(text: string, options: CoveragePathOptions = {}): CoverageReport {
  const report = new CoverageAccumulator("go", options);
  const blocks = new Map<string, Block>();
  let mode: GoMode | undefined;
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index]!.trim();
    const where = { line: index + 1 };
    if (raw === "") continue;
    if (raw.startsWith("mode:")) {
      const declared = raw.slice("mode:".length).trim();
      if (declared !== "set" && declared !== "count" && declared !== "atomic") {
        throw new CoverageFormatError(
          "go",
          `unknown mode "${declared}" (expected set, count or atomic)`,
          where,
        );
      }
      if (mode !== undefined && mode !== declared && (mode === "set" || declared === "set")) {
        throw new CoverageFormatError("go", `mode ${declared} mixed with mode ${mode}`, where);
      }
      mode = declared;
      continue;
    }
    if (mode === undefined)
      throw new CoverageFormatError("go", "the first line must be mode: set|count|atomic", where);
    const match = BLOCK.exec(raw);
    if (match === null) {
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
    report.file(block.path, where);
  }
  addLineHits(report, blocks.values());
  return report.build();
}

function addLineHits(report: CoverageAccumulator, blocks: Iterable<Block>): void {
  const hitsByFile = new Map<string, Map<number, number>>();
  for (const block of blocks) {
    if (block.statements === 0) continue;
    let hits = hitsByFile.get(block.path);
    if (hits === undefined) {
      hits = new Map();
      hitsByFile.set(block.path, hits);
    }
    for (let line = block.startLine; line <= block.endLine; line++) {
      hits.set(line, Math.max(hits.get(line) ?? 0, block.count));
    }
  }
  for (const [path, hits] of hitsByFile) {
    const file = report.file(path, {});
    for (const [line, count] of hits) report.addHits(file, line, count);
  }
}
