import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import { resetAnnouncedIssues } from "../checks/announced-issue-store.ts";
import { refreshCheckIssueCounts } from "../checks/issue-count-store.ts";
import { cycloneDxOf, type SbomUploader } from "./demo-sbom.ts";
import { type Column, column as c, insertRows, insertRowsReturningIds } from "./demo-store.ts";
import { type ReplayedHistory, replayHistory } from "./history-writer.ts";
import type {
  CoverageCounts,
  PlannedCheck,
  PlannedCoverageFile,
  PlannedCoverageReport,
  PlannedIgnoreRule,
  PlannedMetricItem,
  PlannedMetricValue,
  PlannedOccurrence,
  PlannedRepository,
  PlannedSettings,
  RepositoryPlan,
} from "./plan-types.ts";

/** Ids the writer needs from rows written before the repositories. */
export interface WriterContext {
  accountIds: Map<string, string>;
  userIds: Map<string, string>;
  analyzerIds: Map<string, string>;
  /** By `analyzer:shortcode`. */
  issueIds: Map<string, string>;
  /** Encrypts the repositories' webhook secrets. */
  pepper: string;
  uploadSbom: SbomUploader;
  /** The account-wide webhook secret of each account whose GitHub repositories share one, by account key. */
  accountSecrets: Map<string, string>;
}

/** Row counts written, by table. */
export type RowCounts = Record<string, number>;

function need(map: Map<string, string>, key: string | null, what: string): string {
  const id = key === null ? undefined : map.get(key);
  if (id === undefined) throw new Error(`generated data refers to a missing ${what}: ${key}`);
  return id;
}

/**
 * Writes the plans of some repositories; adds the row counts of the tables it bulk-writes to
 * `counts`. Runs and pull requests are replayed repository by repository through the webhook and
 * upload code (history-writer.ts); checks, findings, metrics, coverage and settings are written
 * table by table (the checks' issue counts from their findings, and the repository issues as
 * already announced); then each run's SBOMs are processed in the order the runs happened, so a
 * run's SCA checks are matched against its base's.
 */
