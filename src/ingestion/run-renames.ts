import type { Kysely } from "kysely";
import type { AnalysisRunRow, Database } from "../db/types.ts";
import { findUnfailedChangesArtifactsOfRun } from "../modules/artifacts/artifact-store.ts";
import { artifactText } from "./artifact-bytes.ts";
import { mergeRenamedFiles, parseRenamedFiles, type RenamedFiles } from "./changes.ts";
import { collectText } from "./coverage/validate.ts";

/**
 * The files the run's CHANGES artifacts (those that did not fail) say were renamed, by new path
 * with the old one (docs/ingestion.md "Renamed files"); empty when the run has none, as for a
 * client that sends no changes. An artifact sent for its renames alone counts only when the commit
 * its diff was made against is the run's base commit: a rename from another commit may name a
 * path the base never had, or another file that had it. `maxBytes` caps the text read from each
 * artifact.
 */
export async function renamedFilesOfRun(
  tx: Kysely<Database>,
  run: Pick<AnalysisRunRow, "id" | "base_oid">,
  maxBytes: number,
): Promise<RenamedFiles> {
  const artifacts = await findUnfailedChangesArtifactsOfRun(tx, run.id);
  const sets: RenamedFiles[] = [];
  for (const artifact of artifacts) {
    if (artifact.renames_base_oid !== null && artifact.renames_base_oid !== run.base_oid) continue;
    sets.push(parseRenamedFiles(await collectText(artifactText(tx, artifact, maxBytes)), artifact.work_dir));
  }
  return mergeRenamedFiles(sets);
}
