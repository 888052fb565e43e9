import type { IssueCategory, IssueSeverity } from "../issue-vocabulary.ts";
import { type FamilyRow, familyRowOf, type LevelScale } from "./tool-families.ts";
import type { SarifLevel, SarifProperties, SarifResult, SarifRule, SarifTaxonRef } from "./types.ts";

/**
 * How what a tool wrote becomes Assay's category, severity and tags: of a rule's catalog issue
 * ({@link classifySarifRule}) and of one result's occurrence ({@link severityOfResult}). Pure;
 * the rules are documented, row by row, in docs/ingestion-sarif.md "Classification".
 *
 * Category, first that applies: SECRETS when the tags say so or the tool is a secret scanner;
 * SECURITY when the tags say so, name a CWE (also through `relationships`), or the rule has a
 * `security-severity`; the tool family's row (tool-families.ts); the other tag words; the words
 * of `properties.category`; else BUG_RISK for level `error`, ANTI_PATTERN otherwise.
 *
 * Severity, first that applies: the family row's fixed severity; `security-severity` (the
 * result's, else the rule's) by bands; the level on the family's scale. `precision: low` lowers
 * the last two one step.
 */

/** The issue fields a rule maps to. */
export interface IssueClassification {
  category: IssueCategory;
  severity: IssueSeverity;
  tags: string[];
}

/** What classification reads of a run's tool: its driver's name. */
export interface SarifToolName {
  name: string;
}

/** Category words of tags and of `properties.category`, in the order the groups are tried. */
const CATEGORY_WORDS: ReadonlyArray<[IssueCategory, ReadonlySet<string>]> = [
  ["SECRETS", new Set(["secret", "secrets", "credentials", "leaked-secret"])],
  ["SECURITY", new Set(["security", "vulnerability", "injection", "xss", "crypto", "owasp"])],
  ["PERFORMANCE", new Set(["performance", "perf", "efficiency"])],
  ["TYPECHECK", new Set(["typecheck", "type-check", "types", "type", "typing", "type-safety"])],
  ["DOCUMENTATION", new Set(["documentation", "docs", "doc", "jsdoc", "comments"])],
  [
    "STYLE",
    new Set([
      "style",
      "stylistic",
      "stylistic issues",
      "formatting",
      "layout",
      "naming",
      "convention",
      "readability",
    ]),
  ],
  [
    "BUG_RISK",
    new Set(["correctness", "bug", "bug-risk", "reliability", "error-prone", "problem", "possible errors"]),
  ],
  [
    "ANTI_PATTERN",
    new Set([
      "maintainability",
      "anti-pattern",
      "best-practice",
      "best practices",
      "suggestion",
      "code-smell",
      "complexity",
      "useless-code",
    ]),
  ],
];

/**
 * `security-severity` bands (GitHub code scanning's: critical ≥ 9.0, high ≥ 7.0, medium ≥ 4.0,
 * low below): critical is CRITICAL, high and medium are MAJOR, low is MINOR.
 */
export function severityOfScore(score: number): IssueSeverity {
  if (score >= 9) return "CRITICAL";
  return score >= 4 ? "MAJOR" : "MINOR";
}

const SCALES: Readonly<Record<LevelScale, Readonly<Record<SarifLevel, IssueSeverity>>>> = {
  lint: { error: "MAJOR", warning: "MINOR", note: "MINOR", none: "MINOR" },
  security: { error: "MAJOR", warning: "MAJOR", note: "MINOR", none: "MINOR" },
};

const ONE_STEP_DOWN: Readonly<Record<IssueSeverity, IssueSeverity>> = {
  CRITICAL: "MAJOR",
  MAJOR: "MINOR",
  MINOR: "MINOR",
};

const CWE = /(?:^|\/)cwe[-_/:]?0*(\d+)(?:$|:)/i;
const OWASP_2021 = /^owasp[-_ ]?a0?(\d{1,2}):2021\b/i;

/** A CWE tag's canonical form `cwe-<n>`, or null when the tag names no CWE. */
export function cweTagOf(tag: string): string | null {
  const match = CWE.exec(tag.trim());
  return match ? `cwe-${match[1]}` : null;
}

/** One tag in the form the reports read (`cwe-79`, `owasp-top-10-2021-a03`), else lower-cased. */
function normaliseTag(tag: string): string {
  const cwe = cweTagOf(tag);
  if (cwe !== null) return cwe;
  const owasp = OWASP_2021.exec(tag.trim());
  if (owasp) return `owasp-top-10-2021-a${owasp[1]!.padStart(2, "0")}`;
  return tag.trim().toLowerCase();
}

/** Tags normalised as described in docs/ingestion-sarif.md "Tags"; empty ones and duplicates dropped. */
export function normaliseTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map(normaliseTag).filter((tag) => tag !== ""))];
}

/** The `cwe-<n>` tags of taxa that are CWE entries (by their taxonomy's name or their id). */
function cweTagsOfTaxa(taxa: readonly SarifTaxonRef[]): string[] {
  return taxa.flatMap((taxon) => {
    if (taxon.taxonomy !== null && /^cwe$/i.test(taxon.taxonomy.trim()) && /^\d+$/.test(taxon.id.trim())) {
      return [`cwe-${Number(taxon.id)}`];
    }
    const tag = cweTagOf(taxon.id);
    return tag === null ? [] : [tag];
  });
}

/** The first category group one of `words` belongs to. */
function categoryOfWords(words: Iterable<string>): IssueCategory | null {
  const set = new Set(words);
  for (const [category, vocabulary] of CATEGORY_WORDS) {
    if ([...set].some((word) => vocabulary.has(word))) return category;
  }
  return null;
}

