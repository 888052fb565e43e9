import { groupRows } from "../../graphql/context.ts";
import type { ReportView } from "./report-service.ts";
import type { ScopeCoverageRow, ScopePreventionRow } from "./report-store.ts";
import { accumulated } from "./series.ts";

/**
 * The report views that do not read default-branch snapshots of findings: issues prevented (events
 * in pull requests, accumulated), code coverage as an insight (a mean of the latest line coverage
 * values) and issues autofixed (nothing stored). The definitions are in docs/reports.md.
 */

/** A repository's findings prevented by one pull-request run, placed at that run's creation. */
export interface PreventionFact {
  repositoryId: string;
  key: string;
  at: number;
  prevented: number;
}

/** One recorded AGGREGATE line coverage value of a repository. */
export interface CoverageFact {
  repositoryId: string;
  key: string;
  at: number;
  value: number;
}

/** Groups the store's prevention rows per scope, in the order of `scopeIds`. */
export function preventionFactsOfScopes(
  scopeIds: readonly string[],
  rows: readonly ScopePreventionRow[],
): PreventionFact[][] {
  return groupRows(scopeIds, rows, (row) => row.scope_id).map((scopeRows) =>
    scopeRows.map((row) => ({
      repositoryId: row.repository_id,
      key: row.run_key,
      at: new Date(row.created_at).getTime(),
      prevented: Number(row.prevented),
    })),
  );
}

/** Groups the store's coverage rows per scope, in the order of `scopeIds`. */
export function coverageFactsOfScopes(
  scopeIds: readonly string[],
  rows: readonly ScopeCoverageRow[],
): CoverageFact[][] {
  return groupRows(scopeIds, rows, (row) => row.scope_id).map((scopeRows) =>
    scopeRows.map((row) => ({
      repositoryId: row.repository_id,
      key: row.value_key,
      at: new Date(row.created_at).getTime(),
      value: Number(row.value),
    })),
  );
}

const PREVENTED = "prevented";

/**
 * Issues prevented. The series machinery sums each repository's latest snapshot, so every fixing
 * run becomes a snapshot holding the repository's running total: the scope's sum at an instant is
 * then everything prevented before it. `total` is that level at the end of each day; `prevented`
 * is the day's growth (what was prevented on that day).
 */
export function preventedView(facts: readonly PreventionFact[], now: Date): ReportView {
  const runs = accumulated(
    facts.map((fact) => ({
      slot: fact.repositoryId,
      at: fact.at,
      key: fact.key,
      counts: new Map([[PREVENTED, fact.prevented]]),
    })),
    PREVENTED,
  );
  return {
    key: "ISSUES_PREVENTED",
    title: "Issues Prevented",
    headline: { count: PREVENTED },
    series: [
      { key: "prevented", measure: { count: PREVENTED }, perDay: true },
      { key: "total", measure: { count: PREVENTED } },
    ],
    items: [],
    now,
    runs,
  };
}

const MILLION = 1_000_000;

/**
 * Code coverage as an insight: the mean, over the scope's repositories that recorded one, of each
 * repository's latest AGGREGATE line coverage, rounded to a whole percent; null when none did.
 */
export function coverageInsightView(facts: readonly CoverageFact[], now: Date): ReportView {
  const lineCoverage = { count: "lcv", per: "repositories" };
  return {
    key: "CODE_COVERAGE",
    title: "Code Coverage",
    headline: lineCoverage,
    series: [{ key: "lcv", measure: lineCoverage }],
    items: [],
    now,
    runs: facts.map((fact) => ({
      slot: fact.repositoryId,
      at: fact.at,
      key: fact.key,
      // In millionths, so the sweep's sums and differences stay exact integers; the divisor is
      // scaled alike, so the mean comes out in percent.
      counts: new Map([
        ["lcv", Math.round(fact.value * MILLION)],
        ["repositories", MILLION],
      ]),
    })),
  };
}

/** Issues autofixed: Assay receives findings, never fixes, so there is nothing to count. */
export function autofixedView(now: Date): ReportView {
  return {
    key: "ISSUES_AUTOFIXED",
    title: "Issues Autofixed",
    headline: null,
    series: [],
    items: [],
    now,
    runs: [],
  };
}
