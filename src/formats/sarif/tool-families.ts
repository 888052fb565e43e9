import type { IssueCategory, IssueSeverity } from "../../db/types.ts";
import { ESLINT_LAYOUT_RULES, ESLINT_PROBLEM_RULES, ESLINT_SUGGESTION_RULES } from "./eslint-rule-types.ts";

/**
 * What Assay knows of particular tools' rules: the tool families whose rule ids or properties
 * carry a meaning the standard SARIF properties do not (docs/ingestion-sarif.md "Tool families").
 * One table, read top to bottom; the first row whose tool and rule match decides. A row may fix
 * the category, the severity, and how the tool's levels read (`scale`). Each row's facts come from
 * the tool's own documentation or source, named in `source`.
 */

/** How a tool's result levels become severities (docs/ingestion-sarif.md "Severity"). */
export type LevelScale =
  /** error → MAJOR; warning, note, none → MINOR. Linters, where the level is the user's setting. */
  | "lint"
  /**
   * error, warning → MAJOR; note, none → MINOR. Security scanners that write their own
   * critical/high as error, medium as warning and low as note: medium is MAJOR, as in the
   * `security-severity` bands.
   */
  | "security";

/** The rule facts a row matches on: its id and its properties' string values. */
export interface RuleFacts {
  id: string;
  properties: { strings: Readonly<Record<string, string>> };
}

/** Which rules of a tool a row covers, with the words the documentation shows for it. */
export interface RuleMatch {
  text: string;
  test(rule: RuleFacts): boolean;
}

/** One row of the table. */
export interface FamilyRow {
  /** Stable name of the row (tests and docs refer to it). */
  key: string;
  /** The tool family, as the docs name it. */
  family: string;
  /** Driver names (`tool.driver.name`, compared case-insensitively; a name also matches `<name> <anything>`). */
  tools: readonly string[];
  rule: RuleMatch;
  /** The category of the rule's issue; null leaves it to the rule's tags and level. */
  category: IssueCategory | null;
  /** A fixed severity, where the tool's level carries no grading; null reads the level on `scale`. */
  severity: IssueSeverity | null;
  scale: LevelScale;
  /** Where the row's facts come from. */
  source: string;
}

/** Rules whose id starts with one of `prefixes`. */
function idPrefix(...prefixes: string[]): RuleMatch {
  return {
    text: prefixes.map((prefix) => `\`${prefix}*\``).join(", "),
    test: (rule) => prefixes.some((prefix) => rule.id.startsWith(prefix)),
  };
}

/** Rules whose id is one of `ids` (`text` names the list). */
function idIn(text: string, ids: ReadonlySet<string>): RuleMatch {
  return { text, test: (rule) => ids.has(rule.id) };
}

/** Rules whose dot-separated id has `segment` as one of its parts (Semgrep's registry ids). */
function idSegment(segment: string): RuleMatch {
  return { text: `id segment \`${segment}\``, test: (rule) => rule.id.split(".").includes(segment) };
}

/** Rules whose `properties[name]` is `value`. */
function property(name: string, value: string): RuleMatch {
  return {
    text: `\`properties.${name}\` = \`${value}\``,
    test: (rule) => rule.properties.strings[name] === value,
  };
}

const ANY_RULE: RuleMatch = { text: "every rule", test: () => true };

/** clang's checker packages, with the `alpha.` (experimental) variant of each, and `others` as they are. */
function clangPackages(packages: readonly string[], others: readonly string[] = []): RuleMatch {
  return idPrefix(...packages.flatMap((name) => [`${name}.`, `alpha.${name}.`]), ...others);
}

const CLANG = ["clang"];
const CLANG_SOURCE =
  "clang's checker list (`clang -cc1 -analyzer-checker-help`, clang.llvm.org/docs/analyzer/checkers.html)";
const BIOME = ["biome"];
const BIOME_SOURCE = "Biome's rule groups (biomejs.dev/linter)";
const ESLINT = ["eslint"];
const OXLINT = ["oxlint"];
const OXLINT_SOURCE = "oxlint's categories (`oxlint --help`, `oxlint --rules`)";
const SEMGREP = ["semgrep"];
const SEMGREP_SOURCE = "Semgrep registry ids `<language>.<framework>.<category>.…`";
const EVAL_RULES = new Set(["no-eval", "no-implied-eval"]);

