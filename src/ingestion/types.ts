import type { Kysely } from "kysely";
import type { AnalysisRunRow, Database, RepositoryRow } from "../db/types.ts";
import type { ArtifactCompression, ArtifactKind, ArtifactRow, GoModuleRow } from "../db/types-ingestion.ts";
import type { RenamedFiles } from "./changes.ts";

/**
 * The shapes shared by the ingestion pipeline (docs/ingestion.md): what an upload carries, and
 * what each kind's processor is given inside the processing transaction.
 */

/** One upload, from `createArtifact` (DSN) or `uploadArtifact` (token), before validation. */
export interface ArtifactUpload {
  commitOid: string;
  /** Known only to `uploadArtifact` / `assay upload`; see docs/ingestion.md "Branch". */
  branch: string | null;
  /** The pull request the commit belongs to, when the uploader says (docs/vcs-events.md). */
  pullRequestNumber?: number | null;
  /** The branch to compare with (the pull request's target), when the uploader says. */
  baseBranch?: string | null;
  /**
   * The commit where the uploaded commit's history meets the base branch's (`git merge-base`),
   * when the uploader says: the run is compared with that commit's run (docs/vcs-events.md).
   */
  mergeBaseOid?: string | null;
  /** The commit's first-parent ancestors, nearest first (`uploadArtifact` only; docs/ingestion.md "Where a run stands in the history"). */
  ancestorOids?: readonly string[] | null;
  /**
   * A CHANGES upload sent for its renamed files alone: the commit its diff was made against
   * (`uploadArtifact` only; docs/ingestion.md "Renamed files").
   */
  renamesBaseOid?: string | null;
  analyzer: string;
  analyzerType: string | null;
  /** Coverage: the language key (`javascript`, `go`...); ignored otherwise. */
  key: string | null;
  /** Report text, or base64 of the compressed text when `compression` is not NONE. */
  data: string;
  compression: ArtifactCompression;
  workDir: string | null;
  /**
   * The checkout's root on the uploader's machine, when `workDir` is a subdirectory of it
   * (src/formats/report-placement.ts); null or absent: `workDir` is the root.
   */
  repositoryRoot?: string | null;
  reporter: string;
  reporterVersion: string | null;
  /** The user behind a token upload; null for DSN uploads. */
  uploadedBy: string | null;
  /** The repository's `.deepsource.toml` at the commit, as text, when the uploader sends it. */
  configToml?: string | null;
  /**
   * The repository-relative paths of the dependency manifests and lockfiles git tracks at the
   * commit, when the uploader lists them (`assay upload` does with an SBOM).
   */
  lockfilePaths?: readonly string[] | null;
  /**
   * A Go coverage upload's modules, each module path with its repository-relative directory, when
   * the uploader names them (`assay upload` does with a Go profile).
   */
  goModules?: readonly GoModuleRow[] | null;
}

/** The files a run's changes renamed, and why some the changes name are not followed. */
export interface RunRenames {
  /** By new path, with the old one. */
  files: RenamedFiles;
  /**
   * Renames against a commit that is not the run's base commit (yet), by new path with the old
   * one: their former fingerprints are deferred until a rebase compares the run with that commit.
   */
  deferred: RenamedFiles;
  /** Said on the report's artifact when a diff's renames are set aside (its base is not the run's); else null. */
  warning: string | null;
}

/** A processed check row as stored. */
export interface CheckRef {
  id: string;
  key: string;
  run_id: string;
  analyzer_id: string;
}

/**
 * Runs `work` as one short step of processing: in a transaction of its own, after checking that
 * this worker still holds the job (src/ingestion/process-job.ts), or inside the caller's
 * transaction when everything is processed in one.
 */
export type ProcessStep = <T>(work: (tx: Kysely<Database>) => Promise<T>) => Promise<T>;

/** Writes what processing staged, in the transaction that publishes it, and answers the result. */
export type PublishStep = (tx: Kysely<Database>) => Promise<ProcessResult>;

