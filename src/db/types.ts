import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";

/** `bigint` identity columns arrive from `pg` as strings; we keep them as strings (never exposed). */
type Id = string;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type ForeignKey = ColumnType<string, string | number | bigint, string | number | bigint>;

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
}

/** The database as Kysely sees it. */
export interface Database {
  installation: InstallationTable;
  users: UsersTable;
  accounts: AccountsTable;
  memberships: MembershipsTable;
  personal_access_tokens: PersonalAccessTokensTable;
  repositories: RepositoriesTable;
  analysis_runs: AnalysisRunsTable;
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
