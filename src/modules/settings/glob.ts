/**
 * Repository paths and the glob patterns of ignore rules (docs/workflows.md, "Ignore rules").
 *
 * A path is relative to the repository root, with `/` between segments: no leading `/`, no empty,
 * `.` or `..` segment, no backslash or control character. A glob is matched against the whole of
 * such a path, case-sensitively:
 * - `*` matches any run of characters inside one segment (never `/`), `?` exactly one;
 * - `**` as a whole segment matches any number of segments, none included (`**` + `/test_*.py` is
 *   that file name at any depth, `src/**` everything under `src`, `a/**` + `/b` `a/b`, `a/x/b`, ...);
 * - `[abc]`, `[a-z]`, `[!a-z]` (or `[^a-z]`) match one character of (or not of) the set;
 * - `{a,b}` matches one of the comma-separated alternatives (inside one segment, not nested);
 * - `\` makes the next character literal.
 * Names starting with `.` get no special treatment. A `**` inside a segment (`a**`) is refused
 * rather than guessed at, as are a leading `!` (no negation) and everything a path may not hold.
 */

/** The longest path or glob accepted, in characters. */
export const MAX_PATH_LENGTH = 1024;

/** Why `path` is not a repository-relative path, or null when it is one. */
export function relativePathProblem(path: string): string | null {
  if (path.length === 0) return "must not be empty";
  if (path.length > MAX_PATH_LENGTH) return `must be at most ${MAX_PATH_LENGTH} characters`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (/[\u0000-\u001f\u007f]/.test(path)) return "must not contain control characters";
  if (path.includes("\\")) return "must use `/` between segments, not `\\`";
  if (path.startsWith("/")) return "must be relative to the repository root (no leading `/`)";
  for (const segment of path.split("/")) {
    if (segment === "") return "must not have empty segments (`//` or a trailing `/`)";
    if (segment === "." || segment === "..") return "must not have `.` or `..` segments";
  }
  return null;
}

/** A glob compiled for matching, or why it is not one. */
export type CompiledGlob = { ok: true; regExp: RegExp } | { ok: false; problem: string };

/** Compiles `glob` (syntax in this file's comment). */
export function compileGlob(glob: string): CompiledGlob {
  try {
    return { ok: true, regExp: new RegExp(`^${globSource(glob)}$`, "u") };
  } catch (error) {
    if (error instanceof GlobSyntaxError) return { ok: false, problem: error.message };
    throw error;
  }
}

/** True when `path` matches `glob`; a glob that does not compile matches nothing. */
export function globMatches(glob: string, path: string): boolean {
  const compiled = compileGlob(glob);
  return compiled.ok && compiled.regExp.test(path);
}

class GlobSyntaxError extends Error {}

const ANY_SEGMENT = "[^/]+";

function globSource(glob: string): string {
  if (glob.length === 0) throw new GlobSyntaxError("must not be empty");
  if (glob.length > MAX_PATH_LENGTH)
    throw new GlobSyntaxError(`must be at most ${MAX_PATH_LENGTH} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (/[\u0000-\u001f\u007f]/.test(glob)) throw new GlobSyntaxError("must not contain control characters");
  if (glob.startsWith("/"))
    throw new GlobSyntaxError("must be relative to the repository root (no leading `/`)");
  if (glob.startsWith("!")) throw new GlobSyntaxError("must not start with `!` (negation is not supported)");
  // Consecutive `**` segments mean what one does.
  const segments = glob.split("/").filter((s, i, all) => !(s === "**" && all[i - 1] === "**"));
  if (segments.length === 1 && segments[0] === "**") return `${ANY_SEGMENT}(?:/${ANY_SEGMENT})*`;
  let source = "";
  let afterLeadingGlobstar = false;
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === "**") {
      if (i === 0) source += `(?:${ANY_SEGMENT}/)*`;
      else source += last ? `(?:/${ANY_SEGMENT})+` : `(?:/${ANY_SEGMENT})*`;
      afterLeadingGlobstar = i === 0;
      return;
    }
    if (segment === "") throw new GlobSyntaxError("must not have empty segments (`//` or a trailing `/`)");
    if (segment === "." || segment === "..") throw new GlobSyntaxError("must not have `.` or `..` segments");
    if (i > 0 && !afterLeadingGlobstar) source += "/";
    afterLeadingGlobstar = false;
    source += segmentSource(segment, false);
  });
  return source;
}