export async function writeRepositoryPlans(
  db: Kysely<Database>,
  plans: RepositoryPlan[],
  ctx: WriterContext,
  counts: RowCounts,
): Promise<void> {
  const all = <T>(pick: (plan: RepositoryPlan) => T[]) => plans.flatMap(pick);
  const tally = (table: string, rows: unknown[]) => {
    counts[table] = (counts[table] ?? 0) + rows.length;
  };
  const write = async <Row>(table: string, columns: Column<Row>[], rows: Row[]) => {
    tally(table, rows);
    await insertRows(db, table, columns, rows);
  };
  const writeReturning = async <Row>(table: string, columns: Column<Row>[], rows: Row[]) => {
    tally(table, rows);
    return insertRowsReturningIds(db, table, columns, rows);
  };

  const repositoryIds = await writeReturning<PlannedRepository>(
    "repositories",
    [
      c("key", "text", (r) => r.key),
      c("account_id", "bigint", (r) => need(ctx.accountIds, r.accountKey, "account")),
      c("name", "text", (r) => r.name),
      c("vcs_url", "text", (r) => r.vcsUrl),
      c("is_private", "boolean", (r) => r.isPrivate),
      c("is_activated", "boolean", () => true),
      c("default_branch", "text", (r) => r.defaultBranch),
      c("latest_commit_oid", "text", (r) => r.latestCommitOid),
      c("config_json", "jsonb", (r) => r.configJson),
      c("created_at", "timestamptz", (r) => r.createdAt),
      c("updated_at", "timestamptz", (r) => r.updatedAt),
    ],
    plans.map((p) => p.repository),
  );
  const repoOf = new Map<unknown, string>();
  for (const plan of plans) {
    const id = need(repositoryIds, plan.repository.key, "repository");
    for (const rows of [plan.ignoreRules, plan.metricItems]) {
      for (const row of rows) repoOf.set(row, id);
    }
  }
  const repoId = (row: unknown) => repoOf.get(row)!;

  const replayed = new Map<RepositoryPlan, ReplayedHistory>();
  const runIds = new Map<string, string>();
  for (const plan of plans) {
    const repositoryId = need(repositoryIds, plan.repository.key, "repository");
    const history = await replayHistory(db, ctx, plan, repositoryId);
    replayed.set(plan, history);
    for (const [key, run] of history.runs) runIds.set(key, run.id);
    tally("analysis_runs", plan.runs);
    tally("pull_requests", plan.pullRequests);
  }

  const checkIds = await writeReturning<PlannedCheck>(
    "checks",
    [
      c("key", "text", (r) => r.key),
      c("run_id", "bigint", (r) => need(runIds, r.runKey, "run")),
      c("analyzer_id", "bigint", (r) => need(ctx.analyzerIds, r.analyzer, "analyzer")),
      c("sequence", "integer", (r) => r.sequence),
      c("status", "text", (r) => r.status),
      c("created_at", "timestamptz", (r) => r.createdAt),
      c("updated_at", "timestamptz", (r) => r.updatedAt),
      c("finished_at", "timestamptz", (r) => r.finishedAt),
    ],
    all((p) => p.checks),
  );

  await write<PlannedOccurrence>(
    "occurrences",
    [
      c("key", "text", (r) => r.key),
      c("check_id", "bigint", (r) => need(checkIds, r.checkKey, "check")),
      c("issue_id", "bigint", (r) => need(ctx.issueIds, r.issue, "issue")),
      c("path", "text", (r) => r.path),
      c("begin_line", "integer", (r) => r.beginLine),
      c("begin_column", "integer", (r) => r.beginColumn),
      c("end_line", "integer", (r) => r.endLine),
      c("end_column", "integer", (r) => r.endColumn),
      c("title", "text", (r) => r.title),
      c("explanation", "text", (r) => r.explanation),
      c("source", "text", (r) => r.source),
      c("fingerprint", "text", (r) => r.fingerprint),
      c("state", "text", (r) => r.state),
      c("is_suppressed", "boolean", (r) => r.isSuppressed),
      c("created_at", "timestamptz", (r) => r.createdAt),
    ],
    all((p) => p.occurrences),
  );
  await refreshCheckIssueCounts(db, [...checkIds.values()]);
  // No receiver heard of the generated history: the repository-issue events start from its end.
  const announced = await resetAnnouncedIssues(db, [...repositoryIds.values()]);
  counts.repository_issue_announcements =
    (counts.repository_issue_announcements ?? 0) + announced.announcements;
  counts.announced_repository_issues = (counts.announced_repository_issues ?? 0) + announced.issues;

  const itemIds = await writeReturning<PlannedMetricItem>(
    "repository_metric_items",
    [
      c("key", "text", (r) => r.key),
      c("repository_id", "bigint", repoId),
      c("metric_shortcode", "text", (r) => r.metric),
      c("metric_key", "text", (r) => r.metricKey),
      c("threshold", "integer", (r) => r.threshold),
    ],
    all((p) => p.metricItems),
  );
  await write<PlannedMetricValue>(
    "metric_values",
    [
      c("key", "text", (r) => r.key),
      c("item_id", "bigint", (r) => need(itemIds, r.itemKey, "metric item")),
      c("check_id", "bigint", (r) => (r.checkKey === null ? null : need(checkIds, r.checkKey, "check"))),
      c("commit_oid", "text", (r) => r.commitOid),
      c("value", "double precision", (r) => r.value),
      c("threshold", "integer", (r) => r.threshold),
      c("on_default_branch", "boolean", (r) => r.onDefaultBranch),
      c("created_at", "timestamptz", (r) => r.createdAt),
    ],
    all((p) => p.metricValues),
  );
  await write<PlannedCoverageReport>(
    "coverage_reports",
    [
      c("check_id", "bigint", (r) => need(checkIds, r.checkKey, "check")),
      ...countColumns<PlannedCoverageReport>("lines", (r) => r.lines),
      ...countColumns<PlannedCoverageReport>("branches", (r) => r.branches),
      ...countColumns<PlannedCoverageReport>("conditions", (r) => r.conditions),
    ],
    all((p) => p.coverageReports),
  );
  await writeCoverageFiles(plans, checkIds, write);

  await writeSettings(plans, repositoryIds, write);
  await write<PlannedIgnoreRule>(
    "ignore_rules",
    [
      c("key", "text", (r) => r.key),
      c("repository_id", "bigint", repoId),
      c("issue_id", "bigint", (r) => need(ctx.issueIds, r.issue, "issue")),
      c("level", "text", (r) => r.level),
      c("type", "text", (r) => r.type),
      c("file_path", "text", (r) => r.filePath),
      c("glob_pattern", "text", (r) => r.globPattern),
      c("created_by", "bigint", (r) =>
        r.createdByKey === null ? null : need(ctx.userIds, r.createdByKey, "user"),
      ),
      c("created_at", "timestamptz", (r) => r.createdAt),
    ],
    all((p) => p.ignoreRules),
  );

  const scaAnalyzerId = need(ctx.analyzerIds, "sca", "analyzer");
  for (const plan of plans) {
    // Each SBOM makes an artifact, an SCA check and the DDP value of its check, and the first
    // one the repository's DDP item unless the plan gave it one (with a threshold).
    for (const table of ["artifacts", "artifact_chunks", "sca_checks", "metric_values"])
      tally(table, plan.sboms);
    if (plan.sboms.length > 0 && !plan.metricItems.some((item) => item.metric === "DDP")) {
      tally("repository_metric_items", [plan]);
    }
    const { repository, runs } = replayed.get(plan)!;
    for (const sbom of plan.sboms) {
      const run = runs.get(sbom.runKey)!;
      const checkId = need(checkIds, sbom.checkKey, "check");
      await ctx.uploadSbom(db, {
        repository,
        run,
        check: { id: checkId, key: sbom.checkKey, run_id: run.id, analyzer_id: scaAnalyzerId },
        document: cycloneDxOf(sbom, plan.repository.name, run.commit_oid),
        reporter: "assay-demo",
      });
    }
  }
}

