import type { IssueCategory, IssueSeverity } from "../../db/types.ts";
import { groupRows } from "../../graphql/context.ts";
import { badUserInput } from "../../graphql/errors.ts";
import { ISSUE_CATEGORIES } from "../catalog/issue-categories.ts";
import type { ScopeCheckIssueRow } from "./report-store.ts";
import {
  accumulated,
  countsAt,
  currentCounts,
  daysBetween,
  type RunCounts,
  TREND_MONTHS,
  type TrendValue,
  trendLabel,
  trendsOf,
} from "./series.ts";
import { COMPLIANCE_STANDARDS, type ComplianceItem, type ComplianceReportKey } from "./standards.ts";

/**
 * Builds the reports of a scope (an account or one repository) from the per-issue counts of the
 * checks that can hold its repositories' current findings (docs/read-model.md "The repository's
 * current findings"). The formulas are in docs/reports.md.
 */

/** One issue's counts in one check. */
export interface IssueFact {
  category: IssueCategory;
  severity: IssueSeverity;
  tags: readonly string[];
  analyzerShortcode: string;
  open: number;
  resolved: number;
}

/**
 * One check that can hold a repository's current findings for its analyzer, placed in time by its
 * run, with its issues' counts. At an instant, a repository's snapshot is the newest such check of
 * each analyzer created before it.
 */
export interface CheckFact {
  repositoryId: string;
  analyzerId: string;
  /** Its run's key, which breaks ties between runs created at the same instant. */
  runKey: string;
  at: number;
  issues: IssueFact[];
}

/** Groups the store's rows per scope and check, in the order of `scopeIds`. */
export function checkFactsOfScopes(
  scopeIds: readonly string[],
  rows: readonly ScopeCheckIssueRow[],
): CheckFact[][] {
  return groupRows(scopeIds, rows, (row) => row.scope_id).map((scopeRows) => {
    const checks = new Map<string, CheckFact>();
    for (const row of scopeRows) {
      const id = `${row.run_key}:${row.analyzer_id}`;
      let check = checks.get(id);
      if (!check) {
        check = {
          repositoryId: row.repository_id,
          analyzerId: row.analyzer_id,
          runKey: row.run_key,
          at: new Date(row.created_at).getTime(),
          issues: [],
        };
        checks.set(id, check);
      }
      if (row.issue_id !== null) {
        check.issues.push({
          category: row.category!,
          severity: row.severity!,
          tags: row.tags ?? [],
          analyzerShortcode: row.analyzer_shortcode!,
          open: Number(row.open),
          resolved: Number(row.resolved),
        });
      }
    }
    return [...checks.values()];
  });
}

/** The report keys of the contract's `ReportKey` enum. */
export type ReportKey =
  | ComplianceReportKey
  | "CODE_COVERAGE"
  | "CODE_HEALTH_TREND"
  | "ISSUE_DISTRIBUTION"
  | "ISSUES_PREVENTED"
  | "ISSUES_AUTOFIXED";

export type ReportStatus = "PASSING" | "FAILING" | "NOOP";

/** What a report's number reads from a snapshot's summed counts. */
export interface Measure {
  /** The named count. */
  count: string;
  /**
   * When set, the number is `count` divided by this count, rounded to an integer (a mean over the
   * repositories that have a value); null when this count is 0.
   */
  per?: string;
  /**
   * When set, the number is unknown (null) while this count is 0: a snapshot report knows nothing
   * before any repository in scope has an analysed run, which is not the same as counting 0.
   */
  requires?: string;
}

/** One daily series of a report: its key in `values` and what it reads. */
export interface Series {
  key: string;
  measure: Measure;
  /**
   * True for a series of events: its value is how much the count grew during the day, not the
   * level at the end of it. Only for plain counts (no `per`).
   */
  perDay?: boolean;
}

/** Everything a report's fields answer from; built once per report and scope. */
export interface ReportView {
  key: ReportKey;
  title: string;
  /**
   * The headline number. Null when Assay stores nothing the report could count (issues
   * autofixed): the headline and trends are null and `values` is empty.
   */
  headline: Measure | null;
  series: readonly Series[];
  runs: readonly RunCounts[];
  /** The compliance items, for `securityIssueStats`; empty for other reports. */
  items: readonly ComplianceItem[];
  now: Date;
  /** The GraphQL type to answer as through the `Report` interface, when not the key's default. */
  typeName?: string;
}

