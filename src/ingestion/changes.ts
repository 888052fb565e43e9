import { normaliseCoveragePath } from "../formats/coverage/index.ts";
import { jsonSyntaxReason } from "../http/json.ts";

/**
 * A run's changed lines (a CHANGES artifact, docs/ingestion-coverage.md "Coverage metrics and
 * new-code coverage"): the lines added or changed in the new version of each file, read from a
 * unified diff (`git diff` output) or from JSON ranges `{"files": {"<path>": [[start, end], ...]}}`.
 * Pure: no database, no I/O.
 */

/** An inclusive, 1-based range of line numbers in the new version of a file. */
export type LineRange = readonly [start: number, end: number];

/** Changed lines by repository-relative path; each file's ranges are sorted, merged and disjoint. */
export type ChangedLines = Map<string, LineRange[]>;

/** Changed lines that cannot be read; the message names the problem and where it is. */
export class ChangedLinesFormatError extends Error {
  override readonly name = "ChangedLinesFormatError";
}

/**
 * Parses a CHANGES artifact: JSON when the text starts with `{`, a unified diff otherwise. Paths
 * become repository-relative: a diff's `b/` prefix goes, and so does `workDir` when a path lies
 * under it. A blank text is an empty change set (what `git diff` prints for no changes).
 */
export function parseChangedLines(text: string, workDir?: string | null): ChangedLines {
  const body = text.replace(/^\uFEFF/, "");
  if (body.trim() === "") return new Map();
  const pathOptions = workDir ? { workDir } : {};
  const toPath = (raw: string) => normaliseCoveragePath(raw, pathOptions);
  return body.trimStart().startsWith("{") ? parseJsonRanges(body, toPath) : parseUnifiedDiff(body, toPath);
}

/** Renamed files by their new repository-relative path, each with its old one. */
export type RenamedFiles = Map<string, string>;

const RENAME_FROM = "rename from ";
const RENAME_TO = "rename to ";

/**
 * The renames a CHANGES artifact names (docs/ingestion.md "Renamed files"): git's `rename from` and
 * `rename to` lines, which `git diff --find-renames` prints in a file's extended header, with or
 * without edits (a rename without edits has no `---`/`+++` lines at all). Paths are made
 * repository-relative as {@link parseChangedLines} makes them. JSON ranges name no renames, and
 * neither does text that does not parse: its processing reports that.
 */
export function parseRenamedFiles(text: string, workDir?: string | null): RenamedFiles {
  const renames: RenamedFiles = new Map();
  const body = text.replace(/^\uFEFF/, "");
  if (body.trimStart().startsWith("{")) return renames;
  const pathOptions = workDir ? { workDir } : {};
  let from: string | null = null;
  const lines = body.split("\n");
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!.endsWith("\r") ? lines[index]!.slice(0, -1) : lines[index]!;
    if (line.startsWith("diff ")) from = null;
    else if (line.startsWith(RENAME_FROM)) from = renamePath(line.slice(RENAME_FROM.length), index + 1);
    else if (line.startsWith(RENAME_TO) && from !== null) {
      const oldPath = normaliseCoveragePath(from, pathOptions);
      const newPath = normaliseCoveragePath(renamePath(line.slice(RENAME_TO.length), index + 1), pathOptions);
      if (oldPath !== "" && newPath !== "" && oldPath !== newPath) renames.set(newPath, oldPath);
      from = null;
    }
  }
  return renames;
}

/** The path of a `rename from`/`rename to` line: git quotes it as in a file header when needed. */
function renamePath(rest: string, lineNumber: number): string {
  return rest.startsWith('"') ? unquoteGitPath(rest, lineNumber) : rest;
}

/** The union of several runs' renames; a path renamed differently by two artifacts keeps the first. */
export function mergeRenamedFiles(sets: readonly RenamedFiles[]): RenamedFiles {
  const merged: RenamedFiles = new Map();
  for (const set of sets) for (const [to, from] of set) if (!merged.has(to)) merged.set(to, from);
  return merged;
}

