import { type Kysely, sql } from "kysely";
import { arrayParameter } from "../../db/array-parameter.ts";
import type { Database } from "../../db/types.ts";

/**
 * The repository files an artifact's report says its tool analyzed (`artifact_analyzed_paths`,
 * migration 0041): those it gave a finding in and those its runs list, less those a
 * notification of the tool names. What says which files a tool analyzed, in a check of several
 * shards (docs/ingestion.md "Status").
 */

/**
 * Adds files `artifactId`'s tool analyzed; a file already there is kept once. The paths go as one
 * array parameter: a row of two parameters each had PostgreSQL parse and bind 10,000 of them for
 * a batch of 5,000 files.
 */
export async function insertArtifactAnalyzedPaths(
  tx: Kysely<Database>,
  artifactId: string,
  paths: readonly string[],
): Promise<void> {
  if (paths.length === 0) return;
  await sql`
    INSERT INTO artifact_analyzed_paths (artifact_id, path)
    SELECT ${artifactId}::bigint, p.path FROM unnest(${arrayParameter(paths)}::text[]) AS p(path)
    ON CONFLICT DO NOTHING
  `.execute(tx);
}

/** Deletes `artifactId`'s analyzed files: all of them, or those among `paths`. */
export async function deleteArtifactAnalyzedPaths(
  tx: Kysely<Database>,
  artifactId: string,
  paths?: readonly string[],
): Promise<void> {
  if (paths?.length === 0) return;
  let query = tx.deleteFrom("artifact_analyzed_paths").where("artifact_id", "=", artifactId);
  if (paths !== undefined) query = query.where("path", "in", paths);
  await query.execute();
}

/**
 * The files among `places` that one of `artifactIds` analyzed: a file of `places` itself, or a
 * file directly in one of its directories (written with a trailing `/`, `./` for the root), each
 * with the artifact that analyzed it.
 */
export async function findArtifactAnalyzedPathsIn(
  db: Kysely<Database>,
  artifactIds: readonly string[],
  places: readonly string[],
): Promise<Array<{ artifactId: string; path: string }>> {
  if (artifactIds.length === 0 || places.length === 0) return [];
  const files = places.filter((p) => !p.endsWith("/"));
  const directories = places.filter((p) => p.endsWith("/"));
  const { rows } = await sql<{ artifact_id: string; path: string }>`
    SELECT p.artifact_id, p.path FROM artifact_analyzed_paths AS p
    WHERE p.artifact_id = ANY(${[...artifactIds]}::bigint[])
      AND (p.path = ANY(${files}::text[])
        OR (CASE WHEN strpos(p.path, '/') = 0 THEN './' ELSE regexp_replace(p.path, '[^/]*$', '') END)
          = ANY(${directories}::text[]))
  `.execute(db);
  return rows.map((row) => ({ artifactId: String(row.artifact_id), path: row.path }));
}
