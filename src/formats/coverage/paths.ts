import path from "node:path";
import type { CoveragePathOptions } from "./types.ts";

const WINDOWS_DRIVE = /^[A-Za-z]:\//;

/** A report path made repository-relative, or found to lie outside the repository. */
export interface ResolvedCoveragePath {
  /** Repository-relative when inside; otherwise the normalised path (absolute, or climbing with `../`). */
  path: string;
  /** True for an absolute path under no root, and for a relative path climbing above the root. */
  outside: boolean;
  /** True when the path lay under `workDir` or a strip prefix (and lost it). */
  underRoot: boolean;
}

/**
 * Turns a path as a report writes it into a repository-relative path: `\` becomes `/`, a
 * `file://` URI becomes its path, `.` and `..` segments are resolved, and the first of `workDir`
 * and `stripPrefixes` the path lies under is removed. Paths under none of them are kept
 * (normalised). Windows drive paths compare case-insensitively, as Windows does.
 */
export function normaliseCoveragePath(raw: string, options: CoveragePathOptions = {}): string {
  return resolveCoveragePath(raw, options).path;
}

/**
 * {@link normaliseCoveragePath}, saying whether the path lies outside the repository: an absolute
 * path under no root (also when no `workDir` was given: nothing says where the repository is), or
 * a relative path that climbs above the root (`../lib/a.js`). A relative path is read from
 * `directory` (the repository root when there is none).
 */
export function resolveCoveragePath(raw: string, options: CoveragePathOptions = {}): ResolvedCoveragePath {
  const cleaned = cleanPath(raw);
  for (const root of rootsOf(options)) {
    const relative = relativeTo(cleaned, cleanPath(root).replace(/\/+$/, ""));
    if (relative !== undefined) return { path: relative, outside: false, underRoot: true };
  }
  if (isAbsolute(cleaned)) return { path: cleaned, outside: true, underRoot: false };
  const written = cleaned.replace(/^(\.\/)+/, "");
  const directory = options.directory?.trim() ? cleanPath(options.directory) : "";
  const relative = directory === "" ? written : path.posix.normalize(`${directory}/${written}`);
  return { path: relative, outside: relative === ".." || relative.startsWith("../"), underRoot: false };
}

function rootsOf(options: CoveragePathOptions): string[] {
  return [options.workDir, ...(options.stripPrefixes ?? [])].filter(
    (root): root is string => root !== undefined && root.trim() !== "",
  );
}

/** Joins a report's source directory and a file name relative to it, keeping absolute names. */
export function joinCoveragePath(directory: string | undefined, name: string): string {
  const cleanName = cleanPath(name);
  if (directory === undefined || directory.trim() === "" || isAbsolute(cleanName)) return cleanName;
  return path.posix.join(cleanPath(directory), cleanName);
}

/** Whether a cleaned path is absolute (POSIX root or Windows drive). */
export function isAbsolute(cleaned: string): boolean {
  return cleaned.startsWith("/") || WINDOWS_DRIVE.test(cleaned);
}

function cleanPath(raw: string): string {
  let p = raw.trim().replace(/\\/g, "/");
  if (p.toLowerCase().startsWith("file://")) p = safeDecode(p.slice("file://".length));
  if (/^\/[A-Za-z]:\//.test(p)) p = p.slice(1);
  return p === "" ? p : path.posix.normalize(p);
}

function relativeTo(cleaned: string, root: string): string | undefined {
  if (root === "" || root === ".") return undefined;
  const caseless = WINDOWS_DRIVE.test(root);
  const subject = caseless ? cleaned.toLowerCase() : cleaned;
  const prefix = `${caseless ? root.toLowerCase() : root}/`;
  return subject.startsWith(prefix) ? cleaned.slice(prefix.length) : undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const ALTERNATIVES = /^\{([^{}]*)\}\/(.+)$/;

/**
 * The path of a file that lies in one of several places the report does not choose between (a
 * Cobertura `filename` relative to one of several `<source>` directories), written as the shell
 * writes alternatives: the part the places share after the braces, the differing directories in
 * them, `.` for the repository root. `invoices/totals.py` or `tests/totals.py` is
 * `{invoices,tests}/totals.py`.
 */
export function alternativesPath(candidates: readonly string[]): string {
  const split = candidates.map((candidate) => candidate.split("/"));
  const shortest = Math.min(...split.map((segments) => segments.length));
  let shared = 0;
  while (
    shared < shortest &&
    split.every((segments) => segments.at(-1 - shared) === split[0]!.at(-1 - shared))
  ) {
    shared += 1;
  }
  const tail = split[0]!.slice(split[0]!.length - shared).join("/");
  const heads = split.map((segments) => segments.slice(0, segments.length - shared).join("/") || ".");
  return `{${heads.join(",")}}/${tail}`;
}

/** The places an {@link alternativesPath} stands for, in its order; null for any other path. */
export function alternativesOf(path: string): string[] | null {
  const match = ALTERNATIVES.exec(path);
  if (match === null) return null;
  const tail = match[2]!;
  return match[1]!.split(",").map((head) => (head === "." ? tail : `${head}/${tail}`));
}