/** Whether `line` of `path` is among the changed lines. */
export function isChanged(changed: ChangedLines, path: string, line: number): boolean {
  const ranges = changed.get(path);
  if (ranges === undefined) return false;
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [start, end] = ranges[middle]!;
    if (line < start) high = middle - 1;
    else if (line > end) low = middle + 1;
    else return true;
  }
  return false;
}

/** The union of several change sets (a run may carry more than one CHANGES artifact). */
export function mergeChangedLines(sets: readonly ChangedLines[]): ChangedLines {
  const merged: ChangedLines = new Map();
  for (const set of sets) {
    for (const [path, ranges] of set) merged.set(path, [...(merged.get(path) ?? []), ...ranges]);
  }
  for (const [path, ranges] of merged) merged.set(path, normaliseRanges(ranges));
  return merged;
}

/** How many changed lines a change set holds, over all files. */
export function countChangedLines(changed: ChangedLines): number {
  let count = 0;
  for (const ranges of changed.values()) for (const [start, end] of ranges) count += end - start + 1;
  return count;
}

/** Sorts ranges and merges those that overlap or touch. */
function normaliseRanges(ranges: readonly LineRange[]): LineRange[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

// --- JSON ranges -------------------------------------------------------------------------------

function parseJsonRanges(text: string, toPath: (raw: string) => string): ChangedLines {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ChangedLinesFormatError(`changed lines (JSON): not valid JSON: ${jsonSyntaxReason(error)}`);
  }
  if (!isObject(parsed) || !isObject(parsed.files)) {
    throw new ChangedLinesFormatError(
      'changed lines (JSON): expected an object {"files": {"<path>": [[start, end], ...]}}',
    );
  }
  const changed: ChangedLines = new Map();
  for (const [rawPath, value] of Object.entries(parsed.files)) {
    const path = toPath(rawPath);
    if (path === "" || path === ".")
      throw new ChangedLinesFormatError("changed lines (JSON): a file has an empty path");
    const ranges = readJsonRanges(rawPath, value);
    changed.set(path, normaliseRanges([...(changed.get(path) ?? []), ...ranges]));
  }
  return changed;
}

