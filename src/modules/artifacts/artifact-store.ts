import { type Insertable, type Kysely, sql } from "kysely";
import type { Database } from "../../db/types.ts";
import type { ArtifactKind, ArtifactRow, ArtifactStatus, ArtifactsTable } from "../../db/types-ingestion.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";

/**
 * Artifacts: the uploads of a run, each with what processing read, stored and skipped
 * (docs/ingestion.md "What an upload stored"). The pipeline in src/ingestion writes them through
 * this store, which also reads them for the API and for settling a check.
 */

/** What processing found, as stored in `artifacts.result` (src/ingestion/types.ts `ProcessResult`). */
export interface ArtifactOutcome {
  read: number;
  stored: number;
  /** Entries skipped, by reason (the pipeline's `SkipReason` names). */
  skipped: Record<string, number>;
  warnings: string[];
  /**
   * The tool's own errors about code it could not analyze (a file it could not parse, a package
   * that does not type-check): what they cover is not in the report (SARIF `counts.unanalyzed`).
   */
  unanalyzed: number;
  /**
   * The repository paths those errors named (files; a directory ends with `/`; ProcessResult
   * `unanalyzedPaths`): empty without such errors, null when they are not all known (an error
   * named no file, or the artifact was processed before the paths were kept).
   */
  unanalyzedPaths: string[] | null;
}

/** An artifact as the API reads it: the row without its content hash, with its run's and check's keys. */
export type ArtifactView = Omit<ArtifactRow, "content_sha256"> & {
  run_key: string;
  check_key: string | null;
};

function count(value: unknown): number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : 0;
}

/**
 * `artifacts.result` as an {@link ArtifactOutcome}, or null when there is none (not processed,
 * or failed). Parsed here, at the boundary, so a malformed value can never reach a resolver.
 */
export function outcomeOf(result: unknown): ArtifactOutcome | null {
  const value = typeof result === "string" ? (JSON.parse(result) as unknown) : result;
  if (typeof value !== "object" || value === null) return null;
  const { read, stored, skipped, warnings, counts, unanalyzedPaths } = value as Record<string, unknown>;
  const skips: Record<string, number> = {};
  if (typeof skipped === "object" && skipped !== null) {
    for (const [reason, n] of Object.entries(skipped)) if (count(n) > 0) skips[reason] = count(n);
  }
  const unanalyzed =
    typeof counts === "object" && counts !== null ? count((counts as Record<string, unknown>).unanalyzed) : 0;
  return {
    read: count(read),
    stored: count(stored),
    skipped: skips,
    warnings: Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === "string") : [],
    unanalyzed,
    unanalyzedPaths: unanalyzed === 0 ? [] : pathsOf(unanalyzedPaths),
  };
}

/** A stored list of unanalyzed paths, or null when it is absent or not a non-empty list of paths. */
function pathsOf(value: unknown): string[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  return value.every((p): p is string => typeof p === "string" && p !== "") ? value : null;
}

// Every column the API shows, with the keys its run and check are resolved by. The keys are
// looked up per row (primary-key probes), so a page reads only its own rows.
const VIEW = sql`(
  SELECT a.id, a.key, a.repository_id, a.run_id, a.check_id, a.kind, a.analyzer, a.analyzer_type,
    a.language_key, a.reporter, a.reporter_version, a.work_dir, a.repository_root, a.renames_base_oid, a.go_modules, a.compression, a.stored_bytes,
    a.report_bytes, a.format, a.status, a.error, a.result, a.uploaded_by, a.created_at, a.processed_at,
    (SELECT r.key FROM analysis_runs AS r WHERE r.id = a.run_id) AS run_key,
    (SELECT c.key FROM checks AS c WHERE c.id = a.check_id) AS check_key
  FROM artifacts AS a
)`;

