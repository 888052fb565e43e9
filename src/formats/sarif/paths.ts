import path from "node:path";
import type { SarifLocation } from "./types.ts";

/**
 * Turning SARIF artifact locations (`uri` + `uriBaseId`, SARIF §3.4) into repository-relative
 * paths. A relative URI is resolved through the run's `originalUriBaseIds` (§3.14.14), which may
 * chain; an unknown base id (typically `%SRCROOT%` left undefined) means the repository root. An
 * absolute `file://` URI or path is made relative to the checkout directory the CI reported
 * (`workDir`). A URI's percent-escapes are decoded (a plain path is a file name as written, see
 * `filePathOf`) and `\` separators become `/`. A path that is still
 * relative once its bases are followed is read against the run's working directory when it lies
 * in a subdirectory of `workDir` (`invocations[].workingDirectory`, working-directories.ts).
 */

/** One entry of a run's `originalUriBaseIds`. */
export interface UriBase {
  uri?: string;
  uriBaseId?: string;
}

/** Where the repository was checked out when the tool ran, and the run's named bases. */
export interface PathContext {
  /** The checkout directory (absolute, POSIX or Windows style); null when unknown. */
  workDir: string | null;
  originalUriBaseIds: Readonly<Record<string, UriBase>>;
  /**
   * The repository-relative directory the tool ran in (`backend`), when the run's invocations name
   * one inside `workDir` other than the root: a path no base makes absolute is relative to it.
   * Null or absent: the repository root.
   */
  workingDirectory?: string | null;
}

/** A resolved artifact path. */
export interface ResolvedPath {
  /** Repository-relative when inside the repository; otherwise the normalised path as resolved. */
  path: string;
  outsideRepository: boolean;
}

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const WINDOWS_ABSOLUTE = /^[a-z]:\//i;

/** Decodes percent-escapes, leaving a malformed escape as written rather than failing. */
function percentDecode(text: string): string {
  // Most paths have no escape, and decodeURIComponent would give them back unchanged.
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-9a-f]{2})/gi, (written, hex: string) => {
      const code = Number.parseInt(hex, 16);
      return code < 0x80 ? String.fromCharCode(code) : written;
    });
  }
}

/**
 * The URI scheme `text` starts with, lower-cased: `file:`, or another scheme followed by `//`
 * (`https://host/x`). Undefined for anything else, which is read as a path: a Windows drive
 * (`C:\src`, a one-letter "scheme"), and a relative path whose first segment holds a colon
 * (`build:prod.js`, which tools write as it is, where RFC 3986 would want `./build:prod.js`).
 */
function uriScheme(text: string): string | undefined {
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme.length === 1) return undefined;
  return scheme === "file" || text.startsWith("//", scheme.length + 1) ? scheme : undefined;
}

