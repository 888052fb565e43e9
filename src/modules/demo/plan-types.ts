import type {
  AnalysisRunStatus,
  CheckStatus,
  Ecosystem,
  FindingState,
  IssueCategory,
  MetricKey,
  MetricShortcode,
  VcsProvider,
} from "../../db/types.ts";
import type { RepositoryProfile } from "./vocabulary.ts";

/**
 * What the generator plans before anything is written: rows that refer to each other by their
 * (deterministic) keys, and to catalog rows by natural keys. The writer turns keys into ids.
 */

/** How much history a size generates for each repository. */
export interface HistoryParameters {
  /** Days between the first run and now. */
  historyDays: number;
  /** Runs on the default branch, [min, max]. */
  mainRuns: [number, number];
  /** Pull requests, [min, max]. */
  pullRequests: [number, number];
  /** Runs per pull request, [min, max]. */
  runsPerPullRequest: [number, number];
  /** Multiplies how many findings a repository carries. */
  findingsScale: number;
}

/** An issue of the catalog, referred to as `analyzer:shortcode`. */
export type IssueRef = string;

/** A repository to generate, with what its account contributes. */
export interface RepositorySpec {
  /** Position among all generated repositories; its rows' keys live in namespace index + 1. */
  index: number;
  accountKey: string;
  accountLogin: string;
  provider: VcsProvider;
  name: string;
  profile: RepositoryProfile;
  /** Analyzers that run on it, primary first; `test-coverage` last when coverage is reported. */
  analyzers: string[];
  isPrivate: boolean;
  defaultBranch: string;
  /** Branches that must have an open pull request (the demo's named ones). */
  openBranches: string[];
  /** Keys of the account's members, who create ignore rules. */
  memberKeys: string[];
  /** Issues the account suppressed, and since when. */
  teamSuppressions: Array<{ issue: IssueRef; createdAt: Date }>;
}

export interface PlannedRepository {
  key: string;
  accountKey: string;
  provider: VcsProvider;
  /** `owner/name`, as the provider's webhook payloads name it. */
  fullName: string;
  name: string;
  vcsUrl: string;
  isPrivate: boolean;
  defaultBranch: string;
  latestCommitOid: string | null;
  configJson: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface PlannedPullRequest {
  key: string;
  number: number;
  title: string;
  branch: string;
  baseBranch: string;
  state: "OPEN" | "CLOSED" | "MERGED";
  vcsUrl: string;
  /** The commit the branch forked from (reported as the merge base where the provider does). */
  mergeBaseOid: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface PlannedRun {
  key: string;
  runUid: string;
  branch: string;
  /** The run it is compared with; for a pull request's run, what the real code must decide too. */
  baseRunKey: string | null;
  baseOid: string | null;
  commitOid: string;
  status: AnalysisRunStatus;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  pullRequestKey: string | null;
}

export interface PlannedCheck {
  key: string;
  runKey: string;
  analyzer: string;
  sequence: number;
  status: CheckStatus;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export interface PlannedOccurrence {
  key: string;
  checkKey: string;
  issue: IssueRef;
  path: string;
  beginLine: number;
  beginColumn: number;
  endLine: number;
  endColumn: number;
  title: string;
  explanation: string | null;
  source: "STATIC" | "AI";
  fingerprint: string;
  state: FindingState;
  isSuppressed: boolean;
  createdAt: Date;
}

export interface PlannedMetricItem {
  key: string;
  metric: MetricShortcode;
  metricKey: MetricKey;
  threshold: number | null;
}

export interface PlannedMetricValue {
  key: string;
  itemKey: string;
  checkKey: string | null;
  commitOid: string;
  value: number;
  threshold: number | null;
  /** False for a pull request's run: the repository's history leaves it out. */
  onDefaultBranch: boolean;
  createdAt: Date;
}

/** Coverage counts of one measure: [total, covered, new, new covered]. */
export type CoverageCounts = [number, number, number, number];

/** Totals of one coverage check for each measure, and the files they add up from. */
export interface PlannedCoverageReport {
  checkKey: string;
  lines: CoverageCounts;
  branches: CoverageCounts;
  conditions: CoverageCounts | null;
  files: PlannedCoverageFile[];
}

/** One file of a coverage check (a `coverage_check_files` row): its counts and uncovered lines. */
export interface PlannedCoverageFile {
  metricKey: MetricKey;
  path: string;
  lines: CoverageCounts;
  branches: CoverageCounts;
  conditions: CoverageCounts | null;
  /** The executable lines no test ran, ascending. */
  uncoveredLines: number[];
}

export interface PlannedSettings {
  metrics: Array<{ metric: MetricShortcode; isReported: boolean; isThresholdEnforced: boolean }>;
  categories: Array<{ category: IssueCategory; isReported: boolean; canFailCheck: boolean }>;
  priorities: Array<{ priority: "LOW" | "MEDIUM" | "HIGH"; isReported: boolean; canFailCheck: boolean }>;
}

export interface PlannedIgnoreRule {
  key: string;
  issue: IssueRef;
  level: "REPOSITORY" | "FILE";
  type: "FOREVER" | "PATTERN" | "TEST_PATTERN";
  filePath: string | null;
  globPattern: string | null;
  createdByKey: string | null;
  createdAt: Date;
}

/** A dependency target: a manifest and its lockfile. */
export interface PlannedTarget {
  ecosystem: Ecosystem;
  packageManager: string;
  manifestPath: string | null;
  lockfilePath: string;
}

/** One SBOM an analyzed run uploads: the packages pinned in one target, by dataset index. */
export interface PlannedSbom {
  runKey: string;
  /** The run's `sca` check, which the SBOM's artifact belongs to. */
  checkKey: string;
  createdAt: Date;
  target: PlannedTarget;
  packages: Array<{ index: number; version: string; direct: boolean }>;
}

/** Everything generated for one repository. */
export interface RepositoryPlan {
  repository: PlannedRepository;
  pullRequests: PlannedPullRequest[];
  runs: PlannedRun[];
  checks: PlannedCheck[];
  occurrences: PlannedOccurrence[];
  metricItems: PlannedMetricItem[];
  metricValues: PlannedMetricValue[];
  coverageReports: PlannedCoverageReport[];
  settings: PlannedSettings;
  ignoreRules: PlannedIgnoreRule[];
  /** In the order the runs are uploaded; processed by the SBOM ingestion. */
  sboms: PlannedSbom[];
}
