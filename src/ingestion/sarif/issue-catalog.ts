import type { Kysely } from "kysely";
import type { AnalyzerType, Database, IssueCategory, IssueSeverity } from "../../db/types.ts";
import {
  classifySarifRule,
  declaredLevelOf,
  higherLevel,
  type IssueClassification,
  isCategoryGuessedFromLevel,
  possibleCategoriesOf,
  type SarifToolName,
} from "../../formats/sarif/mapping.ts";
import type { SarifLevel, SarifResult, SarifRule, SarifTool } from "../../formats/sarif/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import {
  findAnalyzerByShortcode,
  findIssueCategoriesByShortcodes,
  updateIssueGrades,
  upsertIssues,
} from "../../modules/catalog/catalog-store.ts";
import { withStandardTags } from "../../modules/catalog/data/standards.ts";

/**
 * The catalog side of SARIF processing (docs/ingestion-sarif.md "Classification"): the analyzer an
 * artifact's findings are filed under, and its issues, created or updated as the report's rules
 * arrive.
 */

/** The analyzer an artifact's findings are filed under. */
export interface AnalyzerRef {
  id: string;
  shortcode: string;
  type: AnalyzerType;
}

/** A rule's catalog issue: its id, and its category, which with each finding's severity decides whether the finding is stored. */
export interface IssueRef {
  id: string;
  category: IssueCategory;
}

/** The issue columns a SARIF rule decides. */
interface IssueFields {
  shortcode: string;
  title: string;
  description: string;
  short_description: string;
  category: IssueCategory;
  severity: IssueSeverity;
  tags: string[];
}

/** Issue fields to file, and whether their category is only a guess from a level. */
interface IssueDraft {
  fields: IssueFields;
  guessedCategory: boolean;
}

/** The issue description: the rule's help or description, and its documentation link. */
function descriptionOf(rule: SarifRule): string {
  const text = rule.help || rule.fullDescription || rule.shortDescription || "";
  if (!rule.helpUri) return text;
  return text === "" ? rule.helpUri : `${text}\n\n${rule.helpUri}`;
}

/**
 * The rule's classification, its tags completed by the OWASP and SANS tags its CWE tags imply, as
 * every issue of the catalog carries them (docs/read-model.md).
 */
function classified(tool: SarifToolName, rule: SarifRule, level?: SarifLevel): IssueClassification {
  const classification = classifySarifRule(tool, rule, level);
  return { ...classification, tags: withStandardTags(classification.tags) };
}

/** The issue a described rule becomes; `shortcode` is the id results use (usually the rule's). */
function describedIssue(tool: SarifToolName, rule: SarifRule, shortcode: string): IssueDraft {
  const fields = {
    shortcode,
    title: rule.shortDescription || rule.name || shortcode,
    description: descriptionOf(rule),
    short_description: rule.shortDescription ?? "",
    ...classified(tool, rule),
  };
  return { fields, guessedCategory: isCategoryGuessedFromLevel(tool, rule) };
}

/**
 * The rule a result names when the driver does not describe it: its id, and the result's own
 * properties and taxa standing for the rule's.
 */
function undescribedRule(result: SarifResult): SarifRule {
  return {
    id: result.ruleId,
    index: -1,
    name: null,
    shortDescription: null,
    fullDescription: null,
    help: null,
    helpUri: null,
    defaultLevel: null,
    properties: result.properties,
    taxa: result.taxa,
    messageStrings: {},
  };
}

/** The issue of a rule the driver does not describe: its id as title, classified by the result. */
function undescribedIssue(tool: SarifToolName, rule: SarifRule, level: SarifLevel): IssueDraft {
  const fields = {
    shortcode: rule.id,
    title: rule.id,
    description: "",
    short_description: "",
    ...classified(tool, rule, level),
  };
  return { fields, guessedCategory: isCategoryGuessedFromLevel(tool, rule) };
}

/**
 * A rule whose issue this artifact filed without a declared level (docs/ingestion-sarif.md): its
 * severity follows the highest level its findings had, once the report is read.
 */
interface UngradedRule {
  tool: SarifToolName;
  rule: SarifRule;
  /** The highest level of its results so far. */
  observed: SarifLevel | null;
}

/** The analyzer with `shortcode`; throws when the catalog has none. */
export async function findAnalyzer(tx: Kysely<Database>, shortcode: string): Promise<AnalyzerRef> {
  const analyzer = await findAnalyzerByShortcode(tx, shortcode);
  if (!analyzer) throw new Error(`The analyzer "${shortcode}" of the artifact is not in the catalog.`);
  return { id: analyzer.id, shortcode: analyzer.shortcode, type: analyzer.type };
}