function readJsonRanges(rawPath: string, value: unknown): LineRange[] {
  const where = `"files"[${JSON.stringify(rawPath)}]`;
  if (!Array.isArray(value)) {
    throw new ChangedLinesFormatError(`changed lines (JSON): ${where} must be a list of [start, end] ranges`);
  }
  return value.map((range, index) => {
    const ok =
      Array.isArray(range) &&
      range.length === 2 &&
      range.every((n) => Number.isSafeInteger(n)) &&
      range[0] >= 1 &&
      range[0] <= range[1];
    if (!ok) {
      throw new ChangedLinesFormatError(
        `changed lines (JSON): ${where}[${index}] must be [start, end] with whole numbers 1 <= start <= end, not ${JSON.stringify(range)}`,
      );
    }
    return [range[0], range[1]] as const;
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// --- Unified diff ------------------------------------------------------------------------------

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** A hunk being read: where the next new line lands and how many old/new lines remain. */
interface Hunk {
  startLine: number;
  nextLine: number;
  oldLeft: number;
  newLeft: number;
}

/** What the diff reader knows about the file section it is in. */
interface DiffState {
  changed: ChangedLines;
  /**
   * The path the section's hunks add lines to: null after `+++ /dev/null` (a deleted file),
   * undefined before the section's `+++` header.
   */
  path: string | null | undefined;
  /** The `--- ` path of the section, to tell a `b/` prefix from a directory named `b`. */
  oldPath: string | null;
  sawHeader: boolean;
  hunk: Hunk | null;
  /** Inside a `GIT binary patch` block, whose data lines are skipped until the next section. */
  inBinaryPatch: boolean;
}

function parseUnifiedDiff(text: string, toPath: (raw: string) => string): ChangedLines {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const state: DiffState = {
    changed: new Map(),
    path: undefined,
    oldPath: null,
    sawHeader: false,
    hunk: null,
    inBinaryPatch: false,
  };
  lines.forEach((raw, index) => {
    readDiffLine(state, raw.endsWith("\r") ? raw.slice(0, -1) : raw, index + 1, toPath);
  });
  if (state.hunk !== null) {
    throw new ChangedLinesFormatError(
      `unified diff: the text ends inside the hunk that starts at line ${state.hunk.startLine} (${state.hunk.newLeft} new and ${state.hunk.oldLeft} old lines missing)`,
    );
  }
  if (!state.sawHeader) {
    throw new ChangedLinesFormatError(
      'changed lines: neither a unified diff (no "diff --git" or "+++" file header found) nor JSON ranges',
    );
  }
  for (const [path, ranges] of state.changed) state.changed.set(path, normaliseRanges(ranges));
  return state.changed;
}

function readDiffLine(
  state: DiffState,
  line: string,
  lineNumber: number,
  toPath: (raw: string) => string,
): void {
  if (state.hunk !== null) {
    readHunkLine(state, state.hunk, line, lineNumber);
    return;
  }
  if (line.startsWith("diff ")) {
    if (line.startsWith("diff --cc ") || line.startsWith("diff --combined ")) {
      throw new ChangedLinesFormatError(
        `unified diff: combined diffs of merge commits are not supported (at line ${lineNumber}); send "git diff <base> <head>"`,
      );
    }
    state.sawHeader = true;
    state.path = undefined;
    state.oldPath = null;
    state.inBinaryPatch = false;
    return;
  }
  if (state.inBinaryPatch) return;
  if (line === "GIT binary patch") {
    state.inBinaryPatch = true;
    return;
  }
  if (line.startsWith("--- ")) {
    state.oldPath = readHeaderPath(line.slice(4), lineNumber);
    return;
  }
  if (line.startsWith("+++ ")) {
    state.sawHeader = true;
    const newPath = readHeaderPath(line.slice(4), lineNumber);
    state.path = newPath === "/dev/null" ? null : repositoryPath(newPath, state.oldPath, toPath, lineNumber);
    return;
  }
  if (line.startsWith("@@@")) {
    throw new ChangedLinesFormatError(
      `unified diff: combined diffs of merge commits are not supported (at line ${lineNumber}); send "git diff <base> <head>"`,
    );
  }
  if (line.startsWith("@@")) {
    state.hunk = startHunk(state, line, lineNumber);
  }
  // Anything else outside a hunk (index, mode, rename, similarity and "Binary files" lines, or a
  // patch's preamble) says nothing about added lines.
}

function startHunk(state: DiffState, line: string, lineNumber: number): Hunk | null {
  const match = HUNK_HEADER.exec(line);
  if (match === null) {
    throw new ChangedLinesFormatError(
      `unified diff: malformed hunk header at line ${lineNumber}: expected "@@ -start,count +start,count @@"`,
    );
  }
  if (state.path === undefined) {
    throw new ChangedLinesFormatError(
      `unified diff: the hunk at line ${lineNumber} has no file header ("+++ b/<path>") before it`,
    );
  }
  const hunk: Hunk = {
    startLine: lineNumber,
    nextLine: Number(match[3]),
    oldLeft: match[2] === undefined ? 1 : Number(match[2]),
    newLeft: match[4] === undefined ? 1 : Number(match[4]),
  };
  return hunk.oldLeft === 0 && hunk.newLeft === 0 ? null : hunk;
}

function readHunkLine(state: DiffState, hunk: Hunk, line: string, lineNumber: number): void {
  const marker = line.charAt(0);
  if (marker === "\\") return; // "\ No newline at end of file"
  if (marker === "+") {
    if (hunk.newLeft === 0) throw hunkOverflow(hunk, lineNumber, "new");
    if (typeof state.path === "string") addLine(state.changed, state.path, hunk.nextLine);
    hunk.nextLine += 1;
    hunk.newLeft -= 1;
  } else if (marker === "-") {
    if (hunk.oldLeft === 0) throw hunkOverflow(hunk, lineNumber, "old");
    hunk.oldLeft -= 1;
  } else if (marker === " " || line === "") {
    // A context line; some tools strip the single space of an empty one.
    if (hunk.newLeft === 0 || hunk.oldLeft === 0) throw hunkOverflow(hunk, lineNumber, "context");
    hunk.nextLine += 1;
    hunk.newLeft -= 1;
    hunk.oldLeft -= 1;
  } else {
    throw new ChangedLinesFormatError(
      `unified diff: line ${lineNumber} is inside the hunk that starts at line ${hunk.startLine} but does not start with " ", "+", "-" or "\\" (the hunk header counts more lines than follow)`,
    );
  }
  if (hunk.oldLeft === 0 && hunk.newLeft === 0) state.hunk = null;
}

function hunkOverflow(hunk: Hunk, lineNumber: number, kind: string): ChangedLinesFormatError {
  return new ChangedLinesFormatError(
    `unified diff: line ${lineNumber} is one ${kind} line more than the header of the hunk at line ${hunk.startLine} counts`,
  );
}

function addLine(changed: ChangedLines, path: string, line: number): void {
  let ranges = changed.get(path) as Array<[number, number]> | undefined;
  if (ranges === undefined) {
    ranges = [];
    changed.set(path, ranges);
  }
  const last = ranges[ranges.length - 1];
  if (last !== undefined && last[1] + 1 === line) last[1] = line;
  else ranges.push([line, line]);
}

/**
 * The path of a `---`/`+++` header: unquoted when git quoted it (special characters), without
 * the tab-separated timestamp `diff -u` appends.
 */
function readHeaderPath(rest: string, lineNumber: number): string {
  if (rest.startsWith('"')) return unquoteGitPath(rest, lineNumber);
  const tab = rest.indexOf("\t");
  const path = tab === -1 ? rest : rest.slice(0, tab);
  return path.replace(/\s+$/, "");
}

/** The new path made repository-relative: git's `b/` prefix (when the old path has `a/`) goes. */
function repositoryPath(
  newPath: string,
  oldPath: string | null,
  toPath: (raw: string) => string,
  lineNumber: number,
): string {
  const prefixed =
    newPath.startsWith("b/") && (oldPath === null || oldPath === "/dev/null" || oldPath.startsWith("a/"));
  const path = toPath(prefixed ? newPath.slice(2) : newPath);
  if (path === "" || path === ".") {
    throw new ChangedLinesFormatError(
      `unified diff: the file header at line ${lineNumber} has an empty path`,
    );
  }
  return path;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/** Decodes a path git wrote in C quotes (`"b/caf\303\251.txt"`): escapes and octal UTF-8 bytes. */
function unquoteGitPath(quoted: string, lineNumber: number): string {
  const bytes: number[] = [];
  let i = 1;
  for (; i < quoted.length && quoted[i] !== '"'; i += 1) {
    const char = quoted[i]!;
    if (char !== "\\") {
      bytes.push(...Buffer.from(char, "utf8"));
      continue;
    }
    const next = quoted[i + 1] ?? "";
    const octal = /^[0-7]{3}/.exec(quoted.slice(i + 1));
    if (octal !== null) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
    } else if (next in ESCAPES) {
      bytes.push(ESCAPES[next]!);
      i += 1;
    } else {
      throw new ChangedLinesFormatError(
        `unified diff: bad escape "\\${next}" in the quoted path at line ${lineNumber}`,
      );
    }
  }
  if (i >= quoted.length) {
    throw new ChangedLinesFormatError(`unified diff: unterminated quoted path at line ${lineNumber}`);
  }
  return Buffer.from(bytes).toString("utf8");
}
