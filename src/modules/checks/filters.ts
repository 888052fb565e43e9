/**
 * The arguments of the check, occurrence and repository-issue connection filters, normalised:
 * pure and unit-tested. The SQL conditions built from their output are in
 * connection-filter-store.ts.
 */

/**
 * The shortcodes of an `analyzerIn` argument: nulls dropped, duplicates removed, sorted (so the
 * same set makes the same filter key). Null, an empty list and a list of nulls mean "no filter",
 * as the contract's server treats an empty `__in` lookup.
 */
export function normaliseNames(names: ReadonlyArray<string | null | undefined> | null | undefined): string[] {
  return [...new Set((names ?? []).filter((name): name is string => typeof name === "string"))].sort();
}

/**
 * The `path` argument of `Repository.issues` as a repository-relative path: a leading `./` or
 * `/` and trailing slashes removed. Empty means "no filter".
 */
export function normalisePath(path: string | null | undefined): string {
  return (path ?? "").replace(/^(?:\.\/|\/)+/, "").replace(/\/+$/, "");
}

/** `%text%` for ILIKE, with `\`, `%` and `_` in `text` matched literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
