import type { Kysely } from "kysely";
import type { AnalyzerRow, Database, IssueRow } from "../../db/types.ts";

/**
 * The analyzer and issue catalog. It is global: every user may read it, so these lookups take no
 * viewer.
 */

/** Analyzers by key. */
export function findAnalyzersByKeys(db: Kysely<Database>, keys: readonly string[]): Promise<AnalyzerRow[]> {
  return db.selectFrom("analyzers").selectAll().where("key", "in", keys).execute();
}

/** Analyzers by internal id. */
export function findAnalyzersByIds(db: Kysely<Database>, ids: readonly string[]): Promise<AnalyzerRow[]> {
  return db.selectFrom("analyzers").selectAll().where("id", "in", ids).execute();
}

/** Analyzers by shortcode. */
export function findAnalyzersByShortcodes(
  db: Kysely<Database>,
  shortcodes: readonly string[],
): Promise<AnalyzerRow[]> {
  return db.selectFrom("analyzers").selectAll().where("shortcode", "in", shortcodes).execute();
}

/** Issues by key. */
export function findIssuesByKeys(db: Kysely<Database>, keys: readonly string[]): Promise<IssueRow[]> {
  return db.selectFrom("issues").selectAll().where("key", "in", keys).execute();
}

/** Issues by internal id. */
export function findIssuesByIds(db: Kysely<Database>, ids: readonly string[]): Promise<IssueRow[]> {
  return db.selectFrom("issues").selectAll().where("id", "in", ids).execute();
}