/** The regular expression of one segment (or of one `{…}` alternative when `inBraces`). */
function segmentSource(segment: string, inBraces: boolean): string {
  let source = "";
  let i = 0;
  while (i < segment.length) {
    const c = segment[i]!;
    if (c === "\\") {
      const next = segment[i + 1];
      if (next === undefined) throw new GlobSyntaxError("must not end with a lone `\\`");
      source += escapeRegExp(next);
      i += 2;
    } else if (c === "*") {
      if (segment[i + 1] === "*") {
        throw new GlobSyntaxError(
          "uses `**` inside a segment; `**` must be a whole segment, as in `**/*.py`",
        );
      }
      source += "[^/]*";
      i++;
    } else if (c === "?") {
      source += "[^/]";
      i++;
    } else if (c === "[") {
      const { source: cls, end } = classSource(segment, i);
      source += cls;
      i = end;
    } else if (c === "{") {
      if (inBraces) throw new GlobSyntaxError("must not nest `{…}` alternatives");
      const close = closingBrace(segment, i);
      const alternatives = splitAlternatives(segment.slice(i + 1, close));
      source += `(?:${alternatives.map((a) => segmentSource(a, true)).join("|")})`;
      i = close + 1;
    } else if (c === "}") {
      throw new GlobSyntaxError("has a `}` without its `{` (write `\\}` for the character)");
    } else {
      source += escapeRegExp(c);
      i++;
    }
  }
  return source;
}

/** A `[…]` class starting at `start`: its regular expression and the index after its `]`. */
function classSource(segment: string, start: number): { source: string; end: number } {
  let i = start + 1;
  let negated = false;
  if (segment[i] === "!" || segment[i] === "^") {
    negated = true;
    i++;
  }
  const members: string[] = [];
  let first = true;
  for (;;) {
    let c = segment[i];
    if (c === undefined) throw new GlobSyntaxError("has a `[` without its `]`");
    if (c === "]" && !first) break;
    first = false;
    if (c === "\\") {
      i++;
      c = segment[i];
      if (c === undefined) throw new GlobSyntaxError("has a `[` without its `]`");
    }
    const rangeEnd = segment[i + 1] === "-" && segment[i + 2] !== undefined && segment[i + 2] !== "]";
    if (rangeEnd) {
      let to = segment[i + 2]!;
      let skip = 3;
      if (to === "\\") {
        to = segment[i + 3] ?? "";
        skip = 4;
        if (to === "") throw new GlobSyntaxError("has a `[` without its `]`");
      }
      if (to.codePointAt(0)! < c.codePointAt(0)!) {
        throw new GlobSyntaxError(`has the range \`${c}-${to}\` whose end comes before its start`);
      }
      members.push(`${escapeClassChar(c)}-${escapeClassChar(to)}`);
      i += skip;
    } else {
      members.push(escapeClassChar(c));
      i++;
    }
  }
  // Segments were split at `/`, so the set never holds it; a negated set must not match it either.
  const body = members.join("");
  return { source: negated ? `[^/${body}]` : `[${body}]`, end: i + 1 };
}

/** The index of the `}` closing the `{` at `open`. */
function closingBrace(segment: string, open: number): number {
  for (let i = open + 1; i < segment.length; i++) {
    const c = segment[i];
    if (c === "\\") i++;
    else if (c === "{") throw new GlobSyntaxError("must not nest `{…}` alternatives");
    else if (c === "}") return i;
  }
  throw new GlobSyntaxError("has a `{` without its `}`");
}

/** The comma-separated alternatives of a `{…}` body (escaped commas stay in their alternative). */
function splitAlternatives(body: string): string[] {
  const alternatives: string[] = [];
  let current = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\" && i + 1 < body.length) {
      current += c + body[i + 1];
      i++;
    } else if (c === ",") {
      alternatives.push(current);
      current = "";
    } else {
      current += c;
    }
  }
  alternatives.push(current);
  return alternatives;
}

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

function escapeClassChar(c: string): string {
  return /[\\\]^[-]/.test(c) ? `\\${c}` : c;
}
