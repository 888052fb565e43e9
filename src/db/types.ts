import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";
import type { IssueCategory, IssueSeverity } from "../formats/issue-vocabulary.ts";
import type { AdvisoryTables } from "./types-advisories.ts";
import type { AuthFlowTables } from "./types-auth-flows.ts";
import type { IngestionTables } from "./types-ingestion.ts";
import type { WebhookTables } from "./types-webhooks.ts";

/** `bigint` identity columns arrive from `pg` as strings; we keep them as strings (never exposed). */
export type Id = string;
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
export type ForeignKey = ColumnType<string, string | number | bigint, string | number | bigint>;

export type VcsProvider =
  | "GITHUB"
  | "GITLAB"
  | "BITBUCKET"
  | "BITBUCKET_DATACENTER"
  | "GITHUB_ENTERPRISE"
  | "GSR"
  | "ADS";
export type AccountType = "INDIVIDUAL" | "TEAM";
export type TeamMemberRole = "ADMIN" | "MEMBER" | "CONTRIBUTOR";
export type AccountSubscriptionPlan = "FREE" | "STARTER" | "BUSINESS" | "ENTERPRISE";
export type IdeSubscriptionPlan = "FREE" | "PRO" | "SPONSORED";
export type AnalysisRunStatus =
  | "PENDING"
  | "SUCCESS"
  | "FAILURE"
  | "TIMEOUT"
  | "CANCEL"
  | "READY"
  | "SKIPPED";

export interface InstallationTable {
  id: Generated<Id>;
  key: string;
  singleton: ColumnType<boolean, boolean | undefined, never>;
  name: string;
  logo_url: string;
  created_at: CreatedAt;
}