/** The four columns `<name>_total`, `_covered`, `_new`, `_new_covered` of one measure's counts. */
function countColumns<Row>(name: string, pick: (r: Row) => CoverageCounts | null): Column<Row>[] {
  return ["total", "covered", "new", "new_covered"].map((part, i) =>
    c<Row>(`${name}_${part}`, "integer", (r) => pick(r)?.[i] ?? null),
  );
}

type Write = <Row>(table: string, columns: Column<Row>[], rows: Row[]) => Promise<void>;

/**
 * The files of each coverage check (`coverage_check_files`), as coverage processing writes them:
 * one report per file, and the changed-line figures zero for files the run did not change.
 */
async function writeCoverageFiles(plans: RepositoryPlan[], checkIds: Map<string, string>, write: Write) {
  type Row = PlannedCoverageFile & { checkId: string };
  const rows: Row[] = plans.flatMap((plan) =>
    plan.coverageReports.flatMap((report) => {
      const checkId = need(checkIds, report.checkKey, "check");
      return report.files.map((file) => ({ ...file, checkId }));
    }),
  );
  await write<Row>(
    "coverage_check_files",
    [
      c("check_id", "bigint", (r) => r.checkId),
      c("metric_key", "text", (r) => r.metricKey),
      c("path", "text", (r) => r.path),
      c("reports", "integer", () => 1),
      ...countColumns<Row>("lines", (r) => r.lines),
      ...countColumns<Row>("branches", (r) => r.branches),
      ...countColumns<Row>("conditions", (r) => r.conditions),
      c("uncovered_lines", "integer[]", (r) => `{${r.uncoveredLines.join(",")}}`),
    ],
    rows,
  );
}

async function writeSettings(plans: RepositoryPlan[], repositoryIds: Map<string, string>, write: Write) {
  const rowsOf = <T>(pick: (plan: RepositoryPlan) => T[]): Array<T & { repositoryId: string }> =>
    plans.flatMap((plan) =>
      pick(plan).map((row) => ({ ...row, repositoryId: repositoryIds.get(plan.repository.key)! })),
    );
  type Of<K extends keyof PlannedSettings> = PlannedSettings[K][number] & { repositoryId: string };
  await write<Of<"metrics">>(
    "repository_metric_settings",
    [
      c("repository_id", "bigint", (r) => r.repositoryId),
      c("metric_shortcode", "text", (r) => r.metric),
      c("is_reported", "boolean", (r) => r.isReported),
      c("is_threshold_enforced", "boolean", (r) => r.isThresholdEnforced),
    ],
    rowsOf((p) => p.settings.metrics),
  );
  await write<Of<"categories">>(
    "repository_issue_category_settings",
    [
      c("repository_id", "bigint", (r) => r.repositoryId),
      c("category", "text", (r) => r.category),
      c("is_reported", "boolean", (r) => r.isReported),
      c("can_fail_check", "boolean", (r) => r.canFailCheck),
    ],
    rowsOf((p) => p.settings.categories),
  );
  await write<Of<"priorities">>(
    "repository_issue_priority_settings",
    [
      c("repository_id", "bigint", (r) => r.repositoryId),
      c("priority_type", "text", (r) => r.priority),
      c("is_reported", "boolean", (r) => r.isReported),
      c("can_fail_check", "boolean", (r) => r.canFailCheck),
    ],
    rowsOf((p) => p.settings.priorities),
  );
}
