import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { AnalysisRunRow, CheckRow, Database } from "../../src/db/types.ts";
import type { ArtifactRow } from "../../src/db/types-ingestion.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";
import { waitFor } from "./instance.ts";

/**
 * A stored artifact row, for tests of what the API shows about uploads without going through the
 * intake (the upload tests in test/ go through the real endpoints). No bytes are stored.
 */
export function anArtifact(
  db: Kysely<Database>,
  run: AnalysisRunRow,
  check: CheckRow | null,
  fields: Partial<{ analyzer: string; status: ArtifactRow["status"]; result: unknown; format: string }> = {},
): Promise<ArtifactRow> {
  const key = newRowKey();
  return db
    .insertInto("artifacts")
    .values({
      key,
      repository_id: run.repository_id,
      run_id: run.id,
      check_id: check?.id ?? null,
      kind: check === null ? "CHANGES" : "SARIF",
      analyzer: fields.analyzer ?? (check === null ? "changes" : "fixture-lint"),
      reporter: "test",
      compression: "NONE",
      stored_bytes: 2,
      report_bytes: 2,
      format: fields.format ?? (check === null ? "unified diff" : "SARIF 2.1.0"),
      content_sha256: createHash("sha256").update(key).digest(),
      status: fields.status ?? "PROCESSED",
      result: fields.result === undefined ? null : JSON.stringify(fields.result),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Waits until no artifact of repository `repositoryId` is QUEUED any more (processed or failed). */
export async function artifactsProcessed(db: Kysely<Database>, repositoryId: string): Promise<void> {
  await waitFor(
    "artifacts to be processed",
    async () =>
      (
        await db
          .selectFrom("artifacts")
          .select("id")
          .where("repository_id", "=", repositoryId)
          .where("status", "=", "QUEUED")
          .execute()
      ).length === 0,
    20_000,
  );
}