const TOTAL = "total";
/** Findings resolved, summed over each analyzer's checks so far (see {@link accumulated}). */
const RESOLVED = "resolved so far";
/**
 * Counts 1 per check, so its sum at an instant is how many analyzers of the scope's repositories
 * have a current check then: 0 while nothing in scope has been analysed.
 */
const ANALYSED = "analysed analyzers";

/** The number `measure` reads from `counts`; null when it is unknown or a mean over nothing. */
export function readMeasure(counts: ReadonlyMap<string, number>, measure: Measure): number | null {
  if (measure.requires !== undefined && (counts.get(measure.requires) ?? 0) === 0) return null;
  const value = counts.get(measure.count) ?? 0;
  if (measure.per === undefined) return value;
  const per = counts.get(measure.per) ?? 0;
  return per === 0 ? null : Math.round(value / per);
}

/** A count of the repositories' current findings, unknown before any of them was analysed. */
function snapshotOf(count: string): Measure {
  return { count, requires: ANALYSED };
}

/**
 * Each check's named counts, and {@link ANALYSED}, in the slot of its repository and analyzer: a
 * newer check of the same analyzer replaces it.
 */
function checkCounts(
  checks: readonly CheckFact[],
  count: (issue: IssueFact, add: (name: string, n: number) => void) => void,
) {
  return checks.map((check): RunCounts => {
    const counts = new Map<string, number>();
    const add = (name: string, n: number) => {
      if (n !== 0) counts.set(name, (counts.get(name) ?? 0) + n);
    };
    add(ANALYSED, 1);
    for (const issue of check.issues) count(issue, add);
    return { slot: `${check.repositoryId}:${check.analyzerId}`, at: check.at, key: check.runKey, counts };
  });
}

/** A compliance report: open occurrences of issues that belong to at least one of its items. */
export function complianceView(
  key: ComplianceReportKey,
  checks: readonly CheckFact[],
  now: Date,
): ReportView {
  const standard = COMPLIANCE_STANDARDS[key];
  return {
    key,
    title: standard.title,
    headline: snapshotOf(TOTAL),
    series: standard.items.map((item) => ({ key: item.key, measure: snapshotOf(item.key) })),
    items: standard.items,
    now,
    runs: checkCounts(checks, (issue, add) => {
      const items = standard.itemsOfTags(issue.tags);
      if (items.length === 0 || issue.open === 0) return;
      add(TOTAL, issue.open);
      for (const item of items) {
        add(item, issue.open);
        add(`${item}:${issue.severity}`, issue.open);
      }
    }),
  };
}

/** The issue distribution: open occurrences by category and by analyzer. */
export function distributionView(checks: readonly CheckFact[], now: Date): ReportView {
  return {
    key: "ISSUE_DISTRIBUTION",
    title: "Issue Distribution",
    headline: snapshotOf(TOTAL),
    series: ISSUE_CATEGORIES.map((category) => ({
      key: category,
      measure: snapshotOf(`category:${category}`),
    })),
    items: [],
    now,
    runs: checkCounts(checks, (issue, add) => {
      add(TOTAL, issue.open);
      add(`category:${issue.category}`, issue.open);
      add(`analyzer:${issue.analyzerShortcode}`, issue.open);
    }),
  };
}

/**
 * The code health trend: open (active) occurrences of the current findings, a level, and
 * occurrences resolved, an event count: each check's `resolved` is what it is the first of its
 * analyzer's checks to be without (`findScopeCheckIssueCounts`), so each fix is counted once, on
 * the day of the run that found it gone, also when two overlapping runs share a base.
 */
export function healthTrendView(checks: readonly CheckFact[], now: Date): ReportView {
  return {
    key: "CODE_HEALTH_TREND",
    title: "Code Health Trend",
    headline: snapshotOf("active"),
    series: [
      { key: "active", measure: snapshotOf("active") },
      { key: "resolved", measure: snapshotOf(RESOLVED), perDay: true },
    ],
    items: [],
    now,
    runs: accumulated(
      checkCounts(checks, (issue, add) => {
        add("active", issue.open);
        add(RESOLVED, issue.resolved);
      }),
      RESOLVED,
    ),
  };
}