/** A tag's words: itself and its last `/` segment (`quality/performance` counts as performance). */
function tagWords(tags: readonly string[]): string[] {
  return tags.flatMap((tag) => [tag, tag.split("/").at(-1) ?? tag]);
}

/** The level `problem.severity` (CodeQL's) stands for. */
function levelOfProblemSeverity(value: string | null): SarifLevel | null {
  switch (value?.toLowerCase()) {
    case "error":
      return "error";
    case "warning":
      return "warning";
    case "recommendation":
      return "note";
    default:
      return null;
  }
}

/** The level a rule declares: `defaultConfiguration.level`, else its `problem.severity`; null when neither. */
export function declaredLevelOf(rule: SarifRule): SarifLevel | null {
  return rule.defaultLevel ?? levelOfProblemSeverity(rule.properties.problemSeverity);
}

/** The category steps 1-5 give (what the rule says of itself), or null when only its level is left. */
function statedCategoryOf(
  tags: readonly string[],
  properties: SarifProperties,
  row: FamilyRow | null,
): IssueCategory | null {
  const fromTags = categoryOfWords(tagWords(tags));
  if (fromTags === "SECRETS" || row?.category === "SECRETS") return "SECRETS";
  const namesCwe = row?.cweMeansSecurity !== false && tags.some((tag) => tag.startsWith("cwe-"));
  const security = namesCwe || properties.securitySeverity !== null;
  if (fromTags === "SECURITY" || security) return "SECURITY";
  if (row?.category) return row.category;
  if (fromTags !== null) return fromTags;
  const declared = properties.strings.category;
  const fromProperty = declared === undefined ? null : categoryOfWords([declared.trim().toLowerCase()]);
  return fromProperty;
}

/** Step 6 of "Category": a guess from the level alone. */
function categoryOfLevel(level: SarifLevel): IssueCategory {
  return level === "error" ? "BUG_RISK" : "ANTI_PATTERN";
}

/** The tags a rule's issue carries: its own and its CWE taxa's, normalised. */
function tagsOfRule(rule: SarifRule): string[] {
  return normaliseTags([...rule.properties.tags, ...cweTagsOfTaxa(rule.taxa)]);
}

function severityOf(
  row: FamilyRow | null,
  score: number | null,
  level: SarifLevel,
  precision: string | null,
): IssueSeverity {
  if (row?.severity) return row.severity;
  const severity = score !== null ? severityOfScore(score) : SCALES[row?.scale ?? "lint"][level];
  return precision?.toLowerCase() === "low" ? ONE_STEP_DOWN[severity] : severity;
}

/**
 * Classifies a rule for Assay's issue catalog. The level judged is the rule's declared one
 * ({@link declaredLevelOf}), else `observedLevel` (the highest its results had in the upload),
 * else `warning`, SARIF's default.
 */
export function classifySarifRule(
  tool: SarifToolName,
  rule: SarifRule,
  observedLevel: SarifLevel | null = null,
): IssueClassification {
  const tags = tagsOfRule(rule);
  const row = familyRowOf(tool.name, rule);
  const level = declaredLevelOf(rule) ?? observedLevel ?? "warning";
  return {
    category: statedCategoryOf(tags, rule.properties, row) ?? categoryOfLevel(level),
    severity: severityOf(row, rule.properties.securitySeverity, level, rule.properties.precision),
    tags,
  };
}

/**
 * Whether `rule`'s category is only a guess from a level (step 6 of "Category"): its tags, family
 * row and properties say nothing of what it finds. Such a category is not the rule's to change
 * once its issue is stored (docs/ingestion-sarif.md "Classification", "A stored category stays").
 */
export function isCategoryGuessedFromLevel(tool: SarifToolName, rule: SarifRule): boolean {
  return statedCategoryOf(tagsOfRule(rule), rule.properties, familyRowOf(tool.name, rule)) === null;
}

/**
 * The categories `rule` can end up in once its issue is graded by its results' levels: one, its
 * category, when it declares a level or its tags, family or properties decide the category; else
 * every category the level fallback gives (BUG_RISK for `error`, ANTI_PATTERN below it).
 */
export function possibleCategoriesOf(tool: SarifToolName, rule: SarifRule): IssueCategory[] {
  if (declaredLevelOf(rule) !== null) return [classifySarifRule(tool, rule).category];
  const levels: SarifLevel[] = ["error", "warning", "note", "none"];
  return [...new Set(levels.map((level) => classifySarifRule(tool, rule, level).category))];
}

/**
 * The severity of one result: the family's fixed severity, else the result's `security-severity`
 * (else the rule's), else its level — its own, else (for a `fail`) the rule's declared one, else
 * what the reader inferred — on the family's scale, lowered one step by `precision: low`.
 */
export function severityOfResult(tool: SarifToolName, result: SarifResult): IssueSeverity {
  const rule = result.rule;
  const row = familyRowOf(tool.name, rule ?? { id: result.ruleId, properties: result.properties });
  const declared = rule !== null && result.kind === "fail" ? declaredLevelOf(rule) : null;
  const level = result.ownLevel ?? declared ?? result.level;
  const score = result.properties.securitySeverity ?? rule?.properties.securitySeverity ?? null;
  const precision = result.properties.precision ?? rule?.properties.precision ?? null;
  return severityOf(row, score, level, precision);
}

/** The order of levels, to keep the highest one observed. */
const LEVEL_RANK: Readonly<Record<SarifLevel, number>> = { none: 0, note: 1, warning: 2, error: 3 };

/** The higher of two levels (null counts as lowest). */
export function higherLevel(a: SarifLevel | null, b: SarifLevel): SarifLevel {
  return a !== null && LEVEL_RANK[a] >= LEVEL_RANK[b] ? a : b;
}
