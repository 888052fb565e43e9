import type { Kysely } from "kysely";
import type { AnalysisRunRow, Database, RepositoryRow } from "../db/types.ts";
import type { ArtifactCompression, ArtifactKind, ArtifactRow } from "../db/types-ingestion.ts";

/**
 * The shapes shared by the ingestion pipeline (docs/ingestion.md): what an upload carries, and
 * what each kind's processor is given inside the processing transaction.
 */

/** One upload, from `createArtifact` (DSN) or `uploadArtifact` (token), before validation. */
export interface ArtifactUpload {
  commitOid: string;
  /** Known only to `uploadArtifact` / `assay upload`; see docs/ingestion.md "Branch". */
  branch: string | null;
  analyzer: string;
  analyzerType: string | null;
  /** Coverage: the language key (`javascript`, `go`...); ignored otherwise. */
  key: string | null;
  /** Report text, or base64 of the compressed text when `compression` is not NONE. */
  data: string;
  compression: ArtifactCompression;
  workDir: string | null;
  reporter: string;
  reporterVersion: string | null;
  /** The user behind a token upload; null for DSN uploads. */
  uploadedBy: string | null;
}

/** A processed check row as stored. */
export interface CheckRef {
  id: string;
  key: string;
  run_id: string;
  analyzer_id: string;
}

/** What a kind's processor gets; it writes only through `tx`. */
export interface ProcessInput {
  tx: Kysely<Database>;
  artifact: ArtifactRow;
  repository: RepositoryRow;
  run: AnalysisRunRow;
  /** The artifact's check (null for CHANGES). */
  check: CheckRef | null;
  /**
   * The base run's check of the same analyzer (the run's `base_run_id`), or null when the run has
   * no base or the base has no such check: then every finding is INTRODUCED.
   */
  baseCheckId: string | null;
  /** The artifact's text, decompressed, as a stream of bytes (bounded memory). */
  text: () => AsyncIterable<Uint8Array>;
}

/** What processing one artifact found, stored as the artifact's `result`. */
export type ProcessResult = Record<string, number>;

/** Which artifact kind an analyzer's uploads are. */
export function artifactKindOf(analyzer: string): ArtifactKind {
  if (analyzer === COVERAGE_ANALYZER) return "COVERAGE";
  if (analyzer === CHANGES_ANALYZER) return "CHANGES";
  return "SARIF";
}

/** The coverage pseudo-analyzer of the contract's CLI. */
export const COVERAGE_ANALYZER = "test-coverage";
/** The pseudo-analyzer of a run's changed lines (a unified diff or JSON ranges), for new-code coverage. */
export const CHANGES_ANALYZER = "changes";

/** Coverage language keys the contract's CLI sends, and the metric key each is reported under. */
export const COVERAGE_LANGUAGE_KEYS = {
  python: "PYTHON",
  go: "GO",
  javascript: "JAVASCRIPT",
  ruby: "RUBY",
  java: "JAVA",
  scala: "SCALA",
  php: "PHP",
  csharp: "CSHARP",
  cxx: "C_AND_CPP",
  rust: "RUST",
  swift: "SWIFT",
  kotlin: "KOTLIN",
} as const;
export type CoverageLanguageKey = keyof typeof COVERAGE_LANGUAGE_KEYS;

/** An optional input string as the intake takes it: null when absent or empty (the Go CLI sends ""). */
export function presentOrNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === "" ? null : value;
}
