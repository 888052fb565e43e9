import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/types.ts";

/**
 * The repository files in which an artifact's report gave a finding (`artifact_finding_paths`,
 * migration 0041): what says which files a tool analyzed, unless it said it could not
 * (docs/ingestion.md "Status").
 */

/** Rows written per statement. */
const INSERT_BATCH = 1000;

/** Sets the files in which `artifactId`'s report gave a finding, replacing those of an earlier attempt. */
export async function replaceArtifactFindingPaths(
  tx: Kysely<Database>,
  artifactId: string,
  paths: Iterable<string>,
): Promise<void> {
  await tx.deleteFrom("artifact_finding_paths").where("artifact_id", "=", artifactId).execute();
  let batch: Array<{ artifact_id: string; path: string }> = [];
  const flush = async () => {
    if (batch.length > 0) await tx.insertInto("artifact_finding_paths").values(batch).execute();
    batch = [];
  };
  for (const path of paths) {
    batch.push({ artifact_id: artifactId, path });
    if (batch.length >= INSERT_BATCH) await flush();
  }
  await flush();
}

/**
 * The files among `places` in which one of `artifactIds` gave a finding: a file of `places`
 * itself, or a file directly in one of its directories (written with a trailing `/`, `./` for the
 * root), each with the artifact that gave it.
 */
export async function findArtifactFindingPathsIn(
  db: Kysely<Database>,
  artifactIds: readonly string[],
  places: readonly string[],
): Promise<Array<{ artifactId: string; path: string }>> {
  if (artifactIds.length === 0 || places.length === 0) return [];
  const files = places.filter((p) => !p.endsWith("/"));
  const directories = places.filter((p) => p.endsWith("/"));
  const { rows } = await sql<{ artifact_id: string; path: string }>`
    SELECT p.artifact_id, p.path FROM artifact_finding_paths AS p
    WHERE p.artifact_id = ANY(${[...artifactIds]}::bigint[])
      AND (p.path = ANY(${files}::text[])
        OR (CASE WHEN strpos(p.path, '/') = 0 THEN './' ELSE regexp_replace(p.path, '[^/]*$', '') END)
          = ANY(${directories}::text[]))
  `.execute(db);
  return rows.map((row) => ({ artifactId: String(row.artifact_id), path: row.path }));
}
