import type { Kysely } from "kysely";
import type {
  AnalysisRunRow,
  AnalyzerRow,
  CheckRow,
  CheckStatus,
  CoverageReportRow,
  Database,
  FindingState,
  IssueRow,
  IssueSeverity,
  OccurrenceRow,
} from "../../src/db/types.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";
import { findBaseCheckId } from "../../src/modules/checks/check-store.ts";
import { refreshCheckIssueCounts } from "../../src/modules/checks/issue-count-store.ts";

/**
 * Builders for checks, their occurrences and coverage reports. Analyzers and issues come from
 * `builders-catalog.ts`, runs from `builders.ts`.
 */

let sequence = 0;

/**
 * Inserts the check of `analyzer` in `run`, compared (as ingestion would have compared it) with
 * the base check of the run's base run, when it has one.
 */
export async function aCheck(
  db: Kysely<Database>,
  run: AnalysisRunRow,
  analyzer: AnalyzerRow,
  fields: Partial<{ sequence: number; status: CheckStatus; createdAt: Date; finishedAt: Date | null }> = {},
): Promise<CheckRow> {
  const createdAt = fields.createdAt ?? new Date();
  const baseCheckId =
    run.base_run_id === null ? null : await findBaseCheckId(db, run.base_run_id, analyzer.id);
  return db
    .insertInto("checks")
    .values({
      key: newRowKey(),
      run_id: run.id,
      analyzer_id: analyzer.id,
      base_check_id: baseCheckId,
      sequence: fields.sequence ?? ++sequence,
      status: fields.status ?? "SUCCESS",
      created_at: createdAt,
      updated_at: createdAt,
      finished_at: fields.finishedAt === undefined ? createdAt : fields.finishedAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What one occurrence needs; everything but the issue defaults. */
export interface OccurrenceSpec {
  issue: IssueRow;
  path?: string;
  beginLine?: number;
  beginColumn?: number;
  endLine?: number;
  endColumn?: number;
  title?: string;
  explanation?: string | null;
  source?: "STATIC" | "AI";
  state?: FindingState;
  isSuppressed?: boolean;
  key?: string;
  /** The finding's own severity; null (the default) means its issue's. */
  severity?: IssueSeverity | null;
}

/**
 * Inserts occurrences found by `check`, in one statement, in the order given, and rewrites the
 * check's issue counts as every writer of findings does.
 */
export async function occurrencesIn(
  db: Kysely<Database>,
  check: CheckRow,
  specs: readonly OccurrenceSpec[],
): Promise<OccurrenceRow[]> {
  if (specs.length === 0) return [];
  const keys = specs.map((spec) => spec.key ?? newRowKey());
  const rows = await db
    .insertInto("occurrences")
    .values(
      specs.map((spec, i) => {
        const beginLine = spec.beginLine ?? 1;
        return {
          key: keys[i]!,
          check_id: check.id,
          issue_id: spec.issue.id,
          path: spec.path ?? "src/main.py",
          begin_line: beginLine,
          begin_column: spec.beginColumn ?? 1,
          end_line: spec.endLine ?? beginLine,
          end_column: spec.endColumn ?? 10,
          title: spec.title ?? spec.issue.title,
          explanation: spec.explanation ?? null,
          source: spec.source ?? "STATIC",
          fingerprint: keys[i]!,
          state: spec.state ?? "EXISTING",
          is_suppressed: spec.isSuppressed ?? false,
          severity: spec.severity ?? null,
        };
      }),
    )
    .returningAll()
    .execute();
  // As every writer of a check's findings does, in the product's own words.
  await refreshCheckIssueCounts(db, [check.id]);
  const byKey = new Map(rows.map((row) => [row.key, row]));
  return keys.map((key) => byKey.get(key)!);
}

/** Inserts one occurrence found by `check`. */
export async function anOccurrence(
  db: Kysely<Database>,
  check: CheckRow,
  spec: OccurrenceSpec,
): Promise<OccurrenceRow> {
  const [row] = await occurrencesIn(db, check, [spec]);
  return row!;
}

/** Inserts the coverage report of `check`; counts not given stay null. */
export function aCoverageReport(
  db: Kysely<Database>,
  check: CheckRow,
  counts: Partial<Omit<CoverageReportRow, "check_id">> = {},
): Promise<CoverageReportRow> {
  return db
    .insertInto("coverage_reports")
    .values({ ...counts, check_id: check.id })
    .returningAll()
    .executeTakeFirstOrThrow();
}
