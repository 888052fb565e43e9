import type { ColumnType, Generated, Selectable } from "kysely";
import type { CreatedAt, ForeignKey, Id, MetricKey, NullableTimestamp } from "./types.ts";

/** Tables of migration 0008, with the artifact columns of 0010 (docs/ingestion.md). */

type WithDefault<T> = ColumnType<T, T | undefined, T>;

/** What an artifact holds: findings, coverage, the run's changed lines, or an SBOM (migration 0015). */
export type ArtifactKind = "SARIF" | "COVERAGE" | "CHANGES" | "SBOM";
/** How an artifact's stored bytes are compressed. */
export type ArtifactCompression = "NONE" | "ZSTD" | "GZIP";
export type ArtifactStatus = "QUEUED" | "PROCESSED" | "FAILED";

export interface ArtifactsTable {
  id: Generated<Id>;
  key: string;
  repository_id: ForeignKey;
  run_id: ForeignKey;
  check_id: ColumnType<string | null, string | number | null, string | number | null>;
  kind: ArtifactKind;
  /** The analyzer shortcode as uploaded (`test-coverage`, `eslint`, `changes`...). */
  analyzer: string;
  analyzer_type: string | null;
  /** Coverage: the language key as uploaded (`javascript`, `go`...). */
  language_key: string | null;
  reporter: string;
  reporter_version: string | null;
  work_dir: string | null;
  compression: ArtifactCompression;
  /** Bytes stored (after base64 decoding, before decompression). */
  stored_bytes: ColumnType<string, number | string, number | string>;
  /** The report's bytes after decompression (migration 0010); null for compressed artifacts stored before. */
  report_bytes: ColumnType<string | null, number | string | null | undefined, number | string | null>;
  /** The format the intake recognised ("SARIF 2.1.0", "LCOV"...), migration 0010; null before. */
  format: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * Coverage: the Go modules the upload named, each path with its directory (migration 0031);
   * null when it named none. Written as JSON text.
   */
  go_modules: ColumnType<GoModuleRow[] | null, string | null | undefined, string | null>;
  /**
   * The checkout's root on the machine that made the report, when the upload said `work_dir` is a
   * subdirectory of it (migration 0033); null when it did not, and `work_dir` is the root.
   */
  repository_root: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * A CHANGES artifact sent for its renamed files alone: the commit its diff was made against
   * (migration 0043). Its renames count only while that commit is the run's base commit, and its
   * lines are no changed lines of the run (docs/ingestion.md "Renamed files"). Null otherwise.
   */
  renames_base_oid: ColumnType<string | null, string | null | undefined, string | null>;
  content_sha256: Buffer;
  status: WithDefault<ArtifactStatus>;
  /** Why processing failed, in words a user can act on. */
  error: string | null;
  /** What processing found (counts), as JSON text on insert. */
  result: ColumnType<unknown, string | null | undefined, string | null>;
  uploaded_by: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  created_at: CreatedAt;
  processed_at: NullableTimestamp;
}

/** One of an artifact's `go_modules`: a module path and its repository-relative directory ("" for the root). */
export interface GoModuleRow {
  modulePath: string;
  directory: string;
}

export interface ArtifactChunksTable {
  artifact_id: ForeignKey;
  seq: number;
  data: Buffer;
}

export interface CoverageFilesTable {
  id: Generated<Id>;
  check_id: ForeignKey;
  artifact_id: ForeignKey;
  language_key: string;
  path: string;
  lines_total: number;
  lines_covered: number;
  branches_total: number;
  branches_covered: number;
  conditions_total: number | null;
  conditions_covered: number | null;
  covered_lines: number[];
  uncovered_lines: number[];
  branch_lines: WithDefault<number[]>;
  branch_totals: WithDefault<number[]>;
  branch_taken: WithDefault<number[]>;
}

/** Migration 0011: a check's files as its coverage totals count them, several reports merged. */
export interface CoverageCheckFilesTable {
  check_id: ForeignKey;
  metric_key: MetricKey;
  path: string;
  reports: number;
  lines_total: number;
  lines_covered: number;
  branches_total: number;
  branches_covered: number;
  conditions_total: number | null;
  conditions_covered: number | null;
  lines_new: number | null;
  lines_new_covered: number | null;
  branches_new: number | null;
  branches_new_covered: number | null;
  conditions_new: number | null;
  conditions_new_covered: number | null;
  uncovered_lines: number[];
}

/**
 * Migration 0041: the repository files an artifact's report says its tool analyzed (it
 * gave a finding there, or its run lists the file), less those a notification of the tool names
 * (docs/ingestion.md "Status").
 */
export interface ArtifactAnalyzedPathsTable {
  artifact_id: ForeignKey;
  path: string;
}

export interface IngestionTables {
  artifacts: ArtifactsTable;
  artifact_chunks: ArtifactChunksTable;
  coverage_files: CoverageFilesTable;
  coverage_check_files: CoverageCheckFilesTable;
  artifact_analyzed_paths: ArtifactAnalyzedPathsTable;
}

export type ArtifactRow = Selectable<ArtifactsTable>;
export type CoverageFileRow = Selectable<CoverageFilesTable>;
export type CoverageCheckFileRow = Selectable<CoverageCheckFilesTable>;
