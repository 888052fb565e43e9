/**
 * Where a file builds SQL: the question scripts/boundaries.ts asks of the pipelines, which keep
 * their statements in their domains' stores. Pure and textual, like scripts/import-graph.ts: a
 * file's comments and string contents are blanked first (so prose and messages that mention a
 * query builder do not count), then three things are looked for:
 *
 * - a value import from `kysely` (`sql`, `expressionBuilder`, `CompiledQuery`…; `import type` and
 *   `type` names are fine: a pipeline passes `Kysely<Database>` around without building SQL);
 * - a query builder's start or end: `.selectFrom(`, `.insertInto(`, `.updateTable(`,
 *   `.deleteFrom(`, `.replaceInto(`, `.mergeInto(`, `.selectNoFrom(`, `.executeQuery(`,
 *   `.executeTakeFirst(`, `.executeTakeFirstOrThrow(`, and `.execute(` unless it runs a
 *   transaction or a connection (`db.transaction().execute(…)` is how a pipeline owns one);
 * - the `sql` tag in use (`` sql`…` ``, `` sql<T>`…` ``, `sql.raw(…)`…), however it was imported.
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
  const out = source.split("");
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  /** Brace depth of each open `${`, so the `}` that closes it resumes its template. */
  const templates: number[] = [];
  let depth = 0;
  let lastSignificant = "";
  let lastWord = "";
  let i = 0;
  const scanTemplateText = (start: number): number => {
    // From just after "`" or "}": to the closing "`" (returns after it) or to "${" (returns after it).
    let j = start;
    while (j < source.length) {
      const c = source[j];
      if (c === "\\") {
        j += 2;
        continue;
      }
      if (c === "`") {
        blank(start, j);
        return j + 1;
      }
      if (c === "$" && source[j + 1] === "{") {
        blank(start, j);
        templates.push(depth);
        depth++;
        return j + 2;
      }
      j++;
    }
    blank(start, j);
    return j;
  };
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      const stop = end === -1 ? source.length : end;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? source.length : end + 2;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== c && source[j] !== "\n") j += source[j] === "\\" ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
      lastSignificant = c;
      continue;
    }
    if (c === "`") {
      i = scanTemplateText(i + 1);
      lastSignificant = "`";
      continue;
    }
    if (
      c === "/" &&
      (lastSignificant === "" ||
        "(,=:[!&|?{};+-*%<>~^".includes(lastSignificant) ||
        REGEX_KEYWORDS.has(lastWord))
    ) {
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
      continue;
    }
    if (c === "{") depth++;
    if (c === "}") {
      depth--;
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        i = scanTemplateText(i + 1);
        lastSignificant = "`";
        continue;
      }
    }
    if (/\w/.test(c)) {
      let j = i;
      while (j < source.length && /[\w$]/.test(source[j]!)) j++;
      lastWord = source.slice(i, j);
      lastSignificant = "a";
      i = j;
      continue;
    }
    if (!/\s/.test(c)) {
      lastSignificant = c;
      lastWord = "";
    }
    i++;
  }
  return out.join("");
}

const REGEX_KEYWORDS = new Set(["return", "typeof", "case", "do", "else", "in", "of", "yield", "await"]);

/** Query-builder methods that start or run a statement. */
const BUILDER_CALL =
  /\.\s*(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto|executeQuery|executeTakeFirst|executeTakeFirstOrThrow)\s*[(<]/g;
/** `.execute(`, except `transaction().execute(` and `connection().execute(` (the caller owns a transaction). */
const EXECUTE_CALL = /(?<!\b(?:transaction|connection)\(\)\s*)\.\s*execute\s*\(/g;
/** The `sql` tag: a tagged template (with or without a type argument) or one of its helpers. */
const SQL_TAG = /(?<![\w$.])sql\s*(?:<[^`;]*?>)?\s*`|(?<![\w$.])sql\s*\.\s*\w+\s*\(/g;

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
