import { isDependencyFile } from "../formats/sbom/targets.ts";
import type { Git } from "./ci-environment.ts";

/**
 * The lockfiles `assay upload` lists with an SBOM (docs/ingestion-sbom.md "Lockfiles gone from
 * the project"): the dependency manifests and lockfiles git tracks at the uploaded commit, by the
 * names target detection knows, sent as `lockfilePaths`. The server makes a detected target whose
 * lockfile the default branch's newest list leaves out count as scanned and empty. Listing them
 * never stops the upload: what goes wrong is a warning, and no list is sent, which changes
 * nothing on the server.
 */

/** What to send: the list, or nothing (with the warning to print, if any). */
export type LockfilesPlan = { send: string[] } | { skip: string | null };

const NOT_SENT = "lockfile list not sent";

/**
 * The known manifests and lockfiles in the tree of `commit` (`git ls-tree`, so what the commit
 * holds, not the working tree), sorted; only for an SBOM (`analyzer` `sca`) and unless `off`.
 */
export function planLockfiles(
  request: { analyzer: string; commit: string; off: boolean },
  git: Git,
): LockfilesPlan {
  if (request.off || request.analyzer !== "sca") return { skip: null };
  if (git(["rev-parse", "--show-toplevel"]) === null) {
    return { skip: `${NOT_SENT}: this directory is not in a git work tree (--no-lockfiles sends none)` };
  }
  const tree = git(["rev-parse", "--verify", "--quiet", `${request.commit}^{tree}`]);
  if (tree === null) {
    return {
      skip: `${NOT_SENT}: the commit ${request.commit.slice(0, 12)} is not in this clone (fetch it, or give --no-lockfiles)`,
    };
  }
  // -z: paths exactly as stored, whatever core.quotePath says; the whole tree from its root.
  const listed = git(["ls-tree", "-r", "-z", "--name-only", "--full-tree", tree]);
  if (listed === null) {
    return { skip: `${NOT_SENT}: git ls-tree could not list the files of ${request.commit.slice(0, 12)}` };
  }
  const paths = listed.split("\0").filter((path) => path !== "" && isDependencyFile(path));
  return { send: [...new Set(paths)].sort() };
}