/** What a kind's processor gets; it writes only through `tx`. */
export interface ProcessInput {
  tx: Kysely<Database>;
  artifact: ArtifactRow;
  repository: RepositoryRow;
  run: AnalysisRunRow;
  /** The artifact's check (null for CHANGES). */
  check: CheckRef | null;
  /**
   * The check the findings are compared with: the newest comparable check of the same analyzer on
   * the base run's branch, up to the run's `base_run_id` (docs/ingestion.md "Base"); null when the
   * run has no base or there is no such check: then every finding is INTRODUCED.
   */
  baseCheckId: string | null;
  /** The artifact's text, decompressed, as a stream of bytes (bounded memory). */
  text: () => AsyncIterable<Uint8Array>;
  /**
   * The files the run's changes say were renamed, new path to old (docs/ingestion.md "Renamed
   * files"), with a warning when some are not followed. Absent: none (an input built without the
   * run's changes, such as an SBOM's).
   */
  renamedFiles?: () => Promise<RunRenames>;
}

/**
 * Why an entry a report holds was read but not stored (docs/ingestion.md "What an upload
 * stored"). Every skipped entry is counted under exactly one reason.
 */
export type SkipReason =
  /** A SARIF result whose locations, or a coverage file whose path, lie outside the repository root. */
  | "OUTSIDE_REPOSITORY"
  /** A SARIF result with no location in a file. */
  | "NO_LOCATION"
  /** The repository's settings do not report the category or priority (`isReported: false`). */
  | "NOT_REPORTED"
  /** A SARIF result the tool itself marks as gone (`baselineState: "absent"`). */
  | "ABSENT"
  /** A SARIF result that reports no problem: `kind` `pass` (a check held) or `notApplicable`. */
  | "NOT_A_FAILURE"
  /** An SBOM component without a (valid) package URL: nothing says which package it is. */
  | "NO_PURL"
  /** An SBOM component whose package URL is of a type no supported registry uses (`deb`, `generic`...). */
  | "UNSUPPORTED_ECOSYSTEM"
  /** An SBOM component that states no version. */
  | "NO_VERSION"
  /** An SBOM component that is the project's own code (an npm workspace, a `file:` link), not a third-party package. */
  | "PROJECT_PACKAGE"
  /** A SARIF result whose rule id, message, paths or fingerprints hold text PostgreSQL cannot store (NUL, lone surrogate). */
  | "UNSTORABLE_TEXT"
  /** A SARIF result another published report of the same check already gave (the same fingerprint). */
  | "ALREADY_REPORTED"
  /** A diagnostic the same report gave before (GCC's warning in a header, printed for each file including it). */
  | "REPEATED"
  /** A SARIF result in a file the configuration's `exclude_patterns` match. */
  | "EXCLUDED";

/** Every skip reason, in the order they are shown. */
export const SKIP_REASONS: readonly SkipReason[] = [
  "OUTSIDE_REPOSITORY",
  "NO_LOCATION",
  "NOT_REPORTED",
  "ABSENT",
  "NOT_A_FAILURE",
  "NO_PURL",
  "UNSUPPORTED_ECOSYSTEM",
  "NO_VERSION",
  "PROJECT_PACKAGE",
  "UNSTORABLE_TEXT",
  "ALREADY_REPORTED",
  "REPEATED",
  "EXCLUDED",
];

/**
 * Skips that are someone's decision — the repository's settings or configuration, the tool saying
 * a finding is gone or that a check held — or that lose nothing (a finding the check already holds,
 * the project's own package in an SBOM: not a dependency), rather
 * than a loss: an artifact that skipped only these still says what is there.
 */
export const DELIBERATE_SKIP_REASONS: ReadonlySet<SkipReason> = new Set([
  "NOT_REPORTED",
  "ABSENT",
  "NOT_A_FAILURE",
  "ALREADY_REPORTED",
  "REPEATED",
  "EXCLUDED",
  "PROJECT_PACKAGE",
]);

/**
 * True when the results of a check's artifacts stored nothing although something was lost
 * (skipped for a reason not in {@link DELIBERATE_SKIP_REASONS}): such a check cannot say what the
 * code holds, so it is NEUTRAL and never a base (docs/ingestion.md "The run's life").
 */
export function isEverythingLost(
  results: ReadonlyArray<{ stored: number; skipped: Partial<Record<string, number>> }>,
): boolean {
  let stored = 0;
  let lost = 0;
  for (const result of results) {
    stored += result.stored;
    for (const [reason, count] of Object.entries(result.skipped)) {
      if (!DELIBERATE_SKIP_REASONS.has(reason as SkipReason)) lost += count ?? 0;
    }
  }
  return stored === 0 && lost > 0;
}