/** Every row, in the order they are tried. */
export const FAMILY_ROWS: readonly FamilyRow[] = [
  // Secret scanners: every finding is a credential in the code.
  {
    key: "secret-scanners",
    family: "secret scanners (secretlint, gitleaks, TruffleHog, detect-secrets)",
    tools: ["secretlint", "gitleaks", "trufflehog", "detect-secrets"],
    rule: ANY_RULE,
    category: "SECRETS",
    severity: "CRITICAL",
    scale: "lint",
    source:
      "each tool reports only secrets; their SARIF levels are fixed (secretlint: error) or absent (gitleaks)",
  },
  // clang static analyzer: the checker package says what kind of defect it is; every result is a
  // `warning` (the analyzer writes no level), so the package also fixes the severity.
  {
    key: "clang-security",
    family: "clang static analyzer",
    tools: CLANG,
    rule: idPrefix("security.", "alpha.security.", "optin.taint."),
    category: "SECURITY",
    severity: "MAJOR",
    scale: "lint",
    source: CLANG_SOURCE,
  },
  {
    key: "clang-deadcode",
    family: "clang static analyzer",
    tools: CLANG,
    rule: clangPackages(["deadcode"]),
    category: "ANTI_PATTERN",
    severity: "MINOR",
    scale: "lint",
    source: CLANG_SOURCE,
  },
  {
    key: "clang-performance",
    family: "clang static analyzer",
    tools: CLANG,
    rule: idPrefix("optin.performance."),
    category: "PERFORMANCE",
    severity: "MINOR",
    scale: "lint",
    source: CLANG_SOURCE,
  },
  {
    key: "clang-portability",
    family: "clang static analyzer",
    tools: CLANG,
    rule: idPrefix("optin.portability."),
    category: "BUG_RISK",
    severity: "MINOR",
    scale: "lint",
    source: CLANG_SOURCE,
  },
  {
    key: "clang-defects",
    family: "clang static analyzer",
    tools: CLANG,
    rule: clangPackages(
      ["core", "cplusplus", "unix", "nullability", "valist", "osx", "fuchsia", "webkit"],
      ["optin.core.", "optin.cplusplus."],
    ),
    category: "BUG_RISK",
    severity: "MAJOR",
    scale: "lint",
    source: `${CLANG_SOURCE}: null dereferences, use-after-free, leaks, uninitialized values, API misuse`,
  },
  // Biome: the rule id names its group (`lint/<group>/<rule>`); the level is the configured one.
  {
    key: "biome-security",
    family: "Biome",
    tools: BIOME,
    rule: idPrefix("lint/security/"),
    category: "SECURITY",
    severity: null,
    scale: "lint",
    source: `${BIOME_SOURCE}: "rules that detect potential security flaws"`,
  },
  {
    key: "biome-correctness",
    family: "Biome",
    tools: BIOME,
    rule: idPrefix("lint/correctness/", "lint/suspicious/"),
    category: "BUG_RISK",
    severity: null,
    scale: "lint",
    source: `${BIOME_SOURCE}: code "guaranteed" (correctness) or "likely" (suspicious) to be incorrect or useless`,
  },
  {
    key: "biome-a11y",
    family: "Biome",
    tools: BIOME,
    rule: idPrefix("lint/a11y/"),
    category: "BUG_RISK",
    severity: null,
    scale: "lint",
    source: `${BIOME_SOURCE}: accessibility problems, a defect for the users they affect`,
  },
  {
    key: "biome-performance",
    family: "Biome",
    tools: BIOME,
    rule: idPrefix("lint/performance/"),
    category: "PERFORMANCE",
    severity: null,
    scale: "lint",
    source: BIOME_SOURCE,
  },
  {
    key: "biome-complexity",
    family: "Biome",
    tools: BIOME,
    rule: idPrefix("lint/complexity/"),
    category: "ANTI_PATTERN",
    severity: null,
    scale: "lint",
    source: `${BIOME_SOURCE}: complex code that could be simplified`,
  },
  {
    key: "biome-style",
    family: "Biome",
    tools: BIOME,
    rule: idPrefix("lint/style/", "assist/", "format"),
    category: "STYLE",
    severity: null,
    scale: "lint",
    source: `${BIOME_SOURCE}; \`format\` and \`assist/…\` are what \`biome check\` reports for formatting and sorted imports`,
  },
  // ESLint: core rules by their meta type; a few plugins by their prefix. The level is the
  // configured one (`error` → error, `warn` → warning).
  {
    key: "eslint-eval",
    family: "ESLint",
    tools: ESLINT,
    rule: idIn("`no-eval`, `no-implied-eval`", EVAL_RULES),
    category: "SECURITY",
    severity: null,
    scale: "lint",
    source: "ESLint's rule docs: evaluating strings opens the program to injection",
  },
  {
    key: "eslint-problem",
    family: "ESLint",
    tools: ESLINT,
    rule: idIn("core rules of type `problem`", ESLINT_PROBLEM_RULES),
    category: "BUG_RISK",
    severity: null,
    scale: "lint",
    source: "ESLint's rule sources (`meta.type`), eslint-rule-types.ts",
  },
  {
    key: "eslint-suggestion",
    family: "ESLint",
    tools: ESLINT,
    rule: idIn("core rules of type `suggestion`", ESLINT_SUGGESTION_RULES),
    category: "ANTI_PATTERN",
    severity: null,
    scale: "lint",
    source: "ESLint's rule sources (`meta.type`), eslint-rule-types.ts",
  },
  {
    key: "eslint-layout",
    family: "ESLint",
    tools: ESLINT,
    rule: idIn("core rules of type `layout`", ESLINT_LAYOUT_RULES),
    category: "STYLE",
    severity: null,
    scale: "lint",
    source: "ESLint's rule sources (`meta.type`), eslint-rule-types.ts",
  },
  {
    key: "eslint-jsdoc",
    family: "ESLint",
    tools: ESLINT,
    rule: idPrefix("jsdoc/"),
    category: "DOCUMENTATION",
    severity: null,
    scale: "lint",
    source: "eslint-plugin-jsdoc: documentation comments",
  },
  {
    key: "eslint-security-plugin",
    family: "ESLint",
    tools: ESLINT,
    rule: idPrefix("security/"),
    category: "SECURITY",
    severity: null,
    scale: "lint",
    source: "eslint-plugin-security",
  },
  {
    key: "eslint-jsx-a11y",
    family: "ESLint",
    tools: ESLINT,
    rule: idPrefix("jsx-a11y/"),
    category: "BUG_RISK",
    severity: null,
    scale: "lint",
    source: "eslint-plugin-jsx-a11y: accessibility problems, as Biome's a11y group",
  },
  // oxlint: `properties.category` of each rule (and `properties.plugin`).
  {
    key: "oxlint-eval",
    family: "oxlint",
    tools: OXLINT,
    rule: idIn(
      "`eslint(no-eval)`, `eslint(no-implied-eval)`",
      new Set(["eslint(no-eval)", "eslint(no-implied-eval)"]),
    ),
    category: "SECURITY",
    severity: null,
    scale: "lint",
    source: "the ESLint rules of the same names (oxlint files them under correctness)",
  },
  {
    key: "oxlint-jsx-a11y",
    family: "oxlint",
    tools: OXLINT,
    rule: idPrefix("jsx-a11y("),
    category: "BUG_RISK",
    severity: null,
    scale: "lint",
    source:
      "oxlint's jsx-a11y plugin: accessibility problems, as Biome's a11y group (oxlint describes no rule of it in its SARIF)",
  },
  {
    key: "oxlint-jsdoc",
    family: "oxlint",
    tools: OXLINT,
    rule: property("plugin", "jsdoc"),
    category: "DOCUMENTATION",
    severity: null,
    scale: "lint",
    source: OXLINT_SOURCE,
  },
  {
    key: "oxlint-correctness",
    family: "oxlint",
    tools: OXLINT,
    rule: property("category", "correctness"),
    category: "BUG_RISK",
    severity: null,
    scale: "lint",
    source: `${OXLINT_SOURCE}: "code that is outright wrong or useless"`,
  },
  {
    key: "oxlint-suspicious",
    family: "oxlint",
    tools: OXLINT,
    rule: property("category", "suspicious"),
    category: "BUG_RISK",
    severity: null,
    scale: "lint",
    source: `${OXLINT_SOURCE}: "code that is most likely wrong or useless"`,
  },
  {
    key: "oxlint-perf",
    family: "oxlint",
    tools: OXLINT,
    rule: property("category", "perf"),
    category: "PERFORMANCE",
    severity: null,
    scale: "lint",
    source: OXLINT_SOURCE,
  },
  {
    key: "oxlint-style",
    family: "oxlint",
    tools: OXLINT,
    rule: property("category", "style"),
    category: "STYLE",
    severity: null,
    scale: "lint",
    source: `${OXLINT_SOURCE}: "code that should be written in a more idiomatic way"`,
  },
  {
    key: "oxlint-pedantic",
    family: "oxlint",
    tools: OXLINT,
    rule: property("category", "pedantic"),
    category: "ANTI_PATTERN",
    severity: null,
    scale: "lint",
    source: `${OXLINT_SOURCE}: "rather strict" lints`,
  },
  {
    key: "oxlint-restriction",
    family: "oxlint",
    tools: OXLINT,
    rule: property("category", "restriction"),
    category: "ANTI_PATTERN",
    severity: null,
    scale: "lint",
    source: `${OXLINT_SOURCE}: lints "which prevent the use of language and library features"`,
  },
  // Semgrep: registry rule ids carry the rule's category as one of their segments.
  {
    key: "semgrep-security",
    family: "Semgrep",
    tools: SEMGREP,
    rule: idSegment("security"),
    category: "SECURITY",
    severity: null,
    scale: "security",
    source: `${SEMGREP_SOURCE}; its SARIF writes high as error, medium as warning, low as note`,
  },
  {
    key: "semgrep-correctness",
    family: "Semgrep",
    tools: SEMGREP,
    rule: idSegment("correctness"),
    category: "BUG_RISK",
    severity: null,
    scale: "lint",
    source: SEMGREP_SOURCE,
  },
  {
    key: "semgrep-performance",
    family: "Semgrep",
    tools: SEMGREP,
    rule: idSegment("performance"),
    category: "PERFORMANCE",
    severity: null,
    scale: "lint",
    source: SEMGREP_SOURCE,
  },
  {
    key: "semgrep-best-practice",
    family: "Semgrep",
    tools: SEMGREP,
    rule: { text: "id segment `best-practice` or `maintainability`", test: (rule) => bestPractice(rule.id) },
    category: "ANTI_PATTERN",
    severity: null,
    scale: "lint",
    source: SEMGREP_SOURCE,
  },
  // Security scanners: every rule is a security check, graded by the tool into levels.
  {
    key: "security-scanners",
    family: "security scanners (Bandit, Checkov, tfsec, Trivy)",
    tools: ["bandit", "checkov", "bridgecrew", "tfsec", "defsec", "trivy"],
    rule: ANY_RULE,
    category: "SECURITY",
    severity: null,
    scale: "security",
    source:
      "their SARIF writers: Bandit HIGH/MEDIUM/LOW → error/warning/note; Checkov and tfsec (driver `defsec`) critical and high → error, medium → warning, low → note; Trivy adds `security-severity`",
  },
  // Dockerfiles and shell scripts.
  {
    key: "hadolint-parse",
    family: "hadolint",
    tools: ["hadolint"],
    rule: idIn("`DL1000`", new Set(["DL1000"])),
    category: "BUG_RISK",
    severity: null,
    scale: "lint",
    source: "hadolint's SARIF formatter: DL1000 is a Dockerfile it could not parse",
  },
  {
    key: "hadolint-shellcheck",
    family: "hadolint",
    tools: ["hadolint"],
    rule: idPrefix("SC"),
    category: "BUG_RISK",
    severity: null,
    scale: "lint",
    source: "hadolint runs ShellCheck on RUN instructions; see the ShellCheck row",
  },
  {
    key: "hadolint-dockerfile",
    family: "hadolint",
    tools: ["hadolint"],
    rule: idPrefix("DL"),
    category: "ANTI_PATTERN",
    severity: null,
    scale: "lint",
    source: "hadolint's DL rules: Dockerfile best practices",
  },
  {
    key: "shellcheck",
    family: "ShellCheck (through shellcheck-sarif and similar converters)",
    tools: ["shellcheck"],
    rule: ANY_RULE,
    category: "BUG_RISK",
    severity: null,
    scale: "lint",
    source: "ShellCheck's checks find bugs in shell scripts (quoting, word splitting, portability)",
  },
];

function bestPractice(id: string): boolean {
  const segments = id.split(".");
  return segments.includes("best-practice") || segments.includes("maintainability");
}

/** True when the driver `name` is one of `tools` (case-insensitive; `Semgrep OSS` is `semgrep`). */
function isTool(name: string, tools: readonly string[]): boolean {
  const lower = name.trim().toLowerCase();
  return tools.some((tool) => lower === tool || lower.startsWith(`${tool} `));
}

/** The first row of {@link FAMILY_ROWS} that covers `rule` of the tool named `toolName`, if any. */
export function familyRowOf(toolName: string, rule: RuleFacts): FamilyRow | null {
  return FAMILY_ROWS.find((row) => isTool(toolName, row.tools) && row.rule.test(rule)) ?? null;
}