/**
 * The analyzer's issues by rule id, as the uploading repository's account reads them
 * (docs/ingestion-sarif.md "An account's issues are its own"). A rule the shared catalog has is
 * filed under the shared issue, which no upload rewrites; any other rule under an issue of the
 * account's own, created as the report's rules arrive. A COMMUNITY analyzer's own issues follow the
 * account's uploads (a changed rule rewrites its issue); a CORE analyzer's are only added to.
 */
export class IssueCatalog {
  private readonly byRule = new Map<string, IssueRef>();
  /** Rules met in a result before any run described them (filed with their id as title). */
  private readonly undescribed = new Set<string>();
  /** Rules filed by this artifact without a declared level, by id (see {@link UngradedRule}). */
  private readonly ungraded = new Map<string, UngradedRule>();
  /** Issues this artifact inserted or rewrote, by shortcode. */
  private readonly written = new Set<string>();
  /** Issues this artifact inserted, by shortcode: the only ones whose category a level may decide. */
  private readonly inserted = new Set<string>();
  /** Rules filed under an issue of the account's own (not a shared one), by shortcode. */
  private readonly owned = new Set<string>();

  constructor(
    private readonly tx: Kysely<Database>,
    private readonly analyzer: AnalyzerRef,
    /** The account of the uploading repository: the owner of the issues this artifact files. */
    private readonly accountId: string,
  ) {}

  /** The shared and the account's own issues of the analyzer with these shortcodes. */
  private storedIssues(shortcodes: readonly string[]) {
    return findIssueCategoriesByShortcodes(this.tx, this.analyzer.id, this.accountId, shortcodes);
  }

  /** Distinct rules met so far. */
  get size(): number {
    return this.byRule.size;
  }

  /**
   * Files the rules a run's tool describes, its driver's then its extensions' (within one
   * artifact, the first description of an id wins).
   */
  async describe(tool: SarifTool): Promise<void> {
    const fresh = new Map<string, { rule: SarifRule; draft: IssueDraft }>();
    for (const rule of [...tool.rules, ...tool.extensions.flatMap((extension) => extension.rules)]) {
      const known = this.byRule.has(rule.id) && !this.undescribed.has(rule.id);
      if (!known && !fresh.has(rule.id))
        fresh.set(rule.id, { rule, draft: describedIssue(tool, rule, rule.id) });
    }
    const all = [...fresh.values()];
    for (let start = 0; start < all.length; start += 500) {
      const slice = all.slice(start, start + 500);
      await this.upsert(
        slice.map((entry) => entry.draft),
        this.analyzer.type === "COMMUNITY",
      );
      for (const { rule } of slice) {
        this.undescribed.delete(rule.id);
        // A rule met undescribed earlier in the artifact is graded as now described, by the
        // levels seen so far and those to come.
        const earlier = this.ungraded.get(rule.id);
        this.ungraded.delete(rule.id);
        this.noteUngraded(tool, rule, earlier?.observed ?? null);
      }
    }
  }

  /** The issue of a rule met before, if any (no query). */
  known(ruleId: string): IssueRef | undefined {
    return this.byRule.get(ruleId);
  }

  /** The issue of `result`'s rule, filed now when no run described it. */
  async issueFor(result: SarifResult, tool: SarifToolName): Promise<IssueRef> {
    const known = this.byRule.get(result.ruleId);
    if (known) return known;
    if (result.rule) {
      // A rule found by index under another id (`CA2000/1`): described, so filed like the others.
      const draft = describedIssue(tool, result.rule, result.ruleId);
      await this.upsert([draft], this.analyzer.type === "COMMUNITY");
      this.noteUngraded(tool, { ...result.rule, id: result.ruleId }, null);
    } else {
      // Never overwrites an issue described before (by an earlier upload).
      const rule = undescribedRule(result);
      const draft = undescribedIssue(tool, rule, result.level);
      await this.upsert([draft], false);
      this.undescribed.add(result.ruleId);
      this.noteUngraded(tool, rule, result.level);
    }
    return this.byRule.get(result.ruleId)!;
  }

  /**
   * The categories the issue of `ruleId` can have once this artifact's publication grades it
   * (see {@link gradeByObservedLevels}): its category now, and, for a rule graded by its
   * findings whose category follows their level, the others it may take.
   */
  possibleCategories(ruleId: string, category: IssueCategory): IssueCategory[] {
    const ungraded = this.ungraded.get(ruleId);
    if (!ungraded || !this.mayGradeCategory(ungraded)) return [category];
    return [...new Set([category, ...possibleCategoriesOf(ungraded.tool, ungraded.rule)])];
  }