/** Warnings kept per artifact; a report producing more says how many were left out. */
export const MAX_ARTIFACT_WARNINGS = 20;

/**
 * What processing one artifact found, stored as the artifact's `result` and shown through the API:
 * how many entries the report held (`read`: SARIF results, coverage files, changed files), how many
 * became rows (`stored`), the rest by reason (`skipped`; `read = stored + Σ skipped`), sentences the
 * uploader should see although processing went on (`warnings`), and the kind's own figures
 * (`counts`: SARIF suppressed, rules, introduced, existing, resolved; coverage line and branch totals).
 */
export interface ProcessResult {
  read: number;
  stored: number;
  skipped: Partial<Record<SkipReason, number>>;
  warnings: string[];
  counts: Record<string, number>;
  /**
   * SARIF: the repository paths the tool said it could not analyze (files; a directory ends with
   * `/`), when each of its errors named one (`counts.unanalyzed` counts the errors). The check
   * keeps its base's findings there (docs/ingestion.md "Status"). Absent when there was no such
   * error, or when one named no file: the check is then NEUTRAL, as it is for artifacts stored
   * before the paths were kept.
   */
  unanalyzedPaths?: string[];
}

/** Collects the skip counts and warnings of one artifact while it is processed. */
export class ProcessTally {
  read = 0;
  stored = 0;
  readonly skipped: Partial<Record<SkipReason, number>> = {};
  private readonly warnings: string[] = [];
  private warningsLeftOut = 0;

  /** Counts one entry read and not stored, for `reason`. */
  skip(reason: SkipReason, count = 1): void {
    this.read += count;
    this.skipped[reason] = (this.skipped[reason] ?? 0) + count;
  }

  /** Counts one entry read and stored. */
  store(count = 1): void {
    this.read += count;
    this.stored += count;
  }

  /** Counts entries already counted as stored as skipped for `reason` instead (their rows went away). */
  unstore(reason: SkipReason, count: number): void {
    if (count === 0) return;
    this.stored -= count;
    this.skipped[reason] = (this.skipped[reason] ?? 0) + count;
  }

  /** A tally that goes on from this one's counts and warnings, leaving this one as it is. */
  copy(): ProcessTally {
    const copy = new ProcessTally();
    copy.read = this.read;
    copy.stored = this.stored;
    Object.assign(copy.skipped, this.skipped);
    copy.warnings.push(...this.warnings);
    copy.warningsLeftOut = this.warningsLeftOut;
    return copy;
  }

  /** Keeps a warning (the first {@link MAX_ARTIFACT_WARNINGS}; later ones are only counted). */
  warn(sentence: string): void {
    if (this.warnings.length < MAX_ARTIFACT_WARNINGS) this.warnings.push(sentence);
    else this.warningsLeftOut += 1;
  }

  /** Entries skipped for any reason. */
  get skippedTotal(): number {
    return Object.values(this.skipped).reduce((sum, count) => sum + (count ?? 0), 0);
  }

  /** The result with the kind's own `counts`. */
  result(counts: Record<string, number>, unanalyzedPaths?: readonly string[]): ProcessResult {
    const warnings =
      this.warningsLeftOut === 0
        ? [...this.warnings]
        : [...this.warnings, `${this.warningsLeftOut} more warning(s) left out.`];
    const result: ProcessResult = {
      read: this.read,
      stored: this.stored,
      skipped: { ...this.skipped },
      warnings,
      counts,
    };
    if (unanalyzedPaths !== undefined && unanalyzedPaths.length > 0)
      result.unanalyzedPaths = [...unanalyzedPaths];
    return result;
  }
}

/** Which artifact kind an analyzer's uploads are. */
export function artifactKindOf(analyzer: string): ArtifactKind {
  if (analyzer === COVERAGE_ANALYZER) return "COVERAGE";
  if (analyzer === CHANGES_ANALYZER) return "CHANGES";
  if (analyzer === SCA_ANALYZER) return "SBOM";
  return "SARIF";
}

/** The coverage pseudo-analyzer of the contract's CLI. */
export const COVERAGE_ANALYZER = "test-coverage";
/** The pseudo-analyzer of a run's changed lines (a unified diff or JSON ranges), for new-code coverage. */
export const CHANGES_ANALYZER = "changes";
/** The dependency-scanning analyzer: its uploads are SBOMs (docs/ingestion-sbom.md). */
export const SCA_ANALYZER = "sca";

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
