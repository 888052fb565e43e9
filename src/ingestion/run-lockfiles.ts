import { isDeepStrictEqual } from "node:util";
import type { Kysely } from "kysely";
import type { AnalysisRunRow, Database } from "../db/types.ts";
import { setRunLockfilePaths } from "../modules/runs/run-config-store.ts";
import { UploadError } from "./errors.ts";

/**
 * The lockfiles an upload lists (`lockfilePaths`; docs/ingestion-sbom.md "Lockfiles gone from the
 * project"): the dependency manifests and lockfiles git tracks at the run's commit, kept on the
 * run. The current-scan read makes a detected target whose lockfile the default branch's newest
 * list leaves out count as scanned and empty.
 */

/** At most this many paths in one list: far more lockfiles than any repository has. */
export const MAX_LOCKFILE_PATHS = 10_000;

/** At most this many characters in one path. */
const MAX_PATH_LENGTH = 1024;

/**
 * The paths of `lockfilePaths` as kept: `./` prefixes dropped, duplicates removed, sorted; null
 * when the upload sends none (an empty list is a list: the commit tracks no lockfile). Throws
 * INVALID_INPUT naming the field for a path that is not repository-relative.
 */
export function readLockfilePaths(paths: readonly string[] | null | undefined): string[] | null {
  if (paths === null || paths === undefined) return null;
  if (paths.length > MAX_LOCKFILE_PATHS) {
    throw invalid(`lockfilePaths lists ${paths.length} paths; at most ${MAX_LOCKFILE_PATHS} are taken`);
  }
  const kept = new Set<string>();
  for (const raw of paths) {
    const path = raw.replace(/^(\.\/)+/, "");
    const problem = pathProblem(path);
    if (problem !== null) {
      throw invalid(`lockfilePaths holds ${JSON.stringify(raw.slice(0, 200))}, which ${problem}`);
    }
    kept.add(path);
  }
  return [...kept].sort();
}

/** Why `path` is not a repository-relative file path git would list, or null. */
function pathProblem(path: string): string | null {
  if (path === "") return "is empty: each entry is a file's path relative to the repository root";
  if (path.length > MAX_PATH_LENGTH) return `is longer than ${MAX_PATH_LENGTH} characters`;
  if (path.startsWith("/"))
    return "is absolute: send paths relative to the repository root, as git ls-files lists them";
  if (path.includes("\\")) return 'has a "\\": separate directories with "/", as git ls-files does';
  if (path.split("/").some((segment) => segment === "" || segment === "." || segment === "..")) {
    return 'has an empty, "." or ".." segment: send paths as git ls-files lists them';
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(path)) return "holds a control character";
  return null;
}

function invalid(message: string): UploadError {
  return new UploadError("INVALID_INPUT", message);
}

/**
 * Keeps `paths` on the run the upload joined. A run that has another list refuses the upload: a
 * commit has one tree, so a different list means a wrong commit or a list made elsewhere, and
 * keeping either silently would hide it.
 */
export async function adoptLockfilePaths(
  tx: Kysely<Database>,
  run: AnalysisRunRow,
  paths: readonly string[],
): Promise<void> {
  if (run.lockfile_paths === null) {
    await setRunLockfilePaths(tx, run.id, paths);
    return;
  }
  if (!isDeepStrictEqual([...run.lockfile_paths], [...paths])) {
    throw invalid(
      `lockfilePaths differs from the list the run of commit ${run.commit_oid.slice(0, 12)} was uploaded with; a commit has one tree: send the list of that commit (git ls-files at it), or none`,
    );
  }
}
