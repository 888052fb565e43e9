import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { AnalysisRunRow, Database, RepositoryRow } from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import { insertArtifact, markArtifactProcessed } from "../../modules/artifacts/artifact-store.ts";
import { storeArtifactBytes } from "../artifact-bytes.ts";
import { type CheckRef, type ProcessResult, SCA_ANALYZER } from "../types.ts";
import { validateSbom } from "./sbom-intake.ts";
import { processSbom } from "./sbom-process.ts";

/**
 * An SBOM stored and processed at once, inside the caller's transaction, for a run and `sca`
 * check that already exist: the generated demo's uploads (docs/architecture.md "Demo data").
 * The document is validated as the intake validates it, stored as an artifact like an upload's,
 * processed by {@link processSbom} (given the rows the caller already holds and the text it
 * stored, rather than reading them back), and the artifact marked PROCESSED with what processing
 * found. The run's and check's statuses are the caller's.
 */

/** One SBOM for a run's `sca` check. */
export interface RunSbom {
  repository: RepositoryRow;
  run: AnalysisRunRow;
  check: CheckRef;
  /** The document's JSON (or XML) text. */
  document: string;
  /** The reporter recorded on the artifact. */
  reporter: string;
}

async function* bytesOf(bytes: Buffer): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** Stores and processes `sbom`; throws SbomFormatError when it cannot be read. */
export async function ingestRunSbom(tx: Kysely<Database>, sbom: RunSbom): Promise<ProcessResult> {
  const bytes = Buffer.from(sbom.document, "utf8");
  const { format } = await validateSbom(bytesOf(bytes), null, { root: null, directory: null });
  const artifact = await insertArtifact(tx, {
    key: newRowKey(),
    repository_id: sbom.repository.id,
    run_id: sbom.run.id,
    check_id: sbom.check.id,
    kind: "SBOM",
    analyzer: SCA_ANALYZER,
    analyzer_type: null,
    language_key: null,
    reporter: sbom.reporter,
    reporter_version: null,
    work_dir: null,
    compression: "NONE",
    stored_bytes: bytes.length,
    report_bytes: bytes.length,
    format,
    content_sha256: createHash("sha256").update(bytes).digest(),
    uploaded_by: null,
  });
  await storeArtifactBytes(tx, artifact.id, bytes);
  const result = await processSbom({
    tx,
    artifact,
    repository: sbom.repository,
    run: sbom.run,
    check: sbom.check,
    // Only findings are compared check to check; SCA checks find their base themselves.
    baseCheckId: null,
    text: () => bytesOf(bytes),
  });
  await markArtifactProcessed(tx, artifact.id, JSON.stringify(result));
  return result;
}
