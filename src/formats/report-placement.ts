import path from "node:path";

/**
 * Where an upload's report sits in the repository: the checkout's root as the machine that made
 * the report wrote it, and the repository-relative directory the report was made in.
 *
 * An upload names the directory its report was made in (`workDir`) and, when that is a
 * subdirectory of the checkout, the checkout's root (`repositoryRoot`; `assay upload --work-dir`
 * sends the git top level). Every reader then makes absolute paths relative to the root and reads
 * relative paths from the directory: `src/a.js` of a report made in `/ci/repo/web` is
 * `web/src/a.js`. Without a root, `workDir` is the root, as DeepSource's CLI sends it.
 */
export interface ReportPlacement {
  /** The checkout's root (absolute, as the report's machine wrote it); null when the upload gave none. */
  root: string | null;
  /** The repository-relative directory relative paths start from (`web`); null for the root. */
  directory: string | null;
}

const WINDOWS_DRIVE = /^[A-Za-z]:\//;

/** `\` as `/`, `.` and `..` resolved, no trailing `/`; a drive letter lower-cased for comparing. */
function comparable(directory: string): string {
  const slashed = directory.trim().replace(/\\/g, "/");
  const normalised = path.posix.normalize(slashed).replace(/(.)\/+$/, "$1");
  return WINDOWS_DRIVE.test(normalised) ? normalised[0]!.toLowerCase() + normalised.slice(1) : normalised;
}

function isAbsolute(directory: string): boolean {
  return directory.startsWith("/") || WINDOWS_DRIVE.test(directory);
}

/**
 * The placement of an upload's report, or a sentence saying why `workDir` and `repositoryRoot`
 * cannot both hold: the root is not absolute, or `workDir` is not inside it.
 */
export function reportPlacement(
  workDir: string | null,
  repositoryRoot: string | null,
): ReportPlacement | string {
  if (repositoryRoot === null) return { root: workDir, directory: null };
  const root = comparable(repositoryRoot);
  if (!isAbsolute(root)) {
    return `repositoryRoot must be an absolute directory (the checkout's root where the report was made), got "${repositoryRoot}"`;
  }
  if (workDir === null) return { root: repositoryRoot, directory: null };
  const inside = comparable(workDir);
  if (inside === root) return { root: repositoryRoot, directory: null };
  const prefix = root === "/" ? "/" : `${root}/`;
  if (!inside.startsWith(prefix)) {
    return `workDir "${workDir}" is not inside repositoryRoot "${repositoryRoot}": the report's directory must lie in the checkout`;
  }
  return { root: repositoryRoot, directory: inside.slice(prefix.length) };
}

/**
 * The upload field a placement's root came from, for sentences about paths outside it:
 * `repositoryRoot` when the report was made in a subdirectory, else `workDir`.
 */
export function rootField(placement: ReportPlacement): "workDir" | "repositoryRoot" {
  return placement.directory === null ? "workDir" : "repositoryRoot";
}

/**
 * {@link reportPlacement} of what an artifact was stored with, which the intake checked: a pair it
 * would refuse is read as `workDir` alone.
 */
export function storedPlacement(workDir: string | null, repositoryRoot: string | null): ReportPlacement {
  const placement = reportPlacement(workDir, repositoryRoot);
  return typeof placement === "string" ? { root: workDir, directory: null } : placement;
}
