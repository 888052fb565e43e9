import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";

/** One stored slice of an artifact's bytes (`artifact_chunks`), numbered from 0. */
export interface ArtifactChunk {
  artifact_id: string;
  seq: number;
  data: Buffer;
}

/** Inserts chunks in one statement. */
export async function insertArtifactChunks(
  tx: Kysely<Database>,
  chunks: readonly ArtifactChunk[],
): Promise<void> {
  await tx
    .insertInto("artifact_chunks")
    .values([...chunks])
    .execute();
}

/** The artifact's first chunk numbered `seq` or higher, if any (a gap shows as a higher `seq`). */
export function findArtifactChunkFrom(
  db: Kysely<Database>,
  artifactId: string,
  seq: number,
): Promise<{ seq: number; data: Buffer } | undefined> {
  return db
    .selectFrom("artifact_chunks")
    .select(["seq", "data"])
    .where("artifact_id", "=", artifactId)
    .where("seq", ">=", seq)
    .orderBy("seq")
    .limit(1)
    .executeTakeFirst();
}
