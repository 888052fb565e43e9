import type { Kysely } from "kysely";
import type { AnalysisRunRow, Database } from "../db/types.ts";
import { findUnfailedChangesArtifactsOfRun } from "../modules/artifacts/artifact-store.ts";
import { adoptDeferredFormerFingerprints } from "../modules/checks/occurrence-write-store.ts";
import { artifactText } from "./artifact-bytes.ts";
import { mergeRenamedFiles, parseRenamedFiles, type RenamedFiles } from "./changes.ts";
import { collectText } from "./coverage/validate.ts";
import type { RunRenames } from "./types.ts";

/**
 * The files the run's CHANGES artifacts (those that did not fail) say were renamed, by new path
 * with the old one (docs/ingestion.md "Renamed files"); empty when the run has none, as for a
 * client that sends no changes. An artifact sent for its renames alone counts only when the commit
 * its diff was made against is the run's base commit: a rename from another commit may name a
 * path the base never had, or another file that had it; on the default branch, whose runs the
 * renames are sent for, the warning then says so for the report's artifact (a branch pushed
 * without a pull request is compared with the default branch, never with the parent its build
 * sends renames against: nothing is said there). Those renames are answered apart (`deferred`): the
 * former fingerprints they give wait until a rebase compares the run with their commit
 * ({@link adoptDeferredRenames}). `maxBytes` caps the text read from each artifact.
 */
export async function renamedFilesOfRun(
  tx: Kysely<Database>,
  run: Pick<AnalysisRunRow, "id" | "base_oid" | "branch_name">,
  defaultBranch: string | null,
  maxBytes: number,
): Promise<RunRenames> {
  const artifacts = await findUnfailedChangesArtifactsOfRun(tx, run.id);
  const sets: RenamedFiles[] = [];
  const deferredSets: RenamedFiles[] = [];
  let setAside: { baseOid: string; files: number } | null = null;
  for (const artifact of artifacts) {
    const renames = parseRenamedFiles(
      await collectText(artifactText(tx, artifact, maxBytes)),
      artifact.work_dir,
    );
    const base = artifact.renames_base_oid;
    if (base === null || base === run.base_oid) sets.push(renames);
    else {
      deferredSets.push(renames);
      setAside ??= { baseOid: base, files: renames.size };
    }
  }
  return {
    files: mergeRenamedFiles(sets),
    deferred: mergeRenamedFiles(deferredSets),
    warning:
      setAside === null || run.base_oid === null || run.branch_name !== defaultBranch
        ? null
        : notFollowedWarning(setAside, run.base_oid),
  };
}

/** The warning for renames set aside: what they are against, and what the run is compared with. */
function notFollowedWarning(setAside: { baseOid: string; files: number }, runBase: string): string {
  const files = setAside.files === 1 ? "1 file" : `${setAside.files} files`;
  return `The run's changes rename ${files} against ${setAside.baseOid.slice(0, 12)}, but the run is compared with ${runBase.slice(0, 12)}: findings in renamed files are matched at their new paths only (resolved at the old path, introduced at the new one), until the run is compared with ${setAside.baseOid.slice(0, 12)} once its run is analysed.`;
}

/**
 * When run `run` is now compared with the commit one of its CHANGES artifacts renames files against
 * (`renames_base_oid`), makes the former fingerprints deferred for those renames at processing its
 * findings' former fingerprints: a rebase, or a publication after one, then matches the renamed
 * files' findings with the base's at their old paths. Answers whether any finding changed; the
 * caller sets the checks' states again.
 */
export async function adoptDeferredRenames(
  tx: Kysely<Database>,
  run: Pick<AnalysisRunRow, "id" | "base_oid">,
): Promise<boolean> {
  if (run.base_oid === null) return false;
  const artifacts = await findUnfailedChangesArtifactsOfRun(tx, run.id);
  if (!artifacts.some((artifact) => artifact.renames_base_oid === run.base_oid)) return false;
  return (await adoptDeferredFormerFingerprints(tx, run.id)) > 0;
}