/** `file:///C:/x` → `C:/x`, `file:///x` → `/x`, `file://host/x` → `//host/x`; other schemes unchanged. */
function pathOfUri(uri: string): string {
  const scheme = uriScheme(uri);
  if (scheme === undefined) return uri.replaceAll("\\", "/");
  if (scheme !== "file") return uri;
  let rest = uri.slice("file:".length).replace(/[?#].*$/, "");
  if (rest.startsWith("//")) {
    rest = rest.slice(2);
    const slash = rest.indexOf("/");
    const host = slash < 0 ? rest : rest.slice(0, slash);
    rest = slash < 0 ? "/" : rest.slice(slash);
    if (host !== "" && host !== "localhost") return `//${host}${rest}`;
  }
  if (/^\/[a-z]:/i.test(rest)) rest = rest.slice(1);
  return rest;
}

/**
 * The path a location's `uri` names. A `file:` URI, and a reference against a named base
 * (`uriBaseId`), are URIs as SARIF §3.4.3 has them, so their percent-escapes are decoded: ESLint's
 * formatter and clang write `file:` URIs, Staticcheck `%SRCROOT%`-relative references, all
 * percent-encoded (`a%2520b.js` for a file named `a%20b.js`). A plain path with neither is a file
 * name as the tool wrote it: Biome, oxlint and secretlint write `a%20b.js` for that file and
 * `a b.js` for one with a space, and cppcheck, GCC and go vet only ever write file names.
 */
function filePathOf(uri: string, againstBase: boolean): string {
  const scheme = uriScheme(uri);
  const written = pathOfUri(uri);
  return scheme === "file" || (scheme === undefined && againstBase) ? percentDecode(written) : written;
}

function isAbsolute(p: string): boolean {
  return p.startsWith("/") || WINDOWS_ABSOLUTE.test(p);
}

/** Normalises `.`/`..` and repeated separators; a drive letter is lower-cased for comparisons. */
function normalise(p: string): string {
  const drive = WINDOWS_ABSOLUTE.test(p) ? p.slice(0, 2).toLowerCase() : "";
  const rest = drive ? p.slice(2) : p;
  const normalised = path.posix.normalize(rest);
  return drive + (normalised === "." ? "" : normalised);
}

/** Follows `uriBaseId` through `originalUriBaseIds` to a base path; null for "the repository root". */
function basePath(id: string | undefined, context: PathContext, seen: Set<string>): string | null {
  if (id === undefined || seen.has(id)) return null;
  seen.add(id);
  const base = context.originalUriBaseIds[id];
  if (base?.uri === undefined) return null;
  const own = filePathOf(base.uri, base.uriBaseId !== undefined);
  if (isAbsolute(own) || uriScheme(own) !== undefined) return own;
  const parent = basePath(base.uriBaseId, context, seen);
  return parent === null ? own : `${parent.replace(/\/?$/, "/")}${own}`;
}

/**
 * `written` read against the run's working directory: unchanged when it is absolute, another URI
 * scheme's, or the tool ran at the root; so the bases the report defines keep precedence.
 */
function inWorkingDirectory(written: string, workingDirectory: string | null | undefined): string {
  if (!workingDirectory || isAbsolute(written) || uriScheme(written) !== undefined) return written;
  return `${workingDirectory}/${written}`;
}

/**
 * The repository-relative directory a run's `invocations[].workingDirectory.uri` names: null when
 * it is not absolute (the report then says nothing this reader can place), when it is `workDir`
 * itself, or when it lies outside `workDir` (unknown, or another checkout): then paths stay
 * relative to the repository root.
 */
export function workingDirectoryIn(uri: string, workDir: string | null): string | null {
  if (workDir === null) return null;
  if (!isAbsolute(filePathOf(uri, false))) return null;
  const resolved = resolveArtifactPath(uri, undefined, { workDir, originalUriBaseIds: {} });
  const directory = resolved.path.replace(/\/+$/, "");
  return resolved.outsideRepository || directory === "" ? null : directory;
}

/**
 * Resolves an artifact location to a repository-relative path. An absolute path is relative to
 * `workDir` when under it and outside the repository otherwise (also when `workDir` is unknown); a
 * relative path that climbs above the root (`../x`) is outside too.
 */
export function resolveArtifactPath(
  uri: string,
  uriBaseId: string | undefined,
  context: PathContext,
): ResolvedPath {
  const own = filePathOf(uri, uriBaseId !== undefined);
  const base = isAbsolute(own) ? null : basePath(uriBaseId, context, new Set());
  const written = base === null ? own : `${base.replace(/\/?$/, "/")}${own}`;
  const joined = normalise(inWorkingDirectory(written, context.workingDirectory));
  // Before normalising, which would fold the `//` after the scheme.
  if (uriScheme(written) !== undefined) {
    return { path: joined, outsideRepository: true };
  }
  if (!isAbsolute(joined)) {
    const relative = joined.replace(/^\.\//, "");
    return { path: relative, outsideRepository: relative === ".." || relative.startsWith("../") };
  }
  if (context.workDir === null) return { path: joined, outsideRepository: true };
  const root = normalise(filePathOf(context.workDir, false)).replace(/\/$/, "");
  if (joined.startsWith(`${root}/`)) return { path: joined.slice(root.length + 1), outsideRepository: false };
  return { path: joined, outsideRepository: true };
}

/** A place as a tool's own format writes it: a file, and a line and column where known. */
export interface ToolPlace {
  file: string;
  line: number | null;
  column: number | null;
  /** Where the place ends, when the tool says so in the same file. */
  end?: { line: number | null; column: number | null } | null;
}

/**
 * The SARIF location of a place written by a tool that has no SARIF (cppcheck, go vet, GCC): its
 * file resolved as an artifact URI against `context`, and its region from the line on (ending
 * where the tool says, when that is not before the start; else where it starts).
 */
export function locationOfPlace(
  place: ToolPlace,
  message: string | null,
  context: PathContext,
): SarifLocation {
  const resolved = resolveArtifactPath(place.file, undefined, context);
  const { line, column, end } = place;
  const closes = line !== null && end != null && end.line !== null && end.line >= line;
  return {
    path: resolved.path,
    outsideRepository: resolved.outsideRepository,
    uri: place.file,
    uriBaseId: null,
    region:
      line === null
        ? null
        : {
            startLine: line,
            startColumn: column,
            endLine: closes ? end.line! : line,
            endColumn: closes ? end.column : column,
            snippet: null,
          },
    message,
    id: null,
  };
}