/** The headline number now; null when the report has none (see {@link ReportView.headline}). */
export function currentValueOf(view: ReportView): number | null {
  return view.headline === null ? null : readMeasure(currentCounts(view.runs), view.headline);
}

/** PASSING when nothing is open, FAILING otherwise, NOOP when nothing in scope has been analysed. */
export function statusOf(view: ReportView): ReportStatus {
  if (view.runs.length === 0) return "NOOP";
  return currentValueOf(view) === 0 ? "PASSING" : "FAILING";
}

/** `ReportValueItem`: one day and the report's series as of its end. */
export interface DailyValues {
  date: string;
  values: Array<{ key: string; value: number }>;
}

/** The days of `values(startDate, endDate)`; a reversed or too long range is an input error. */
function daysOfRange(startDate: string, endDate: string) {
  try {
    return daysBetween(startDate, endDate);
  } catch (error) {
    if (error instanceof RangeError) throw badUserInput(error.message, "endDate");
    throw error;
  }
}

/**
 * Each day of the range with the series as of the end of that day (UTC); a series of events
 * (`perDay`) gives the day's growth instead. A series with no value on a day (unknown then, or a
 * mean over no repository) is left out of that day: `ReportValue.value` cannot be null. Empty
 * when the report has no headline.
 */
export function valuesOf(view: ReportView, startDate: string, endDate: string): DailyValues[] {
  const days = daysOfRange(startDate, endDate);
  if (view.headline === null) return [];
  const ends = countsAt(
    view.runs,
    days.map((day) => day.end),
  );
  const starts = view.series.some((series) => series.perDay)
    ? countsAt(
        view.runs,
        days.map((day) => day.start),
      )
    : [];
  return days.map((day, i) => ({
    date: day.date,
    values: view.series.flatMap((series) => {
      const end = readMeasure(ends[i]!, series.measure);
      // A level unknown at the day's start (nothing analysed yet) grew from nothing.
      const value =
        end === null || !series.perDay ? end : end - (readMeasure(starts[i]!, series.measure) ?? 0);
      return value === null ? [] : [{ key: series.key, value }];
    }),
  }));
}

/** The headline number against 1, 3, 6 and 12 months ago; all null without a headline. */
export function trendsOfView(view: ReportView): TrendValue[] {
  const { headline } = view;
  if (headline === null) {
    return TREND_MONTHS.map((months) => ({ label: trendLabel(months), value: null, changePercentage: null }));
  }
  return trendsOf(view.runs, (counts) => readMeasure(counts, headline), view.now);
}

/**
 * `SecurityIssueStat`: an item with its open occurrences by severity; each count null while
 * nothing in scope has been analysed (not known, which is not 0).
 */
export interface ItemStat {
  key: string;
  title: string;
  occurrence: { critical: number | null; major: number | null; minor: number | null; total: number | null };
}

/**
 * Every item of a compliance report, in display order, with its current counts. Before any
 * repository in scope has an analysed run, the items are still listed (the standard's items are
 * known) but every count is null, as `currentValue` is: the contract types these counts as
 * nullable `Int`, and 0 would say that the scope was analysed and found clean.
 */
export function itemStatsOf(view: ReportView): ItemStat[] {
  const counts = currentCounts(view.runs);
  const known = (counts.get(ANALYSED) ?? 0) > 0;
  const count = (name: string) => (known ? (counts.get(name) ?? 0) : null);
  return view.items.map((item) => ({
    key: item.key,
    title: item.title,
    occurrence: {
      critical: count(`${item.key}:CRITICAL`),
      major: count(`${item.key}:MAJOR`),
      minor: count(`${item.key}:MINOR`),
      total: count(item.key),
    },
  }));
}

/** Named current counts with a prefix (`category:`, `analyzer:`), without the prefix. */
export function currentCountsWithPrefix(
  view: ReportView,
  prefix: string,
): Array<{ key: string; value: number }> {
  return [...currentCounts(view.runs)]
    .filter(([name, value]) => name.startsWith(prefix) && value > 0)
    .map(([name, value]) => ({ key: name.slice(prefix.length), value }));
}

/** Whose reports: an account (all its repositories) or one repository. */
export interface ReportScope {
  kind: "account" | "repository";
  id: string;
}
