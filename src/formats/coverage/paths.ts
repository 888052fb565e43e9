import path from "node:path";
import type { CoveragePathOptions } from "./types.ts";

const WINDOWS_DRIVE = /^[A-Za-z]:\//;

/**
 * Turns a path as a report writes it into a repository-relative path: `\` becomes `/`, a
 * `file://` URI becomes its path, `.` and `..` segments are resolved, and the first of `workDir`
 * and `stripPrefixes` the path lies under is removed. Paths under none of them are kept
 * (normalised), so the caller can still match or reject them. Windows drive paths compare
 * case-insensitively, as Windows does.
 */
export function normaliseCoveragePath(raw: string, options: CoveragePathOptions = {}): string {
  const cleaned = cleanPath(raw);
  const roots = [options.workDir, ...(options.stripPrefixes ?? [])].filter(
    (root): root is string => root !== undefined && root.trim() !== "",
  );
  for (const root of roots) {
    const relative = relativeTo(cleaned, cleanPath(root).replace(/\/+$/, ""));
    if (relative !== undefined) return relative;
  }
  return cleaned.replace(/^(\.\/)+/, "");
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
