import type { Kysely } from "kysely";
import type { Database } from "../db/types.ts";
import { findUnfailedChangesArtifactsOfRun } from "../modules/artifacts/artifact-store.ts";
import { artifactText } from "./artifact-bytes.ts";
import { mergeRenamedFiles, parseRenamedFiles, type RenamedFiles } from "./changes.ts";
import { collectText } from "./coverage/validate.ts";

/**
 * The files the run's CHANGES artifacts (those that did not fail) say were renamed, by new path
 * with the old one (docs/ingestion.md "Renamed files"); empty when the run has none, as for a
 * client that sends no changes. `maxBytes` caps the text read from each artifact.
 */
export async function renamedFilesOfRun(
  tx: Kysely<Database>,
  runId: string,
  maxBytes: number,
): Promise<RenamedFiles> {
  const artifacts = await findUnfailedChangesArtifactsOfRun(tx, runId);
  const sets: RenamedFiles[] = [];
  for (const artifact of artifacts) {
    sets.push(parseRenamedFiles(await collectText(artifactText(tx, artifact, maxBytes)), artifact.work_dir));
  }
  return mergeRenamedFiles(sets);
}