/** Artifacts with these keys in repositories `viewerId` can see. */
export async function findVisibleArtifactsByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<ArtifactView[]> {
  const result = await sql<ArtifactView>`
    SELECT s.* FROM ${VIEW} AS s
    JOIN repositories AS repo ON repo.id = s.repository_id
    JOIN memberships AS m ON m.account_id = repo.account_id
    WHERE m.user_id = ${viewerId} AND s.key = ANY(${keys}::text[])`.execute(db);
  return result.rows;
}

// Upload order: when the upload was accepted, then the key so the order is total.
const UPLOAD_ORDER: ConnectionSource["order"] = [
  { column: "created_at", kind: "timestamptz" },
  { column: "key", kind: "text" },
];

/** A run's artifacts (its CHANGES too), in upload order. Parent: the run id. */
export const artifactsOfRun: ConnectionSource = {
  name: "artifactsOfRun",
  from: VIEW,
  parentColumn: "run_id",
  order: UPLOAD_ORDER,
  direction: "asc",
};

/** A check's artifacts, in upload order. Parent: the check id. */
export const artifactsOfCheck: ConnectionSource = {
  name: "artifactsOfCheck",
  from: VIEW,
  parentColumn: "check_id",
  order: UPLOAD_ORDER,
  direction: "asc",
};

/** The kind, status and outcome of each artifact of a check, for settling the check. */
export async function findArtifactOutcomesOfCheck(
  db: Kysely<Database>,
  checkId: string,
): Promise<
  Array<{ id: string; kind: ArtifactKind; status: ArtifactStatus; outcome: ArtifactOutcome | null }>
> {
  const rows = await db
    .selectFrom("artifacts")
    .select(["id", "kind", "status", "result"])
    .where("check_id", "=", checkId)
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    id: String(row.id),
    kind: row.kind,
    status: row.status,
    outcome: outcomeOf(row.result),
  }));
}

/** The ids of a check's PROCESSED artifacts, in order: what its published rows came from. */
export async function findProcessedArtifactIdsOfCheck(
  db: Kysely<Database>,
  checkId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom("artifacts")
    .select("id")
    .where("check_id", "=", checkId)
    .where("status", "=", "PROCESSED")
    .orderBy("id")
    .execute();
  return rows.map((row) => String(row.id));
}

/** The keys of these artifacts, by id (an id with no artifact is left out). */
export async function findArtifactKeysByIds(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom("artifacts").select(["id", "key"]).where("id", "in", ids).execute();
  return new Map(rows.map((row) => [String(row.id), row.key]));
}

export type NewArtifact = Insertable<ArtifactsTable>;

/** The artifact of a run with this analyzer, language key and content hash, if one was uploaded. */
export function findDuplicateArtifact(
  tx: Kysely<Database>,
  match: {
    runId: string;
    analyzer: string;
    languageKey: string | null;
    sha256: Buffer;
    /** A CHANGES artifact's renames base: the same diff against another commit is another artifact. */
    renamesBaseOid?: string | null;
    /**
     * A report placed in a subdirectory of the checkout (`repositoryRoot` given) repeats only one
     * placed in the same directory: the same bytes made in `web/` and in `api/` are two reports.
     */
    placed?: { workDir: string | null; repositoryRoot: string };
  },
): Promise<{ key: string } | undefined> {
  let query = tx
    .selectFrom("artifacts")
    .select("key")
    .where("run_id", "=", match.runId)
    .where("analyzer", "=", match.analyzer)
    .where((eb) => eb.fn.coalesce("language_key", eb.val("")), "=", match.languageKey ?? "")
    .where("content_sha256", "=", match.sha256)
    .where((eb) => eb.fn.coalesce("renames_base_oid", eb.val("")), "=", match.renamesBaseOid ?? "");
  if (match.placed) {
    const { workDir, repositoryRoot } = match.placed;
    query = query
      .where("repository_root", "=", repositoryRoot)
      .where((eb) => eb.fn.coalesce("work_dir", eb.val("")), "=", workDir ?? "");
  } else {
    query = query.where("repository_root", "is", null);
  }
  return query.executeTakeFirst();
}

