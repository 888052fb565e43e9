import type { Kysely } from "kysely";
import type {
  AccountRow,
  AnalyzerRow,
  AnalyzerType,
  CodeFormatterRow,
  Database,
  IssueCategory,
  IssueRow,
  IssueSeverity,
} from "../../src/db/types.ts";
import { newRowKey } from "../../src/graphql/global-id.ts";
import {
  insertAnalyzers,
  insertCodeFormatters,
  insertIssues,
} from "../../src/modules/catalog/catalog-store.ts";

/**
 * Builders for the global catalog: analyzers, their issues, and code formatters. Shortcodes are
 * unique by default, so tests sharing a database never collide.
 */

let counter = 0;
const unique = (prefix: string) => `${prefix}${String(++counter).padStart(5, "0")}${newRowKey().slice(0, 4)}`;

/** What a test may set on an analyzer. */
export interface AnalyzerFields {
  shortcode: string;
  name: string;
  description: string;
  version: string;
  metaSchema: unknown;
  exampleConfig: string | null;
  logo: string | null;
  type: AnalyzerType;
}

/** Inserts analyzers in one statement; answers them in the order of `fields`. */
export async function analyzersIn(
  db: Kysely<Database>,
  fields: ReadonlyArray<Partial<AnalyzerFields>>,
): Promise<AnalyzerRow[]> {
  const values = fields.map((f) => {
    const shortcode = f.shortcode ?? unique("analyzer");
    return {
      key: newRowKey(),
      shortcode,
      name: f.name ?? `Analyzer ${shortcode}`,
      description: f.description ?? "",
      version: f.version ?? "1.0.0",
      meta_schema: JSON.stringify(f.metaSchema ?? {}),
      example_config: f.exampleConfig ?? null,
      logo_url: f.logo ?? null,
      type: f.type ?? "CORE",
    };
  });
  return inOrder(
    values.map((v) => v.key),
    await insertAnalyzers(db, values),
  );
}

/** Inserts one analyzer. */
export async function anAnalyzer(
  db: Kysely<Database>,
  fields: Partial<AnalyzerFields> = {},
): Promise<AnalyzerRow> {
  const [analyzer] = await analyzersIn(db, [fields]);
  return analyzer!;
}

/** What a test may set on an issue. */
export interface IssueFields {
  shortcode: string;
  title: string;
  category: IssueCategory;
  severity: IssueSeverity;
  tags: string[];
  autofixAvailable: boolean;
  isRecommended: boolean;
  /** The account whose own issue it is (as its uploads file them); none for the shared catalog. */
  account: AccountRow | null;
}

/** Inserts issues of (each) analyzer in one statement; answers them in the order given. */
export async function issuesIn(
  db: Kysely<Database>,
  issues: ReadonlyArray<{ analyzer: AnalyzerRow } & Partial<IssueFields>>,
): Promise<IssueRow[]> {
  const values = issues.map((f) => {
    const shortcode = f.shortcode ?? unique("ISS-");
    return {
      key: newRowKey(),
      analyzer_id: f.analyzer.id,
      shortcode,
      title: f.title ?? `Issue ${shortcode}`,
      description: `About ${shortcode}.`,
      short_description: `${shortcode} in short.`,
      category: f.category ?? "BUG_RISK",
      severity: f.severity ?? "MAJOR",
      tags: f.tags ?? [],
      autofix_available: f.autofixAvailable ?? false,
      is_recommended: f.isRecommended ?? false,
      account_id: f.account?.id ?? null,
    };
  });
  return inOrder(
    values.map((v) => v.key),
    await insertIssues(db, values),
  );
}

/** Inserts one issue of `analyzer`. */
export async function anIssue(
  db: Kysely<Database>,
  analyzer: AnalyzerRow,
  fields: Partial<IssueFields> = {},
): Promise<IssueRow> {
  const [issue] = await issuesIn(db, [{ analyzer, ...fields }]);
  return issue!;
}

/** What a test may set on a code formatter. */
export interface CodeFormatterFields {
  shortcode: string;
  name: string;
  description: string;
  exampleConfig: string | null;
  logo: string | null;
  analyzer: AnalyzerRow | null;
}

/** Inserts code formatters in one statement; answers them in the order given. */
export async function codeFormattersIn(
  db: Kysely<Database>,
  fields: ReadonlyArray<Partial<CodeFormatterFields>>,
): Promise<CodeFormatterRow[]> {
  const values = fields.map((f) => {
    const shortcode = f.shortcode ?? unique("formatter");
    return {
      key: newRowKey(),
      shortcode,
      name: f.name ?? `Formatter ${shortcode}`,
      description: f.description ?? "",
      example_config: f.exampleConfig ?? null,
      logo_url: f.logo ?? null,
      analyzer_id: f.analyzer?.id ?? null,
    };
  });
  return inOrder(
    values.map((v) => v.key),
    await insertCodeFormatters(db, values),
  );
}

/** Inserts one code formatter. */
export async function aCodeFormatter(
  db: Kysely<Database>,
  fields: Partial<CodeFormatterFields> = {},
): Promise<CodeFormatterRow> {
  const [formatter] = await codeFormattersIn(db, [fields]);
  return formatter!;
}

/**
 * Empties the catalog: analyzers (with their issues) and code formatters. The catalog is global,
 * so a test asserting whole-catalog answers (`analyzers`, `codeFormatters`) starts from nothing.
 */
export async function emptyCatalog(db: Kysely<Database>): Promise<void> {
  await db.deleteFrom("code_formatters").execute();
  await db.deleteFrom("analyzers").execute();
}

function inOrder<R extends { key: string }>(keys: readonly string[], rows: readonly R[]): R[] {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  return keys.map((key) => byKey.get(key)!);
}
