/**
 * Where a file builds SQL: the question scripts/boundaries.ts asks of every file of `src/` outside
 * the stores, which keep all of the statements. Pure and textual, like scripts/import-graph.ts: a
 * file's comments and string contents are blanked first (so prose and messages that mention a
 * query builder do not count), then three things are looked for:
 *
 * - a value import from `kysely` (`sql`, `expressionBuilder`, `CompiledQuery`…; `import type` and
 *   `type` names are fine: a pipeline passes `Kysely<Database>` around without building SQL);
 * - a query builder's start or end: `.selectFrom(`, `.insertInto(`, `.updateTable(`,
 *   `.deleteFrom(`, `.replaceInto(`, `.mergeInto(`, `.selectNoFrom(`, `.executeQuery(`,
 *   `.executeTakeFirst(`, `.executeTakeFirstOrThrow(`, and `.execute(` unless it runs a
 *   transaction or a connection (`db.transaction().execute(…)` is how a pipeline owns one) or is
 *   a class's own method (`this.execute(…)`);
 * - the `sql` tag in use (`` sql`…` ``, `` sql<T>`…` ``, `sql.raw(…)`, `sql.ref(…)`…), however it
 *   was imported.
 */
import { parseImports } from "./import-graph.ts";

/** One place a file builds SQL. */
export interface SqlUse {
  /** 1-based line. */
  line: number;
  /** What was found, as the failure message shows it. */
  what: string;
}

/**
 * `source` with comments and the contents of strings and template texts replaced by spaces
 * (newlines kept, so lines stay where they were); `${…}` inside a template stays code. A `/` starts
 * a regular expression where an operand is expected (after `(,=:[!&|?{};+-*%<>~^` or a keyword
 * like `return`), the usual rule for telling it from division.
 */
export function blankCommentsAndStrings(source: string): string {
  const parts: string[] = [];
  /** Where the text not yet copied to `parts` starts. */
  let copied = 0;
  const blank = (from: number, to: number) => {
    if (to <= from) return;
    parts.push(source.slice(copied, from), source.slice(from, to).replace(/[^\n]/g, " "));
    copied = to;
  };
  /** Brace depth of each open `${`, so the `}` that closes it resumes its template. */
  const templates: number[] = [];
  let depth = 0;
  /** The last character of code that is not blank, and the word it ended, for telling a regex from division. */
  let lastSignificant = "";
  let lastWord = "";
  // From just after "`" or "}": to after the closing "`", or to after "${" (the template stays open).
  const scanTemplateText = (start: number): number => {
    let j = start;
    while (j < source.length) {
      const c = source.charCodeAt(j);
      if (c === BACKSLASH) j += 2;
      else if (c === BACKTICK) {
        blank(start, j);
        return j + 1;
      } else if (c === DOLLAR && source.charCodeAt(j + 1) === OPEN_BRACE) {
        blank(start, j);
        templates.push(depth);
        depth++;
        return j + 2;
      } else j++;
    }
    blank(start, source.length);
    return source.length;
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      const stop = end === -1 ? source.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? source.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== c && source[j] !== "\n") j += source[j] === "\\" ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
      lastSignificant = c;
    } else if (c === "`") {
      i = scanTemplateText(i + 1);
      lastSignificant = "`";
    } else if (c === "/" && (OPERAND_EXPECTED.includes(lastSignificant) || REGEX_KEYWORDS.has(lastWord))) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== "\n") {
        const d = source[j];
        if (d === "\\") {
          j += 2;
          continue;
        }
        if (d === "[") inClass = true;
        else if (d === "]") inClass = false;
        else if (d === "/" && !inClass) break;
        j++;
      }
      blank(i + 1, j);
      i = j + 1;
      lastSignificant = "/";
      lastWord = "";
    } else if (c === "}" && templates.length > 0 && templates[templates.length - 1] === depth - 1) {
      depth--;
      templates.pop();
      i = scanTemplateText(i + 1);
      lastSignificant = "`";
    } else {
      if (isWordCharacter(source.charCodeAt(i))) {
        let j = i + 1;
        while (j < source.length && isWordCharacter(source.charCodeAt(j))) j++;
        lastWord = source.slice(i, j);
        lastSignificant = "a";
        i = j;
        continue;
      }
      if (c === "{") depth++;
      else if (c === "}") depth--;
      if (c !== " " && c !== "\n" && c !== "\t" && c !== "\r") {
        lastSignificant = c;
        lastWord = "";
      }
      i++;
    }
  }
  parts.push(source.slice(copied));
  return parts.join("");
}