/** Inserts an artifact; answers the row as stored. */
export function insertArtifact(tx: Kysely<Database>, artifact: NewArtifact): Promise<ArtifactRow> {
  return tx.insertInto("artifacts").values(artifact).returningAll().executeTakeFirstOrThrow();
}

/** The artifact, without locking anything; undefined when it is gone. */
export function findArtifactById(db: Kysely<Database>, artifactId: string): Promise<ArtifactRow | undefined> {
  return db.selectFrom("artifacts").selectAll().where("id", "=", artifactId).executeTakeFirst();
}

/** The run an artifact belongs to, without locking anything; undefined when the artifact is gone. */
export async function findArtifactRunId(
  tx: Kysely<Database>,
  artifactId: string,
): Promise<string | undefined> {
  const found = await tx
    .selectFrom("artifacts")
    .select("run_id")
    .where("id", "=", artifactId)
    .executeTakeFirst();
  return found?.run_id;
}

/** The artifact, locked FOR UPDATE until the transaction ends; undefined when it is gone. */
export function lockArtifactRow(tx: Kysely<Database>, artifactId: string): Promise<ArtifactRow | undefined> {
  return tx.selectFrom("artifacts").selectAll().where("id", "=", artifactId).forUpdate().executeTakeFirst();
}

/** The check of a run's (first found) COVERAGE artifact, if the run has one. */
export async function findCoverageArtifactCheckIdOfRun(
  tx: Kysely<Database>,
  runId: string,
): Promise<{ check_id: string | null } | undefined> {
  return tx
    .selectFrom("artifacts")
    .select("check_id")
    .where("run_id", "=", runId)
    .where("kind", "=", "COVERAGE")
    .executeTakeFirst();
}

/** The run's CHANGES artifacts that did not fail, oldest first. */
export function findUnfailedChangesArtifactsOfRun(
  tx: Kysely<Database>,
  runId: string,
): Promise<Array<Pick<ArtifactRow, "id" | "compression" | "work_dir" | "renames_base_oid">>> {
  return tx
    .selectFrom("artifacts")
    .select(["id", "compression", "work_dir", "renames_base_oid"])
    .where("run_id", "=", runId)
    .where("kind", "=", "CHANGES")
    .where("status", "!=", "FAILED")
    .orderBy("id")
    .execute();
}

/** Marks the artifact PROCESSED with its result (JSON text); answers the row as it now stands. */
export function markArtifactProcessed(
  tx: Kysely<Database>,
  artifactId: string,
  result: string,
): Promise<ArtifactRow> {
  return tx
    .updateTable("artifacts")
    .set({ status: "PROCESSED", error: null, result, processed_at: sql<Date>`now()` })
    .where("id", "=", artifactId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Marks the artifact PROCESSED, which shows the occurrences it staged to every read (their
 * condition is src/modules/checks/occurrence-store.ts `isPublished`); its result is written
 * later in the same transaction. Answers whether it was QUEUED until now, that is whether its
 * rows are shown for the first time (an artifact processed again was shown as it was staged).
 */
export async function publishArtifact(tx: Kysely<Database>, artifactId: string): Promise<boolean> {
  const { rows } = await sql<{ status: ArtifactStatus }>`
    UPDATE artifacts AS a SET status = 'PROCESSED', error = NULL, processed_at = now()
    FROM (SELECT id, status FROM artifacts WHERE id = ${artifactId} FOR UPDATE) AS earlier
    WHERE a.id = earlier.id
    RETURNING earlier.status`.execute(tx);
  return rows[0]?.status === "QUEUED";
}

/** Marks the artifact FAILED with `problem`; answers the row as it now stands. */
export function markArtifactFailed(
  tx: Kysely<Database>,
  artifactId: string,
  problem: string,
): Promise<ArtifactRow> {
  return tx
    .updateTable("artifacts")
    .set({ status: "FAILED", error: problem, processed_at: sql<Date>`now()` })
    .where("id", "=", artifactId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
