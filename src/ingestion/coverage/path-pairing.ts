import { alternativesOf } from "../../formats/coverage/index.ts";

/**
 * Which changed file (a path of the run's diff) each stored coverage path stands for, for
 * new-code coverage (docs/ingestion-coverage.md "Which changed file a report's file is"). Most
 * reports name files by their repository path, which a diff path matches exactly. Two do not:
 * JaCoCo names a file by its package path (`com/acme/Cart.java`) without the source root it lies
 * under (`src/main/java`, or a module's), which the report does not name; and a Cobertura report
 * with several `<source>` directories names a file relative to one of them without saying which,
 * stored as `{invoices,tests}/totals.py`. Such a path stands for the one changed file it can be,
 * when exactly one is. Pure: no database.
 */

/** How a stored path names its file. */
export type StoredPathKind =
  /** The repository path itself. */
  | "exact"
  /** The path below a source root the report does not name (JaCoCo's package path). */
  | "below-source-root"
  /** One of the places an alternatives path (`{invoices,tests}/totals.py`) lists. */
  | "one-of";

/** A stored path that several changed files could be, so none is chosen. */
export interface AmbiguousPath {
  path: string;
  /** The changed paths it could stand for, sorted. */
  candidates: string[];
}

/** The outcome of {@link pairStoredPaths}. */
export interface PathPairing {
  /** The changed path a stored path stands for, or undefined when none (or no single one) is. */
  changedPathOf(storedPath: string): string | undefined;
  /** The paths below a source root that more than one changed path ends in, by path. */
  ambiguous: AmbiguousPath[];
}

/**
 * Pairs stored paths with changed paths. An `exact` path pairs with itself when it changed. A
 * path `below-source-root` pairs with the changed path that is it or ends in `/` + it, when
 * exactly one does (a bare suffix would also take `pkg/util.py`'s changes for a root `util.py`,
 * which is why only a whole path segment counts); a changed path that several stored paths end
 * in belongs to the longest of them (`com/acme/Cart.java` rather than a default package's
 * `Cart.java`). A `one-of` path pairs with the one of its places that changed. A path that
 * several changed paths could be pairs with none and is listed as ambiguous.
 */
export function pairStoredPaths(
  stored: Iterable<{ path: string; kind: StoredPathKind }>,
  changedPaths: Iterable<string>,
): PathPairing {
  const changed = new Set(changedPaths);
  const belowRoot = new Set<string>();
  const oneOf = new Set<string>();
  for (const { path, kind } of stored) {
    if (kind === "below-source-root") belowRoot.add(path);
    if (kind === "one-of") oneOf.add(path);
  }
  const candidates = new Map([
    ...candidatesBelowRoot(belowRoot, changed),
    ...candidatesOneOf(oneOf, changed),
  ]);
  const paired = new Map<string, string>();
  const ambiguous: AmbiguousPath[] = [];
  for (const [path, found] of [...candidates].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (found.length === 1) paired.set(path, found[0]!);
    else if (found.length > 1) ambiguous.push({ path, candidates: [...found].sort() });
  }
  return {
    changedPathOf(storedPath) {
      if (candidates.has(storedPath)) return paired.get(storedPath);
      return changed.has(storedPath) ? storedPath : undefined;
    },
    ambiguous,
  };
}

/** Each package path's changed paths: those that are it or end in `/` + it, and that no longer package path claims. */
function candidatesBelowRoot(
  paths: ReadonlySet<string>,
  changed: ReadonlySet<string>,
): Map<string, string[]> {
  // Each changed path's tails (`src/main/java/A.java`, `main/java/A.java`, … `A.java`), so a
  // stored path finds the changed paths that end in it without comparing every pair.
  const endingIn = new Map<string, string[]>();
  for (const path of changed) {
    for (const tail of tailsOf(path)) endingIn.set(tail, [...(endingIn.get(tail) ?? []), path]);
  }
  const claimant = new Map<string, string>();
  for (const path of paths) {
    for (const candidate of endingIn.get(path) ?? []) {
      const seen = claimant.get(candidate);
      if (seen === undefined || seen.length < path.length) claimant.set(candidate, path);
    }
  }
  return new Map(
    [...paths].map((path) => [path, (endingIn.get(path) ?? []).filter((c) => claimant.get(c) === path)]),
  );
}

/** Each alternatives path's places that changed. */
function candidatesOneOf(paths: ReadonlySet<string>, changed: ReadonlySet<string>): Map<string, string[]> {
  return new Map(
    [...paths].map((path) => [path, (alternativesOf(path) ?? []).filter((place) => changed.has(place))]),
  );
}

/** A path and each of its endings after a `/`: `a/b/c` → `a/b/c`, `b/c`, `c`. */
function tailsOf(path: string): string[] {
  const tails = [path];
  for (let at = path.indexOf("/"); at !== -1; at = path.indexOf("/", at + 1)) {
    tails.push(path.slice(at + 1));
  }
  return tails;
}