const BACKSLASH = 92;
const BACKTICK = 96;
const DOLLAR = 36;
const OPEN_BRACE = 123;
/** Characters after which a `/` starts a regular expression (an operand is expected); "" is the file's start. */
const OPERAND_EXPECTED = ["", ..."(,=:[!&|?{};+-*%<>~^"];

/** `[A-Za-z0-9_$]`. */
function isWordCharacter(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 36
  );
}
const REGEX_KEYWORDS = new Set(["return", "typeof", "case", "do", "else", "in", "of", "yield", "await"]);

/** Query-builder methods that start or run a statement. */
const BUILDER_CALL =
  /\.\s*(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto|executeQuery|executeTakeFirst|executeTakeFirstOrThrow)\s*[(<]/g;
/**
 * `.execute(`, except `transaction().execute(` and `connection().execute(` (the caller owns a
 * transaction) and `this.execute(` (a class's own method of that name, such as the job worker's).
 */
const EXECUTE_CALL = /(?<!\b(?:transaction|connection)\(\)\s*|\bthis\s*)\.\s*execute\s*\(/g;
/**
 * The `sql` tag: a tagged template (with or without a type argument) or one of Kysely's helpers on
 * it (so a string variable named `sql`, as in `sql.slice(…)`, is not the tag).
 */
const SQL_TAG =
  /(?<![\w$.])sql\s*(?:<[^`;]*?>)?\s*`|(?<![\w$.])sql\s*\.\s*(?:raw|ref|lit|literal|id|join|table|val|value)\s*\(/g;

function lineAt(source: string, index: number): number {
  let line = 1;
  for (let i = source.indexOf("\n"); i !== -1 && i < index; i = source.indexOf("\n", i + 1)) line++;
  return line;
}

/** Whether an import statement of `kysely` brings in a value (not only types). */
function importsValue(text: string, typeOnly: boolean): boolean {
  if (typeOnly) return false;
  if (text.startsWith("import(") || /^import\s*["']/.test(text)) return true;
  const clause = /^(?:import|export)\s+([\s\S]*?)\s*from\s*["']/.exec(text)?.[1] ?? "";
  const braces = /\{([\s\S]*)\}/.exec(clause);
  const outside = clause
    .replace(/\{[\s\S]*\}/, "")
    .replace(/,/g, "")
    .trim();
  if (outside !== "") return true; // a default or namespace import, or `export *`
  const names = (braces?.[1] ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  return names.some((name) => !/^type\s/.test(name));
}

/** Every place `source` builds SQL, in source order. */
export function findSqlUses(source: string): SqlUse[] {
  const uses: Array<SqlUse & { index: number }> = [];
  for (const statement of parseImports(source)) {
    if (statement.specifier === "kysely" && importsValue(statement.text, statement.typeOnly)) {
      uses.push({ index: -1, line: statement.line, what: `a value import from kysely: ${statement.text}` });
    }
  }
  const code = blankCommentsAndStrings(source);
  for (const [pattern, describe] of [
    [BUILDER_CALL, (m: RegExpMatchArray) => `a query builder: .${m[1]}(`],
    [EXECUTE_CALL, () => "a query run: .execute("],
    [SQL_TAG, () => "the sql tag"],
  ] as const) {
    for (const match of code.matchAll(pattern)) {
      uses.push({ index: match.index, line: lineAt(code, match.index), what: describe(match) });
    }
  }
  return uses.sort((a, b) => a.line - b.line || a.index - b.index).map(({ index: _index, ...use }) => use);
}
