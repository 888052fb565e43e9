import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/types.ts";
import type { NewAnalyzer, NewCodeFormatter, NewIssue } from "./catalog-store.ts";

/**
 * The upserts that make the database hold the built-in catalog (catalog-data.ts builds the rows).
 * Each inserts what is missing and rewrites only rows whose stored values differ, so a restart
 * leaves the tables untouched; each runs in the caller's transaction.
 */

const ANALYZER_COLUMNS = ["name", "description", "version", "meta_schema", "example_config", "logo_url"];
const ISSUE_COLUMNS = [
  "title",
  "description",
  "short_description",
  "category",
  "severity",
  "autofix_available",
  "autofix_ai_available",
  "is_recommended",
  "tags",
];
const FORMATTER_COLUMNS = ["name", "description", "example_config", "logo_url", "analyzer_id"];

/** Only rows whose stored values differ are rewritten. */
function changed(table: string, columns: string[]) {
  const stored = columns.map((c) => sql.ref(`${table}.${c}`));
  const incoming = columns.map((c) => sql.ref(`excluded.${c}`));
  return sql<boolean>`(${sql.join(stored)}) IS DISTINCT FROM (${sql.join(incoming)})`;
}

/** The incoming value of each of `columns`, for an upsert's `DO UPDATE SET`. */
function incomingValues(columns: string[]) {
  return Object.fromEntries(columns.map((c) => [c, sql.ref(`excluded.${c}`)]));
}

/** Upserts built-in analyzers by shortcode. */
export async function upsertBuiltinAnalyzers(
  trx: Kysely<Database>,
  rows: readonly NewAnalyzer[],
): Promise<void> {
  await trx
    .insertInto("analyzers")
    .values(rows)
    .onConflict((oc) =>
      oc
        .column("shortcode")
        .doUpdateSet(incomingValues(ANALYZER_COLUMNS))
        .where(changed("analyzers", ANALYZER_COLUMNS)),
    )
    .execute();
}

/** The internal id of each analyzer with one of `shortcodes`, by shortcode. */
export async function findAnalyzerIdsByShortcodes(
  trx: Kysely<Database>,
  shortcodes: readonly string[],
): Promise<Map<string, string>> {
  const stored = await trx
    .selectFrom("analyzers")
    .select(["id", "shortcode"])
    .where("shortcode", "in", shortcodes)
    .execute();
  return new Map(stored.map((row) => [row.shortcode, row.id]));
}

/** Upserts built-in issues by analyzer and shortcode. */
export async function upsertBuiltinIssues(trx: Kysely<Database>, rows: readonly NewIssue[]): Promise<void> {
  await trx
    .insertInto("issues")
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(["analyzer_id", "shortcode"])
        .where("account_id", "is", null)
        .doUpdateSet(incomingValues(ISSUE_COLUMNS))
        .where(changed("issues", ISSUE_COLUMNS)),
    )
    .execute();
}

/** Upserts built-in code formatters by shortcode. */
export async function upsertBuiltinFormatters(
  trx: Kysely<Database>,
  rows: readonly NewCodeFormatter[],
): Promise<void> {
  await trx
    .insertInto("code_formatters")
    .values(rows)
    .onConflict((oc) =>
      oc
        .column("shortcode")
        .doUpdateSet(incomingValues(FORMATTER_COLUMNS))
        .where(changed("code_formatters", FORMATTER_COLUMNS)),
    )
    .execute();
}
