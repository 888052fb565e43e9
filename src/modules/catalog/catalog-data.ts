import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database, IssueCategory } from "../../db/types.ts";
import {
  findAnalyzerIdsByShortcodes,
  upsertBuiltinAnalyzers,
  upsertBuiltinFormatters,
  upsertBuiltinIssues,
} from "./builtin-catalog-store.ts";
import type { NewIssue } from "./catalog-store.ts";
import {
  ANALYZERS,
  type AnalyzerDefinition,
  exampleConfigOf,
  FORMATTERS,
  LOGO_BASE_URL,
} from "./data/analyzers.ts";
import type { IssueDefinition } from "./data/rule.ts";
import { tagsFor } from "./data/standards.ts";

export type { AnalyzerDefinition, FormatterDefinition } from "./data/analyzers.ts";
export type { IssueDefinition } from "./data/rule.ts";
export { ANALYZERS, FORMATTERS };

/**
 * The built-in catalog: analyzers, their issues (rules) and code formatters. Every server upserts
 * it at start, so the catalog follows the code: a new rule appears after an upgrade, a reworded
 * title replaces the old one, and nothing is ever deleted (occurrences refer to issues).
 *
 * Row keys are derived from the shortcodes, so an issue has the same global id on every
 * installation and rows the catalog inserted keep theirs across upgrades.
 */

const KEY_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** A 10-character key derived from `name`: stable across installations. */
export function catalogKey(name: string): string {
  const digest = createHash("sha256").update(name).digest();
  let key = "";
  for (let i = 0; i < 10; i++) key += KEY_ALPHABET[digest[i]! % 36];
  return key;
}

/** AI Autofix applies to code-level findings, never to leaked secrets or missing coverage. */
function aiAutofix(category: IssueCategory): boolean | null {
  if (category === "SECRETS" || category === "COVERAGE") return false;
  if (category === "DOCUMENTATION" || category === "STYLE") return null;
  return true;
}

function issueRow(analyzerId: string, analyzer: AnalyzerDefinition, issue: IssueDefinition): NewIssue {
  return {
    key: catalogKey(`issue:${analyzer.shortcode}:${issue.shortcode}`),
    analyzer_id: analyzerId,
    shortcode: issue.shortcode,
    title: issue.title,
    description: `${issue.summary}\n\n${issue.detail}`,
    short_description: issue.summary,
    category: issue.category,
    severity: issue.severity,
    autofix_available: issue.autofix,
    autofix_ai_available: aiAutofix(issue.category),
    is_recommended: issue.recommended,
    tags: tagsFor(issue.category, issue.cwe, issue.misra),
  };
}

/** Upserts the catalog within `trx` (which the caller runs as one transaction). */
export async function upsertCatalog(trx: Kysely<Database>): Promise<void> {
  await upsertBuiltinAnalyzers(
    trx,
    ANALYZERS.map((a) => ({
      key: catalogKey(`analyzer:${a.shortcode}`),
      shortcode: a.shortcode,
      name: a.name,
      description: a.description,
      version: a.version,
      meta_schema: JSON.stringify(a.metaSchema),
      example_config: exampleConfigOf(a),
      logo_url: `${LOGO_BASE_URL}/analyzers/${a.shortcode}.svg`,
      type: "CORE" as const,
    })),
  );
  const idOf = await findAnalyzerIdsByShortcodes(
    trx,
    ANALYZERS.map((a) => a.shortcode),
  );
  await upsertBuiltinIssues(
    trx,
    ANALYZERS.flatMap((a) => a.issues.map((issue) => issueRow(idOf.get(a.shortcode)!, a, issue))),
  );
  await upsertBuiltinFormatters(
    trx,
    FORMATTERS.map((f) => ({
      key: catalogKey(`formatter:${f.shortcode}`),
      shortcode: f.shortcode,
      name: f.name,
      description: f.description,
      example_config: `[[transformers]]\nname = "${f.shortcode}"\n`,
      logo_url: `${LOGO_BASE_URL}/formatters/${f.shortcode}.svg`,
      analyzer_id: f.analyzer ? (idOf.get(f.analyzer) ?? null) : null,
    })),
  );
}

/**
 * Makes the database hold the built-in catalog: inserts missing analyzers, issues (by analyzer
 * and shortcode) and formatters, and updates changed ones, in one transaction. Safe to run at
 * every start and from several servers at once.
 */
export async function ensureCatalog(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute((trx) => upsertCatalog(trx));
}
