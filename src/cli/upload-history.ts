import type { Git } from "./ci-environment.ts";

/** How many of the commit's first-parent ancestors `assay upload` sends (the server reads up to 1000). */
export const ANCESTORS_SENT = 100;

/**
 * The commit's first-parent ancestors, nearest first, as `uploadArtifact`'s `ancestorOids`
 * (docs/ingestion.md "Where a run stands in the history"): at most {@link ANCESTORS_SENT}, as far
 * as the clone holds them (a shallow clone stops at its depth; a root commit has none). Null when
 * git cannot list them (no work tree, a commit the clone does not hold): the server then keeps the
 * upload order.
 */
export function findFirstParentAncestors(git: Git, commit: string): string[] | null {
  const listed = git([
    "rev-list",
    "--first-parent",
    `--max-count=${ANCESTORS_SENT + 1}`,
    `${commit}^{commit}`,
    "--",
  ]);
  if (listed === null) return null;
  const [self, ...ancestors] = listed.split("\n").filter((line) => line !== "");
  return self === undefined ? null : ancestors;
}