  /** Notes the level of one of `result`'s rule's findings, for a rule graded by its findings. */
  observe(result: SarifResult): void {
    const ungraded = this.ungraded.get(result.ruleId);
    if (ungraded) ungraded.observed = higherLevel(ungraded.observed, result.level);
  }

  /**
   * Grades the issues of rules without a declared level by the highest level their findings had
   * in this artifact (docs/ingestion-sarif.md "Classification"): their severity, and their
   * category where it follows the level and this artifact filed the issue (a stored category
   * stays). The store rewrites only the issues this changes. Answers each graded issue's
   * category, by issue id.
   */
  async gradeByObservedLevels(tx: Kysely<Database>): Promise<Map<string, IssueCategory>> {
    const grades = [...this.ungraded.entries()].flatMap(([ruleId, entry]) => {
      const issue = this.byRule.get(ruleId);
      if (entry.observed === null || issue === undefined) return [];
      const graded = classifySarifRule(entry.tool, entry.rule, entry.observed);
      const category = this.mayGradeCategory(entry) ? graded.category : issue.category;
      return [{ id: issue.id, severity: graded.severity, category }];
    });
    await updateIssueGrades(tx, this.accountId, grades);
    return new Map(grades.map((grade) => [grade.id, grade.category]));
  }

  /**
   * Whether this artifact's levels may decide the category of `entry`'s issue: only a guess from
   * the level is graded, and only on an issue this artifact inserted, so no later upload (of this
   * repository or another's) changes the category its findings are read under.
   */
  private mayGradeCategory(entry: UngradedRule): boolean {
    return this.inserted.has(entry.rule.id) && isCategoryGuessedFromLevel(entry.tool, entry.rule);
  }

  /**
   * Keeps `rule` for grading by its findings when it declares no level and this artifact decides
   * its issue: only an issue of the account's own, a COMMUNITY analyzer's as its uploads go, a
   * CORE analyzer's only when this artifact inserted it. A shared issue is never graded.
   */
  private noteUngraded(tool: SarifToolName, rule: SarifRule, observed: SarifLevel | null): void {
    if (declaredLevelOf(rule) !== null) return;
    if (!this.owned.has(rule.id)) return;
    if (this.analyzer.type !== "COMMUNITY" && !this.written.has(rule.id)) return;
    if (!this.ungraded.has(rule.id)) this.ungraded.set(rule.id, { tool, rule, observed });
  }

  /**
   * Files `drafts` as the account's own issues, except those the shared catalog has (left as they
   * are): inserts them, updating changed ones when `update`; then notes each one's id, and which
   * ones this statement inserted or rewrote.
   */
  private async upsert(drafts: IssueDraft[], update: boolean): Promise<void> {
    if (drafts.length === 0) return;
    const shortcodes = drafts.map((draft) => draft.fields.shortcode);
    const shared = new Set(
      (await this.storedIssues(shortcodes))
        .filter((issue) => issue.account_id === null)
        .map((i) => i.shortcode),
    );
    const own = drafts.filter((draft) => !shared.has(draft.fields.shortcode));
    // An own issue's key is random: its id tells nothing of the account, the analyzer or the rule.
    const toRow = ({ fields }: IssueDraft) => ({
      ...fields,
      key: newRowKey(),
      analyzer_id: this.analyzer.id,
      account_id: this.accountId,
    });
    // A category guessed from a level is written only with a new issue, never over a stored one.
    const stated = own.filter((draft) => !draft.guessedCategory).map(toRow);
    const guessed = own.filter((draft) => draft.guessedCategory).map(toRow);
    const written = [
      ...(stated.length > 0 ? await upsertIssues(this.tx, stated, update) : []),
      ...(guessed.length > 0 ? await upsertIssues(this.tx, guessed, update, true) : []),
    ];
    // A shared issue wins over an own one of the same rule (none is filed while a shared one exists).
    const stored = (await this.storedIssues(shortcodes)).sort(
      (a, b) => Number(a.account_id === null) - Number(b.account_id === null),
    );
    for (const issue of stored) {
      this.byRule.set(issue.shortcode, { id: issue.id, category: issue.category });
      if (issue.account_id === null) this.owned.delete(issue.shortcode);
      else this.owned.add(issue.shortcode);
    }
    for (const { shortcode, inserted } of written) {
      this.written.add(shortcode);
      if (inserted) this.inserted.add(shortcode);
    }
  }
}