export interface UsersTable {
  id: Generated<Id>;
  key: string;
  email: string;
  first_name: ColumnType<string, string | undefined, string>;
  last_name: ColumnType<string, string | undefined, string>;
  analytics_id: string;
  is_beta_tester: ColumnType<boolean, boolean | undefined, boolean>;
  ide_subscription_plan: IdeSubscriptionPlan | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface AccountsTable {
  id: Generated<Id>;
  key: string;
  login: string;
  vcs_provider: VcsProvider;
  type: AccountType;
  avatar_url: string | null;
  vcs_url: string | null;
  is_beta_tester: ColumnType<boolean, boolean | undefined, boolean>;
  subscription_plan: ColumnType<
    AccountSubscriptionPlan,
    AccountSubscriptionPlan | undefined,
    AccountSubscriptionPlan
  >;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface MembershipsTable {
  id: Generated<Id>;
  key: string;
  account_id: ForeignKey;
  user_id: ForeignKey;
  role: TeamMemberRole;
  is_owner: ColumnType<boolean, boolean | undefined, boolean>;
  joined_at: CreatedAt;
}

export interface PersonalAccessTokensTable {
  id: Generated<Id>;
  key: string;
  user_id: ForeignKey;
  name: string;
  token_hash: Buffer;
  last_four: string;
  expires_at: NullableTimestamp;
  created_at: CreatedAt;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface RepositoriesTable {
  id: Generated<Id>;
  key: string;
  account_id: ForeignKey;
  name: string;
  vcs_url: string | null;
  is_private: ColumnType<boolean, boolean | undefined, boolean>;
  is_activated: ColumnType<boolean, boolean | undefined, boolean>;
  default_branch: string | null;
  latest_commit_oid: string | null;
  config_json: ColumnType<unknown, string | null | undefined, string | null>;
  dsn_generation: ColumnType<number, number | undefined, number>;
  allow_autofix_ai: ColumnType<boolean, boolean | undefined, boolean>;
  use_legacy_autofix: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface AnalysisRunsTable {
  id: Generated<Id>;
  key: string;
  run_uid: string;
  repository_id: ForeignKey;
  branch_name: string | null;
  base_oid: string | null;
  commit_oid: string;
  status: AnalysisRunStatus;
  created_at: CreatedAt;
  updated_at: Timestamp;
  finished_at: NullableTimestamp;
  pull_request_id: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  /** The run this one was compared with (migration 0008). */
  base_run_id: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  /** When the run's WAITING checks time out; null when it expects nothing more. */
  deadline_at: NullableTimestamp;
  /**
   * The status a finished run had when a late artifact made it PENDING again; null otherwise
   * (migration 0022).
   */
  reopened_from: ColumnType<
    AnalysisRunStatus | null,
    AnalysisRunStatus | null | undefined,
    AnalysisRunStatus | null
  >;
  /**
   * True when the run is on the default branch only because no upload named a branch and no pull
   * request gave one (migration 0026).
   */
  is_branch_defaulted: ColumnType<boolean, boolean | undefined, boolean>;
  /**
   * The configuration (`.deepsource.toml` as JSON) an upload of the run carried: the one at its
   * commit; null when none did (migration 0028).
   */
  config_json: ColumnType<unknown, string | null | undefined, string | null>;
  /**
   * The dependency manifests and lockfiles git tracks at the run's commit, as an upload of the
   * run listed them (repository-relative paths, sorted); null when none did (migration 0030).
   */
  lockfile_paths: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  /**
   * The commit's first-parent ancestors, nearest first, as the upload that made the run sent them;
   * null when it sent none (migration 0035).
   */
  ancestor_oids: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  /**
   * Where the run's commit meets its base branch, as its upload (`mergeBaseOid`) or its pull
   * request said when it was made; null for a run of no base branch, or when neither said
   * (migration 0042).
   */
  merge_base_oid: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * Where the run stands among its branch's runs, which every read of the newest run orders by:
   * its `created_at`, unless it was placed before a run whose commit descends from its own
   * (migration 0035; docs/ingestion.md "Where a run stands in the history").
   */
  placed_at: ColumnType<Date, Date | undefined, Date>;
}

export type { IssueCategory, IssueSeverity };
export type AnalyzerType = "CORE" | "COMMUNITY" | "CUSTOM";
export type CheckStatus =
  | "WAITING"
  | "PENDING"
  | "SUCCESS"
  | "FAILURE"
  | "TIMEOUT"
  | "CANCEL"
  | "READY"
  | "NEUTRAL"
  | "ARTIFACT_TIMEOUT"
  | "SKIPPED";
/** A finding's state against the run's base: new, still there, or gone. */
export type FindingState = "INTRODUCED" | "EXISTING" | "RESOLVED";
export type MetricShortcode =
  | "BCV"
  | "CCV"
  | "DCV"
  | "DDP"
  | "LCV"
  | "CPCV"
  | "NLCV"
  | "NBCV"
  | "NCCV"
  | "NCPCV";
export type MetricKey =
  | "AGGREGATE"
  | "C_AND_CPP"
  | "CSHARP"
  | "GO"
  | "JAVA"
  | "JAVASCRIPT"
  | "PHP"
  | "PYTHON"
  | "RUBY"
  | "RUST"
  | "SCALA"
  | "KOTLIN"
  | "SWIFT";
export type Ecosystem = "NPM" | "PYPI" | "MAVEN" | "GO" | "RUBYGEMS" | "NUGET" | "PACKAGIST" | "CRATES_IO";
export type VulnerabilitySeverity = "NONE" | "LOW" | "MEDIUM" | "HIGH" | "CRITICAL";

type Bool = ColumnType<boolean, boolean | undefined, boolean>;
type TextArray = ColumnType<string[], string[] | undefined, string[]>;
type WithDefault<T> = ColumnType<T, T | undefined, T>;

export interface AnalyzersTable {
  id: Generated<Id>;
  key: string;
  shortcode: string;
  name: string;
  description: WithDefault<string>;
  version: WithDefault<string>;
  meta_schema: ColumnType<unknown, string | undefined, string>;
  example_config: string | null;
  logo_url: string | null;
  type: WithDefault<AnalyzerType>;
  created_at: CreatedAt;
}

export interface IssuesTable {
  id: Generated<Id>;
  key: string;
  analyzer_id: ForeignKey;
  /** The account whose uploads filed the issue; null for the shared catalog (migration 0039). */
  account_id: ColumnType<
    string | null,
    string | number | bigint | null | undefined,
    string | number | bigint | null
  >;
  shortcode: string;
  title: string;
  description: WithDefault<string>;
  short_description: WithDefault<string>;
  category: IssueCategory;
  severity: IssueSeverity;
  autofix_available: Bool;
  autofix_ai_available: boolean | null;
  is_recommended: Bool;
  tags: TextArray;
  created_at: CreatedAt;
}

export interface CodeFormattersTable {
  id: Generated<Id>;
  key: string;
  shortcode: string;
  name: string;
  description: WithDefault<string>;
  example_config: string | null;
  logo_url: string | null;
  analyzer_id: ForeignKey | null;
  created_at: CreatedAt;
}

export interface PullRequestsTable {
  id: Generated<Id>;
  key: string;
  repository_id: ForeignKey;
  number: number;
  title: string | null;
  branch: string | null;
  base_branch: string | null;
  state: WithDefault<"OPEN" | "CLOSED" | "MERGED">;
  vcs_url: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** The head commit the provider last reported (migration 0013). */
  head_commit_oid: string | null;
  /** The base branch's commit the provider last reported. */
  base_commit_oid: string | null;
  /** The merge base, when the provider reports it (GitLab's `diff_refs.base_sha`). */
  merge_base_oid: string | null;
  /** The provider's time of the last change applied; an older event is ignored. */
  vcs_updated_at: NullableTimestamp;
  /** True when the provider said the head is in another repository, a fork (migration 0025). */
  is_cross_repository: ColumnType<boolean, boolean | undefined, boolean>;
  /** The full name of the fork the head is in, when the provider gave it (migration 0025). */
  head_repository: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A repository's incoming webhook secret, encrypted (migration 0013; docs/vcs-events.md). */
export interface RepositoryVcsSecretsTable {
  repository_id: ForeignKey;
  secret_encrypted: Buffer;
  secret_last_four: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** An account's incoming webhook secret: covers its repositories that have none of their own. */
export interface AccountVcsSecretsTable {
  account_id: ForeignKey;
  secret_encrypted: Buffer;
  secret_last_four: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** An incoming webhook delivery already applied, kept for a while to refuse replays. */
export interface VcsDeliveriesTable {
  repository_id: ForeignKey;
  delivery_id: string;
  provider: "GITHUB" | "GITLAB" | "BITBUCKET";
  event: string;
  received_at: CreatedAt;
}

/** The commit a branch points at, from the provider's push events. */
export interface BranchHeadsTable {
  repository_id: ForeignKey;
  branch: string;
  commit_oid: string;
  pushed_at: NullableTimestamp;
  updated_at: Timestamp;
}

export interface ChecksTable {
  id: Generated<Id>;
  key: string;
  run_id: ForeignKey;
  analyzer_id: ForeignKey;
  sequence: number;
  status: CheckStatus;
  created_at: CreatedAt;
  updated_at: Timestamp;
  finished_at: NullableTimestamp;
  /**
   * The status a finished check had when a late artifact made it PENDING again; null otherwise
   * (migration 0023).
   */
  reopened_from: ColumnType<CheckStatus | null, CheckStatus | null | undefined, CheckStatus | null>;
  /**
   * The check a findings check was compared with when its findings' states and RESOLVED copies
   * were last written; null when compared with none (migration 0034).
   */
  base_check_id: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * The version of the base check's findings (`findFindingsVersionOf`) every finding of the check was
   * last judged against; null when not known (migration 0047).
   */
  settled_against: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * How the fingerprints of the check's findings were made (migration 0038): 1 for checks stored
   * before it, 2 (the default) since; see src/ingestion/fingerprint.ts `FingerprintVersion`.
   */
  fingerprint_version: ColumnType<number, number | undefined, never>;
  /**
   * The repository, branch, creation time and key of the check's run, copied from the run when the
   * check is inserted (a trigger; migration 0023), for the index the current findings are read by.
   * The branch is set again when the run moves to another branch (`updateRunBranch`).
   */
  repository_id: ColumnType<string, undefined, never>;
  branch_name: ColumnType<string | null, undefined, string | null>;
  run_created_at: ColumnType<Date, undefined, never>;
  run_key: ColumnType<string, undefined, never>;
}

export interface OccurrencesTable {
  id: Generated<Id>;
  key: string;
  check_id: ForeignKey;
  issue_id: ForeignKey;
  path: string;
  begin_line: number;
  begin_column: WithDefault<number>;
  end_line: number;
  end_column: WithDefault<number>;
  title: string;
  explanation: string | null;
  source: WithDefault<"STATIC" | "AI">;
  fingerprint: string;
  state: FindingState;
  is_suppressed: Bool;
  created_at: CreatedAt;
  /** The artifact the occurrence came from (migration 0008); null for RESOLVED and seeded rows. */
  artifact_id: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  /** The finding's own severity (migration 0009); null means the issue's (older and seeded rows). */
  severity: ColumnType<IssueSeverity | null, IssueSeverity | null | undefined, IssueSeverity | null>;
  /**
   * The fingerprint the finding had at its file's old path, when the run's changes say the file was
   * renamed (migration 0036); null otherwise.
   */
  former_fingerprint: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * The fingerprint at the file's old path, when the run's changes rename it against a commit that
   * was not the run's base when the report was processed; it becomes `former_fingerprint` when a
   * rebase compares the run with that commit (migration 0044). Null otherwise.
   */
  deferred_former_fingerprint: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * A base finding kept as EXISTING in a file the check's tool could not analyze (migration 0037),
   * written again whenever the check's states are set.
   */
  is_carried: WithDefault<boolean>;
}

/**
 * Published occurrences of one issue in one check with one own severity, state and suppression,
 * counted (migration 0020): what the summaries and totals read instead of the occurrences.
 */
export interface CheckIssueCountsTable {
  check_id: ForeignKey;
  issue_id: ForeignKey;
  /** The occurrences' own severity; null for those that take their issue's. */
  severity: IssueSeverity | null;
  state: FindingState;
  is_suppressed: boolean;
  occurrences: number;
}

/** Per repository, the run whose issues the repository-issue events last announced (migration 0022). */
export interface RepositoryIssueAnnouncementsTable {
  repository_id: ForeignKey;
  run_id: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  updated_at: Timestamp;
}

/** An issue the repository-issue events last announced as present, with its open occurrences then. */
export interface AnnouncedRepositoryIssuesTable {
  repository_id: ForeignKey;
  issue_id: ForeignKey;
  occurrences: number;
}

export interface MetricsTable {
  id: Generated<Id>;
  key: string;
  shortcode: MetricShortcode;
  name: string;
  description: string;
  positive_direction: "UPWARD" | "DOWNWARD";
  unit: string | null;
  min_value_allowed: number | null;
  max_value_allowed: number | null;
}

export interface RepositoryMetricItemsTable {
  id: Generated<Id>;
  key: string;
  repository_id: ForeignKey;
  metric_shortcode: MetricShortcode;
  metric_key: MetricKey;
  threshold: number | null;
}

export interface MetricValuesTable {
  id: Generated<Id>;
  key: string;
  item_id: ForeignKey;
  check_id: ForeignKey | null;
  commit_oid: string;
  value: number;
  threshold: number | null;
  created_at: CreatedAt;
  /** False for values of runs off the default branch (migration 0008): not the repository's history. */
  on_default_branch: ColumnType<boolean, boolean | undefined, boolean>;
  /**
   * Whether the value's run has analysed the code (`isAnalysedRun`), kept by the database's
   * triggers (migration 0032): a repository shows only such values. Never written by Assay.
   */
  of_analysed_run: ColumnType<boolean, never, never>;
}

export interface RepositoryMetricSettingsTable {
  repository_id: ForeignKey;
  metric_shortcode: MetricShortcode;
  is_reported: Bool;
  is_threshold_enforced: Bool;
}

export interface RepositoryIssueCategorySettingsTable {
  repository_id: ForeignKey;
  category: IssueCategory;
  is_reported: Bool;
  can_fail_check: Bool;
}

export interface RepositoryIssuePrioritySettingsTable {
  repository_id: ForeignKey;
  priority_type: "LOW" | "MEDIUM" | "HIGH";
  is_reported: Bool;
  can_fail_check: Bool;
}

export interface IgnoreRulesTable {
  id: Generated<Id>;
  key: string;
  repository_id: ForeignKey;
  issue_id: ForeignKey;
  level: "REPOSITORY" | "FILE";
  type: "FOREVER" | "PATTERN" | "TEST_PATTERN";
  file_path: string | null;
  glob_pattern: string | null;
  created_by: ForeignKey | null;
  created_at: CreatedAt;
}

export interface TeamSuppressedIssuesTable {
  id: Generated<Id>;
  key: string;
  account_id: ForeignKey;
  issue_id: ForeignKey;
  user_id: ForeignKey | null;
  created_at: CreatedAt;
}

export interface PackagesTable {
  id: Generated<Id>;
  key: string;
  ecosystem: Ecosystem;
  name: string;
  purl: string | null;
}

export interface PackageVersionsTable {
  id: Generated<Id>;
  key: string;
  package_id: ForeignKey;
  version: string;
  version_type: "SEMVER" | "ECOSYSTEM" | "GIT" | null;
}

export interface VulnerabilitiesTable {
  id: Generated<Id>;
  key: string;
  identifier: string;
  aliases: TextArray;
  summary: string | null;
  details: string | null;
  cvss_v2_vector: string | null;
  cvss_v2_base_score: number | null;
  cvss_v2_severity: VulnerabilitySeverity | null;
  cvss_v3_vector: string | null;
  cvss_v3_base_score: number | null;
  cvss_v3_severity: VulnerabilitySeverity | null;
  cvss_v4_vector: string | null;
  cvss_v4_base_score: number | null;
  cvss_v4_severity: VulnerabilitySeverity | null;
  severity: VulnerabilitySeverity | null;
  published_at: ColumnType<Date, Date | string, Date | string>;
  updated_at: ColumnType<Date, Date | string, Date | string>;
  withdrawn_at: NullableTimestamp;
  /** The OSV record's `modified` as last imported (migration 0014); null for data not imported. */
  source_modified: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  epss_score: number | null;
  epss_percentile: number | null;
  introduced_versions: TextArray;
  fixed_versions: TextArray;
  reference_urls: TextArray;
}

export interface RepositoryTargetsTable {
  id: Generated<Id>;
  key: string;
  repository_id: ForeignKey;
  ecosystem: Ecosystem;
  package_manager: string;
  manifest_path: string | null;
  lockfile_path: string;
  source: WithDefault<"AUTO" | "CUSTOM">;
  is_activated: Bool;
  created_at: CreatedAt;
}

export interface ScaChecksTable {
  id: Generated<Id>;
  key: string;
  run_id: ForeignKey;
  target_id: ForeignKey | null;
  status: WithDefault<string>;
  created_at: CreatedAt;
  /** The `sca` analyzer check of the run this scan belongs to (migration 0015); null for older rows. */
  check_id: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  /** The SBOM artifact the scan was read from (migration 0015); null for older rows. */
  artifact_id: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  /** The SBOM's format as read ("CycloneDX 1.5 (JSON)"...); null for older rows. */
  format: ColumnType<string | null, string | null | undefined, string | null>;
  dependencies_count: ColumnType<number | null, number | null | undefined, number | null>;
  direct_dependencies_count: ColumnType<number | null, number | null | undefined, number | null>;
  transitive_dependencies_count: ColumnType<number | null, number | null | undefined, number | null>;
  /**
   * The repository, branch, creation time and key of the scan's run, copied from the run when the
   * scan is inserted (a trigger; migration 0024), for the index current scans are read by. The
   * branch is set again when the run moves to another branch (`updateRunBranch`).
   */
  repository_id: ColumnType<string, undefined, never>;
  branch_name: ColumnType<string | null, undefined, string | null>;
  run_created_at: ColumnType<Date, undefined, never>;
  run_key: ColumnType<string, undefined, never>;
}

/** One dependency an SCA check found: a package version of one target (migration 0015). */
export interface ScaCheckDependenciesTable {
  sca_check_id: ForeignKey;
  target_id: ForeignKey;
  package_version_id: ForeignKey;
  /** True when the SBOM's root component depends on it itself, false when only through others. */
  is_direct: boolean;
  /** The licence as an SPDX expression, as the SBOM states it; null when it states none. */
  license_expression: string | null;
}

export interface VulnerabilityOccurrencesTable {
  id: Generated<Id>;
  key: string;
  sca_check_id: ForeignKey;
  vulnerability_id: ForeignKey;
  package_version_id: ForeignKey;
  reachability: WithDefault<"REACHABLE" | "UNREACHABLE" | "UNKNOWN">;
  fixability: WithDefault<
    "ERROR" | "UNFIXABLE" | "GENERATING_FIX" | "POSSIBLY_FIXABLE" | "MANUALLY_FIXABLE" | "AUTO_FIXABLE"
  >;
  state: FindingState;
  /** The smallest upgrade that fixes it (migration 0014); null when none is known. */
  fix_version: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
}

type Count = number | null;
export interface CoverageReportsTable {
  check_id: ForeignKey;
  lines_total: Count;
  lines_covered: Count;
  lines_new: Count;
  lines_new_covered: Count;
  branches_total: Count;
  branches_covered: Count;
  branches_new: Count;
  branches_new_covered: Count;
  conditions_total: Count;
  conditions_covered: Count;
  conditions_new: Count;
  conditions_new_covered: Count;
}

/** The database as Kysely sees it. */
/** Every table. Workflow tables are declared beside their migrations' owners and merged in here. */
export interface Database extends AuthFlowTables, WebhookTables, IngestionTables, AdvisoryTables {
  installation: InstallationTable;
  users: UsersTable;
  accounts: AccountsTable;
  memberships: MembershipsTable;
  personal_access_tokens: PersonalAccessTokensTable;
  repositories: RepositoriesTable;
  analysis_runs: AnalysisRunsTable;
  analyzers: AnalyzersTable;
  issues: IssuesTable;
  code_formatters: CodeFormattersTable;
  pull_requests: PullRequestsTable;
  repository_vcs_secrets: RepositoryVcsSecretsTable;
  account_vcs_secrets: AccountVcsSecretsTable;
  vcs_deliveries: VcsDeliveriesTable;
  branch_heads: BranchHeadsTable;
  checks: ChecksTable;
  occurrences: OccurrencesTable;
  check_issue_counts: CheckIssueCountsTable;
  repository_issue_announcements: RepositoryIssueAnnouncementsTable;
  announced_repository_issues: AnnouncedRepositoryIssuesTable;
  metrics: MetricsTable;
  repository_metric_items: RepositoryMetricItemsTable;
  metric_values: MetricValuesTable;
  repository_metric_settings: RepositoryMetricSettingsTable;
  repository_issue_category_settings: RepositoryIssueCategorySettingsTable;
  repository_issue_priority_settings: RepositoryIssuePrioritySettingsTable;
  ignore_rules: IgnoreRulesTable;
  team_suppressed_issues: TeamSuppressedIssuesTable;
  packages: PackagesTable;
  package_versions: PackageVersionsTable;
  vulnerabilities: VulnerabilitiesTable;
  repository_targets: RepositoryTargetsTable;
  sca_checks: ScaChecksTable;
  sca_check_dependencies: ScaCheckDependenciesTable;
  vulnerability_occurrences: VulnerabilityOccurrencesTable;
  coverage_reports: CoverageReportsTable;
}

export type UserRow = Selectable<UsersTable>;
export type AccountRow = Selectable<AccountsTable>;
export type MembershipRow = Selectable<MembershipsTable>;
export type PersonalAccessTokenRow = Selectable<PersonalAccessTokensTable>;
export type RepositoryRow = Selectable<RepositoriesTable>;
export type AnalysisRunRow = Selectable<AnalysisRunsTable>;
export type InstallationRow = Selectable<InstallationTable>;
export type NewUser = Insertable<UsersTable>;
export type NewAccount = Insertable<AccountsTable>;
export type NewRepository = Insertable<RepositoriesTable>;
export type NewAnalysisRun = Insertable<AnalysisRunsTable>;
export type RepositoryUpdate = Updateable<RepositoriesTable>;
export type AnalyzerRow = Selectable<AnalyzersTable>;
export type IssueRow = Selectable<IssuesTable>;
export type CodeFormatterRow = Selectable<CodeFormattersTable>;
export type PullRequestRow = Selectable<PullRequestsTable>;
export type CheckRow = Selectable<ChecksTable>;
export type OccurrenceRow = Selectable<OccurrencesTable>;
export type MetricRow = Selectable<MetricsTable>;
export type RepositoryMetricItemRow = Selectable<RepositoryMetricItemsTable>;
export type MetricValueRow = Selectable<MetricValuesTable>;
export type IgnoreRuleRow = Selectable<IgnoreRulesTable>;
export type TeamSuppressedIssueRow = Selectable<TeamSuppressedIssuesTable>;
export type PackageRow = Selectable<PackagesTable>;
export type PackageVersionRow = Selectable<PackageVersionsTable>;
export type VulnerabilityRow = Selectable<VulnerabilitiesTable>;
export type RepositoryTargetRow = Selectable<RepositoryTargetsTable>;
export type ScaCheckRow = Selectable<ScaChecksTable>;
export type VulnerabilityOccurrenceRow = Selectable<VulnerabilityOccurrencesTable>;
export type CoverageReportRow = Selectable<CoverageReportsTable>;
