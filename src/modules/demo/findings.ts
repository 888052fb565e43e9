import type { IssueCategory, IssueSeverity } from "../../db/types.ts";
import { ANALYZERS, type IssueDefinition } from "../catalog/catalog-data.ts";
import type { IssueRef, PlannedIgnoreRule } from "./plan-types.ts";
import { type Random, sha1Hex } from "./random.ts";
import { IDENTIFIERS, type SourceFile } from "./vocabulary.ts";

/**
 * Findings: one problem at one place, alive from the run that introduces it to the run that
 * resolves it. A finding keeps its fingerprint for its whole life, which is what lets a run's
 * occurrences be EXISTING or RESOLVED against the base run's.
 */

export interface Finding {
  ref: IssueRef;
  issue: IssueDefinition;
  path: string;
  beginLine: number;
  endLine: number;
  beginColumn: number;
  endColumn: number;
  title: string;
  explanation: string | null;
  source: "STATIC" | "AI";
  fingerprint: string;
  /** Silenced in the code itself (a `skipcq`-style comment). */
  inlineSuppressed: boolean;
}

const CATEGORY_WEIGHT: Record<IssueCategory, number> = {
  STYLE: 3,
  ANTI_PATTERN: 3,
  BUG_RISK: 2.5,
  DOCUMENTATION: 2,
  TYPECHECK: 2,
  PERFORMANCE: 1.5,
  SECURITY: 1.2,
  SECRETS: 1,
  COVERAGE: 0,
};
const SEVERITY_WEIGHT: Record<IssueSeverity, number> = { MINOR: 1, MAJOR: 0.6, CRITICAL: 0.25 };

/** Findings of these rules name the symbol they are about. */
const NAMES_A_SYMBOL = new Set([
  "PYL-W0611",
  "PYL-W0612",
  "PYL-W0613",
  "JS-0128",
  "PHP-W1001",
  "CS-W1001",
  "RB-LI1001",
  "SH-2034",
  "SCC-SA4006",
  "CXX-M0207",
]);

const issuesByAnalyzer = new Map(ANALYZERS.map((a) => [a.shortcode, a.issues]));

/** The catalog rules of `analyzer` that can produce findings (coverage rules cannot). */
export function findingIssues(analyzer: string): IssueDefinition[] {
  return (issuesByAnalyzer.get(analyzer) ?? []).filter((i) => i.category !== "COVERAGE");
}

/** Makes the findings of one analyzer in one repository. */
export class FindingFactory {
  private readonly issues: IssueDefinition[];
  private readonly weights: number[];
  private count = 0;

  constructor(
    private readonly rand: Random,
    private readonly fingerprintSeed: string,
    readonly analyzer: string,
    private readonly files: SourceFile[],
  ) {
    this.issues = findingIssues(analyzer);
    // Each repository favours its own handful of rules, as real code bases do.
    this.weights = this.issues.map(
      (i) =>
        CATEGORY_WEIGHT[i.category] *
        SEVERITY_WEIGHT[i.severity] *
        (rand.chance(0.35) ? 0.05 : rand.between(0.3, 2)),
    );
  }

  /** True when the analyzer has rules and files to report on. */
  get usable(): boolean {
    return this.issues.length > 0 && this.files.length > 0;
  }

  /** The rules of this analyzer, most likely first. */
  likelyIssues(): IssueDefinition[] {
    return this.issues
      .map((issue, i) => ({ issue, weight: this.weights[i]! }))
      .sort((a, b) => b.weight - a.weight || a.issue.shortcode.localeCompare(b.issue.shortcode))
      .map((entry) => entry.issue);
  }

  /** The files this analyzer reports on. */
  get sourceFiles(): readonly SourceFile[] {
    return this.files;
  }

  /** A new finding. */
  make(): Finding {
    const r = this.rand;
    const issue = r.weighted(this.issues, this.weights);
    const file = r.pick(this.files);
    const beginLine = r.int(1, file.lines);
    const endLine = r.chance(0.7) ? beginLine : Math.min(file.lines, beginLine + r.int(1, 12));
    const beginColumn = r.int(1, 40);
    const endColumn = endLine === beginLine ? beginColumn + r.int(3, 40) : r.int(1, 60);
    const ai = (issue.category === "BUG_RISK" || issue.category === "SECURITY") && r.chance(0.05);
    return {
      ref: `${this.analyzer}:${issue.shortcode}`,
      issue,
      path: file.path,
      beginLine,
      endLine,
      beginColumn,
      endColumn,
      title: NAMES_A_SYMBOL.has(issue.shortcode) ? `${issue.title}: \`${r.pick(IDENTIFIERS)}\`` : issue.title,
      explanation: ai ? `${issue.summary} ${issue.detail}` : null,
      source: ai ? "AI" : "STATIC",
      fingerprint: sha1Hex(this.fingerprintSeed, this.analyzer, this.count++),
      inlineSuppressed: r.chance(0.02),
    };
  }

  /** The same finding after nearby edits moved it a few lines (its fingerprint stays). */
  moved(finding: Finding): Finding {
    const shift = this.rand.int(-6, 12);
    const beginLine = Math.max(1, finding.beginLine + shift);
    return { ...finding, beginLine, endLine: beginLine + (finding.endLine - finding.beginLine) };
  }
}

/** Whether `path` matches an ignore rule's glob: `dir/**`, `**` + `/suffix`, or `**` + `/dir/**`. */
export function globMatches(glob: string, path: string): boolean {
  if (glob.startsWith("**/") && glob.endsWith("/**")) {
    const dir = glob.slice(3, -3);
    return path.startsWith(`${dir}/`) || path.includes(`/${dir}/`);
  }
  if (glob.startsWith("**/*")) return path.endsWith(glob.slice(4));
  if (glob.endsWith("/**")) return path.startsWith(glob.slice(0, -2));
  return glob === path;
}

/** Whether `rule`, once created, silences `finding` at `time`. */
export function ruleSilences(rule: PlannedIgnoreRule, finding: Finding, time: Date): boolean {
  if (rule.issue !== finding.ref || rule.createdAt > time) return false;
  if (rule.level === "FILE") return rule.filePath === finding.path;
  return rule.globPattern === null || globMatches(rule.globPattern, finding.path);
}

/** The test-file glob of each language's usual layout. */
export const TEST_GLOBS: Record<string, string> = {
  python: "tests/**",
  javascript: "**/__tests__/**",
  go: "**/*_test.go",
  java: "src/test/**",
  ruby: "spec/**",
  php: "tests/**",
  rust: "tests/**",
  csharp: "tests/**",
  cxx: "tests/**",
};
