import type { IssueCategory, IssueSeverity } from "../issue-vocabulary.ts";
import { ESLINT_LAYOUT_RULES, ESLINT_PROBLEM_RULES, ESLINT_SUGGESTION_RULES } from "./eslint-rule-types.ts";
import {
  HTMLHINT_DEFECT_RULES,
  HTMLHINT_PERFORMANCE_RULES,
  HTMLHINT_PRACTICE_RULES,
  HTMLHINT_STYLE_RULES,
} from "./htmlhint-rule-kinds.ts";
import { isStylelintBuiltInRule, STYLELINT_ERROR_RULES } from "./stylelint-rule-kinds.ts";
import {
  TYPESCRIPT_ESLINT_PROBLEM_RULES,
  TYPESCRIPT_ESLINT_STYLISTIC_RULES,
  TYPESCRIPT_ESLINT_SUGGESTION_RULES,
} from "./typescript-eslint-rule-types.ts";

/**
 * What Assay knows of particular tools' rules: the tool families whose rule ids or properties
 * carry a meaning the standard SARIF properties do not (docs/ingestion-sarif.md "Tool families").
 * One table, read top to bottom; the first row whose tool and rule match decides. A row may fix
 * the category, the severity, and how the tool's levels read (`scale`). Each row's facts come from
 * the tool's own documentation or source, named in its family's `source`.
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
  /**
   * Whether a CWE the tool names makes the finding a security one (step 2 of "Category"). False
   * for a tool that files every kind of finding under some CWE (cppcheck: an unused variable is
   * CWE-563), where the CWE classifies the weakness and the row decides the category; the CWE
   * stays a tag for the reports.
   */
  cweMeansSecurity: boolean;
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

/** Rules `<plugin>/<rule>` of an ESLint plugin whose `<rule>` is one of `names` (`text` names the list). */
function pluginRuleIn(plugin: string, text: string, names: ReadonlySet<string>): RuleMatch {
  const prefix = `${plugin}/`;
  return { text, test: (rule) => rule.id.startsWith(prefix) && names.has(rule.id.slice(prefix.length)) };
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

/** Rules whose `properties[name]` is one of `values`. */
function propertyIn(name: string, values: readonly string[]): RuleMatch {
  return {
    text: `\`properties.${name}\` in ${values.map((value) => `\`${value}\``).join(", ")}`,
    test: (rule) => values.includes(rule.properties.strings[name] ?? ""),
  };
}

const ANY_RULE: RuleMatch = { text: "every rule", test: () => true };

/** clang's checker packages, with the `alpha.` (experimental) variant of each, and `others` as they are. */
function clangPackages(packages: readonly string[], others: readonly string[] = []): RuleMatch {
  return idPrefix(...packages.flatMap((name) => [`${name}.`, `alpha.${name}.`]), ...others);
}

/** pylint's messages that run code from a string (`exec-used`, `eval-used`). */
const PYLINT_SECURITY = new Set(["W0122", "W0123"]);
/** pylint's missing and empty docstrings (module, class, function). */
const PYLINT_DOCUMENTATION = new Set(["C0112", "C0114", "C0115", "C0116"]);
/**
 * pylint's warnings about code that does nothing or is not used: unnecessary-pass,
 * pointless-string-statement, unnecessary-lambda, wildcard-import, reimported, unused-import,
 * unused-variable, unused-argument, unused-wildcard-import.
 */
const PYLINT_CLEANUPS = new Set([
  "W0107",
  "W0105",
  "W0108",
  "W0401",
  "W0404",
  "W0611",
  "W0612",
  "W0613",
  "W0614",
]);

/** One family: its tools and where its facts come from, and its rows. */
interface FamilySpec {
  family: string;
  tools: readonly string[];
  source: string;
  /** True unless given; see {@link FamilyRow.cweMeansSecurity}. */
  cweMeansSecurity?: boolean;
  /** Rows; `severity` null and `scale` "lint" unless given. */
  rows: ReadonlyArray<
    Pick<FamilyRow, "key" | "rule" | "category"> & Partial<Pick<FamilyRow, "severity" | "scale">>
  >;
}

const EVAL_RULES = new Set(["no-eval", "no-implied-eval"]);
const OXLINT_EVAL_RULES = new Set(["eslint(no-eval)", "eslint(no-implied-eval)"]);
/**
 * go vet's analyzers (`go tool vet help`, Go 1.19 to 1.25), by what they find: the defects first,
 * then unkeyed composite literals and unreachable code; and the golang.org/x/tools passes most
 * often run through `go vet -vettool`.
 */
const GO_VET_DEFECTS = new Set([
  "appends",
  "asmdecl",
  "assign",
  "atomic",
  "bools",
  "buildtag",
  "cgocall",
  "copylocks",
  "defers",
  "directive",
  "errorsas",
  "framepointer",
  "hostport",
  "httpresponse",
  "ifaceassert",
  "loopclosure",
  "lostcancel",
  "nilfunc",
  "nilness",
  "printf",
  "shift",
  "sigchanyzer",
  "slog",
  "stdmethods",
  "stdversion",
  "stringintconv",
  "structtag",
  "testinggoroutine",
  "tests",
  "timeformat",
  "unmarshal",
  "unsafeptr",
  "unusedresult",
  "waitgroup",
]);
const GO_VET_CLEANUPS = new Set(["composites", "unreachable", "shadow"]);
/** Staticcheck's checks of package and doc comments. */
const STATICCHECK_DOCUMENTATION_CHECKS = new Set(["ST1000", "ST1020", "ST1021", "ST1022"]);

/** The families, in the order their rows are tried. */
const FAMILIES: readonly FamilySpec[] = [
  {
    family: "secret scanners (secretlint, gitleaks, TruffleHog, detect-secrets)",
    tools: ["secretlint", "gitleaks", "trufflehog", "detect-secrets"],
    source: "each reports only secrets; their levels are fixed (secretlint: error) or absent (gitleaks)",
    rows: [{ key: "secret-scanners", rule: ANY_RULE, category: "SECRETS", severity: "CRITICAL" }],
  },
  {
    // The checker package says what kind of defect it is; the analyzer writes no level (every
    // result reads `warning`), so the package also fixes the severity.
    family: "clang static analyzer",
    tools: ["clang"],
    source:
      "clang's checker list (`clang -cc1 -analyzer-checker-help`, clang.llvm.org/docs/analyzer/checkers.html)",
    rows: [
      {
        key: "clang-security",
        rule: idPrefix("security.", "alpha.security.", "optin.taint."),
        category: "SECURITY",
        severity: "MAJOR",
      },
      {
        key: "clang-deadcode",
        rule: clangPackages(["deadcode"]),
        category: "ANTI_PATTERN",
        severity: "MINOR",
      },
      {
        key: "clang-performance",
        rule: idPrefix("optin.performance."),
        category: "PERFORMANCE",
        severity: "MINOR",
      },
      {
        key: "clang-portability",
        rule: idPrefix("optin.portability."),
        category: "BUG_RISK",
        severity: "MINOR",
      },
      {
        // Null dereferences, use-after-free, leaks, uninitialized values, API misuse.
        key: "clang-defects",
        rule: clangPackages(
          ["core", "cplusplus", "unix", "nullability", "valist", "osx", "fuchsia", "webkit"],
          ["optin.core.", "optin.cplusplus."],
        ),
        category: "BUG_RISK",
        severity: "MAJOR",
      },
    ],
  },
  {
    // cppcheck's own severities (its manual, "Severities"): error is undefined behaviour or another
    // certain defect (a leak, a null dereference); warning is code that may have undefined
    // behaviour; style covers unused and redundant code and likely mistakes; performance and
    // portability are suggestions. The XML reader passes the severity as `properties.severity`
    // and as the level (error → error, warning → warning, the others → note), so the security
    // scale makes errors and warnings MAJOR and the rest MINOR; inconclusive findings (precision
    // low) are one step lower. cppcheck names a CWE for nearly every finding, so a CWE does not
    // make one a security finding here.
    family: "cppcheck",
    tools: ["cppcheck"],
    source:
      "cppcheck's manual (severities error, warning, style, performance, portability, information) and its XML format version 2",
    cweMeansSecurity: false,
    rows: [
      { key: "cppcheck-error", rule: property("severity", "error"), category: "BUG_RISK", scale: "security" },
      {
        key: "cppcheck-warning",
        rule: property("severity", "warning"),
        category: "BUG_RISK",
        scale: "security",
      },
      { key: "cppcheck-style", rule: property("severity", "style"), category: "ANTI_PATTERN" },
      { key: "cppcheck-performance", rule: property("severity", "performance"), category: "PERFORMANCE" },
      { key: "cppcheck-portability", rule: property("severity", "portability"), category: "BUG_RISK" },
      { key: "cppcheck-information", rule: property("severity", "information"), category: "ANTI_PATTERN" },
    ],
  },
  {
    // Staticcheck's check id says what it finds. Its SARIF writes no level on results, and the
    // rules' default levels (error for a few SA checks, warning for the rest) are not a grading a
    // user sets: its text, stylish and JSON outputs call every finding an error. So the rows fix
    // the severity: the SA checks find bugs and are MAJOR, as clang's defects; the rest is MINOR.
    family: "Staticcheck",
    tools: ["staticcheck"],
    source:
      "Staticcheck's check list (staticcheck.dev/docs/checks): SA1 misuses of the standard library, SA2 concurrency, SA3 testing, SA4 code that does nothing, SA5 correctness, SA6 performance, SA9 dubious constructs, S1 simplifications, ST1 style, U1000 unused code, QF1 quick fixes; `compile` is code that does not type-check (the package's checks did not run) and `staticcheck` a `//lint:` directive that matched nothing",
    rows: [
      {
        key: "staticcheck-compile",
        rule: idIn("`compile`", new Set(["compile"])),
        category: "BUG_RISK",
        severity: "MAJOR",
      },
      {
        key: "staticcheck-deprecated",
        rule: idIn("`SA1019`", new Set(["SA1019"])),
        category: "ANTI_PATTERN",
        severity: "MINOR",
      },
      { key: "staticcheck-performance", rule: idPrefix("SA6"), category: "PERFORMANCE", severity: "MINOR" },
      { key: "staticcheck-bugs", rule: idPrefix("SA"), category: "BUG_RISK", severity: "MAJOR" },
      {
        key: "staticcheck-documentation",
        rule: idIn("`ST1000`, `ST1020`, `ST1021`, `ST1022`", STATICCHECK_DOCUMENTATION_CHECKS),
        category: "DOCUMENTATION",
        severity: "MINOR",
      },
      { key: "staticcheck-style", rule: idPrefix("ST1"), category: "STYLE", severity: "MINOR" },
      {
        key: "staticcheck-simplifications",
        rule: {
          text: "`S1*`, `QF1*`, `U1000`, `staticcheck`",
          test: (rule) => /^(S1|QF1|U1)/.test(rule.id) || rule.id === "staticcheck",
        },
        category: "ANTI_PATTERN",
        severity: "MINOR",
      },
    ],
  },
  {
    // GCC's JSON diagnostics (gcc/reader.ts): the option is the rule. The static analyzer's
    // warnings (-fanalyzer) are defects, as clang's; taint and exposure are security. The other
    // warnings' level is the user's (-Werror= makes one an error), on the lint scale. GCC names
    // a CWE for most analyzer warnings (a leak is CWE-401), so a CWE does not make one a security
    // finding here.
    family: "GCC",
    tools: ["gcc"],
    source:
      "GCC's manual: Static Analyzer Options (the -Wanalyzer-* warnings, -Wanalyzer-tainted-* for attacker-controlled values, -Wanalyzer-exposure-through-* for leaked data) and Warning Options",
    cweMeansSecurity: false,
    rows: [
      {
        key: "gcc-analyzer-security",
        rule: idPrefix("-Wanalyzer-tainted-", "-Wanalyzer-exposure-through-"),
        category: "SECURITY",
        severity: "MAJOR",
      },
      { key: "gcc-analyzer", rule: idPrefix("-Wanalyzer-"), category: "BUG_RISK", severity: "MAJOR" },
      {
        key: "gcc-cleanups",
        rule: idPrefix(
          "-Wunused",
          "-Wshadow",
          "-Wpedantic",
          "-Wsign-compare",
          "-Wsign-conversion",
          "-Wconversion",
        ),
        category: "ANTI_PATTERN",
      },
      { key: "gcc-warnings", rule: ANY_RULE, category: "BUG_RISK" },
    ],
  },
  {
    // vet reports suspicious constructs, each a likely defect (`go vet` and, for its
    // high-confidence subset, `go test` fail on them); it writes no level. The reader names the
    // run's tool `go vet` and each finding's rule its analyzer.
    family: "go vet",
    tools: ["go vet"],
    source:
      "go vet's analyzers (`go tool vet help`, pkg.go.dev/cmd/vet) and golang.org/x/tools' passes nilness, shadow and fieldalignment (`go vet -vettool`)",
    rows: [
      {
        key: "go-vet-defects",
        rule: idIn(
          "the analyzers that find defects (printf, copylocks, loopclosure, lostcancel…)",
          GO_VET_DEFECTS,
        ),
        category: "BUG_RISK",
        severity: "MAJOR",
      },
      {
        key: "go-vet-cleanups",
        rule: idIn("`composites`, `unreachable`, `shadow`", GO_VET_CLEANUPS),
        category: "ANTI_PATTERN",
        severity: "MINOR",
      },
      {
        key: "go-vet-fieldalignment",
        rule: idIn("`fieldalignment`", new Set(["fieldalignment"])),
        category: "PERFORMANCE",
        severity: "MINOR",
      },
    ],
  },
  {
    family: "Biome",
    tools: ["biome"],
    source:
      "Biome's rule groups (biomejs.dev/linter): correctness and suspicious code is guaranteed or likely to be incorrect; `format` and `assist/…` are what `biome check` reports for formatting and sorted imports",
    rows: [
      { key: "biome-security", rule: idPrefix("lint/security/"), category: "SECURITY" },
      {
        key: "biome-correctness",
        rule: idPrefix("lint/correctness/", "lint/suspicious/"),
        category: "BUG_RISK",
      },
      // Accessibility problems: a defect for the users they affect.
      { key: "biome-a11y", rule: idPrefix("lint/a11y/"), category: "BUG_RISK" },
      { key: "biome-performance", rule: idPrefix("lint/performance/"), category: "PERFORMANCE" },
      { key: "biome-complexity", rule: idPrefix("lint/complexity/"), category: "ANTI_PATTERN" },
      { key: "biome-style", rule: idPrefix("lint/style/", "assist/", "format"), category: "STYLE" },
    ],
  },
  {
    family: "ESLint",
    tools: ["eslint"],
    source:
      "ESLint's rule sources (`meta.type`, eslint-rule-types.ts) and docs (`no-eval`: evaluating strings opens the program to injection); typescript-eslint's rules (`meta.type`) and stylistic configs (typescript-eslint-rule-types.ts); eslint-plugin-jsdoc, eslint-plugin-security, eslint-plugin-jsx-a11y; any other rule's `meta.type` where the report gives it (ESLint's json-with-metadata)",
    rows: [
      { key: "eslint-eval", rule: idIn("`no-eval`, `no-implied-eval`", EVAL_RULES), category: "SECURITY" },
      {
        key: "eslint-problem",
        rule: idIn("core rules of type `problem`", ESLINT_PROBLEM_RULES),
        category: "BUG_RISK",
      },
      {
        key: "eslint-suggestion",
        rule: idIn("core rules of type `suggestion`", ESLINT_SUGGESTION_RULES),
        category: "ANTI_PATTERN",
      },
      {
        key: "eslint-layout",
        rule: idIn("core rules of type `layout`", ESLINT_LAYOUT_RULES),
        category: "STYLE",
      },
      {
        key: "eslint-typescript-stylistic",
        rule: pluginRuleIn(
          "@typescript-eslint",
          "`@typescript-eslint/*` of its stylistic configs",
          TYPESCRIPT_ESLINT_STYLISTIC_RULES,
        ),
        category: "STYLE",
      },
      {
        key: "eslint-typescript-problem",
        rule: pluginRuleIn(
          "@typescript-eslint",
          "other `@typescript-eslint/*` of type `problem`",
          TYPESCRIPT_ESLINT_PROBLEM_RULES,
        ),
        category: "BUG_RISK",
      },
      {
        key: "eslint-typescript-suggestion",
        rule: pluginRuleIn(
          "@typescript-eslint",
          "other `@typescript-eslint/*` of type `suggestion`",
          TYPESCRIPT_ESLINT_SUGGESTION_RULES,
        ),
        category: "ANTI_PATTERN",
      },
      { key: "eslint-jsdoc", rule: idPrefix("jsdoc/"), category: "DOCUMENTATION" },
      { key: "eslint-security-plugin", rule: idPrefix("security/"), category: "SECURITY" },
      { key: "eslint-jsx-a11y", rule: idPrefix("jsx-a11y/"), category: "BUG_RISK" },
      // The other rules by the `meta.type` ESLint's json-with-metadata output gives them.
      { key: "eslint-type-problem", rule: property("type", "problem"), category: "BUG_RISK" },
      { key: "eslint-type-suggestion", rule: property("type", "suggestion"), category: "ANTI_PATTERN" },
      { key: "eslint-type-layout", rule: property("type", "layout"), category: "STYLE" },
    ],
  },
  {
    // markdownlint checks how Markdown is written ("a style checker and lint tool for Markdown"):
    // headings, lists, whitespace, line length, link and image syntax. Its rules declare no level;
    // the level is the user's setting (`"MD013": "warning"`), read on the lint scale.
    family: "markdownlint",
    tools: ["markdownlint", "markdownlint-cli2"],
    source:
      "markdownlint's README and rules (github.com/DavidAnson/markdownlint: a style checker for Markdown); markdownlint-cli2-formatter-sarif names the driver `markdownlint-cli2`",
    rows: [{ key: "markdownlint", rule: ANY_RULE, category: "STYLE" }],
  },
  {
    family: "stylelint",
    tools: ["stylelint"],
    source:
      "stylelint's rule list (stylelint.io/user-guide/rules: rules that avoid errors, rules that enforce conventions) and stylelint-config-recommended (the rules that avoid errors; stylelint-rule-kinds.ts); @stylistic/stylelint-plugin (stylistic and formatting rules)",
    rows: [
      {
        key: "stylelint-errors",
        rule: idIn("built-in rules that avoid errors (stylelint-config-recommended)", STYLELINT_ERROR_RULES),
        category: "BUG_RISK",
      },
      {
        key: "stylelint-conventions",
        rule: {
          text: "the other built-in rules (conventions), `@stylistic/*`",
          test: (rule) => isStylelintBuiltInRule(rule.id) || rule.id.startsWith("@stylistic/"),
        },
        category: "STYLE",
      },
    ],
  },
  {
    // HTMLHint's rules by what its rule docs say each checks (htmlhint-rule-kinds.ts). Each rule
    // reports at the level its own code gives (error or warning; `.htmlhintrc` only turns rules
    // on and off), read on the lint scale.
    family: "HTMLHint",
    tools: ["htmlhint"],
    source:
      "HTMLHint's rule docs (htmlhint.com/rules: what each rule requires and why); `htmlhint --format sarif` names the driver `HTMLHint` and writes no category",
    rows: [
      {
        key: "htmlhint-defects",
        rule: idIn(
          "markup that does not work as written (`tag-pair`, `id-unique`, `alt-require`…)",
          HTMLHINT_DEFECT_RULES,
        ),
        category: "BUG_RISK",
      },
      {
        key: "htmlhint-practices",
        rule: idIn(
          "practices a team forbids (`inline-style-disabled`, `style-disabled`, `tags-check`…)",
          HTMLHINT_PRACTICE_RULES,
        ),
        category: "ANTI_PATTERN",
      },
      {
        key: "htmlhint-performance",
        rule: idIn("`head-script-disabled`", HTMLHINT_PERFORMANCE_RULES),
        category: "PERFORMANCE",
      },
      {
        key: "htmlhint-style",
        rule: idIn(
          "how markup is written (`attr-lowercase`, `tagname-lowercase`, quotes, spacing…)",
          HTMLHINT_STYLE_RULES,
        ),
        category: "STYLE",
      },
    ],
  },
  {
    family: "oxlint",
    tools: ["oxlint"],
    source:
      "oxlint's categories (`oxlint --help`, `oxlint --rules`); its SARIF describes no jsx-a11y rule, so those match by id; `eslint(no-eval)` as ESLint's rule",
    rows: [
      {
        key: "oxlint-eval",
        rule: idIn("`eslint(no-eval)`, `eslint(no-implied-eval)`", OXLINT_EVAL_RULES),
        category: "SECURITY",
      },
      { key: "oxlint-jsx-a11y", rule: idPrefix("jsx-a11y("), category: "BUG_RISK" },
      { key: "oxlint-jsdoc", rule: property("plugin", "jsdoc"), category: "DOCUMENTATION" },
      { key: "oxlint-correctness", rule: property("category", "correctness"), category: "BUG_RISK" },
      { key: "oxlint-suspicious", rule: property("category", "suspicious"), category: "BUG_RISK" },
      { key: "oxlint-perf", rule: property("category", "perf"), category: "PERFORMANCE" },
      { key: "oxlint-style", rule: property("category", "style"), category: "STYLE" },
      { key: "oxlint-pedantic", rule: property("category", "pedantic"), category: "ANTI_PATTERN" },
      { key: "oxlint-restriction", rule: property("category", "restriction"), category: "ANTI_PATTERN" },
    ],
  },
  {
    family: "Semgrep",
    tools: ["semgrep"],
    source:
      "Semgrep registry ids `<language>.<framework>.<category>.…`; its SARIF writes high and critical as error, medium as warning, low as note",
    rows: [
      { key: "semgrep-security", rule: idSegment("security"), category: "SECURITY", scale: "security" },
      { key: "semgrep-correctness", rule: idSegment("correctness"), category: "BUG_RISK" },
      { key: "semgrep-performance", rule: idSegment("performance"), category: "PERFORMANCE" },
      {
        key: "semgrep-best-practice",
        rule: {
          text: "id segment `best-practice` or `maintainability`",
          test: (rule) => bestPractice(rule.id),
        },
        category: "ANTI_PATTERN",
      },
    ],
  },
  {
    // pylint's message ids start with their type's letter (C convention, R refactor, W warning,
    // E error, I informational; F fatal and E0001 syntax-error are the reader's tool errors); the
    // reader gives each type its level, so the rows decide the category only.
    family: "pylint",
    tools: ["pylint"],
    source:
      "pylint's message types and messages (pylint.readthedocs.io, user_guide/messages): eval-used and exec-used, the docstring checks, and the unused-code warnings",
    rows: [
      { key: "pylint-security", rule: idIn("`W0122`, `W0123`", PYLINT_SECURITY), category: "SECURITY" },
      {
        key: "pylint-documentation",
        rule: idIn("`C0112`, `C0114`, `C0115`, `C0116`", PYLINT_DOCUMENTATION),
        category: "DOCUMENTATION",
      },
      {
        key: "pylint-cleanups",
        rule: idIn("unused code and imports (`W0107`, `W0401`, `W0404`, `W0611`–`W0614`…)", PYLINT_CLEANUPS),
        category: "ANTI_PATTERN",
      },
      { key: "pylint-error", rule: idPrefix("E"), category: "BUG_RISK" },
      { key: "pylint-warning", rule: idPrefix("W"), category: "BUG_RISK" },
      { key: "pylint-refactor", rule: idPrefix("R"), category: "ANTI_PATTERN" },
      { key: "pylint-convention", rule: idPrefix("C"), category: "STYLE" },
      { key: "pylint-informational", rule: idPrefix("I"), category: "ANTI_PATTERN" },
    ],
  },
  {
    family: "security scanners (Bandit, Checkov, tfsec, Trivy)",
    tools: ["bandit", "checkov", "bridgecrew", "tfsec", "defsec", "trivy"],
    source:
      "their SARIF writers: Bandit HIGH/MEDIUM/LOW → error/warning/note; Checkov and tfsec (driver `defsec`) critical and high → error, medium → warning, low → note; Trivy adds `security-severity`",
    rows: [{ key: "security-scanners", rule: ANY_RULE, category: "SECURITY", scale: "security" }],
  },
  {
    family: "hadolint",
    tools: ["hadolint"],
    source:
      "hadolint's SARIF formatter and rules: DL1000 is a Dockerfile it could not parse, DL rules are Dockerfile practices, SC rules ShellCheck's on RUN lines",
    rows: [
      { key: "hadolint-parse", rule: idIn("`DL1000`", new Set(["DL1000"])), category: "BUG_RISK" },
      { key: "hadolint-shellcheck", rule: idPrefix("SC"), category: "BUG_RISK" },
      { key: "hadolint-dockerfile", rule: idPrefix("DL"), category: "ANTI_PATTERN" },
    ],
  },
  {
    // ShellCheck's levels (`--severity`): error is a script that will not run as meant (a syntax
    // error, an array expansion re-split), warning a likely bug (cd without a check, an unused
    // variable), info a weaker one (unquoted expansions), style a cleaner way to write the same.
    // Its json1 and json outputs (shellcheck/reader.ts) and its checkstyle XML carry the level as
    // `properties.severity`; checkstyle XML writes style as info; its gcc output writes both info
    // and style as note, which its reader tells apart by the code (style-codes.ts). Converters to SARIF
    // (shellcheck-sarif) carry only the level: the last row covers them.
    family: "ShellCheck",
    tools: ["shellcheck"],
    source:
      "ShellCheck's wiki and `--severity` (error, warning, info, style); its formatters json1, json, checkstyle and gcc",
    rows: [
      { key: "shellcheck-style", rule: property("severity", "style"), category: "STYLE" },
      { key: "shellcheck", rule: ANY_RULE, category: "BUG_RISK" },
    ],
  },
  {
    // Checkstyle's checks, by the package of their class (checkstyle.org/checks.html): the
    // reader keeps it as `properties.checkPackage`. The level is the user's (each module's
    // `severity`), read on the lint scale.
    family: "Checkstyle",
    tools: ["checkstyle"],
    source:
      "Checkstyle's check packages (checkstyle.org/checks.html): javadoc; coding, design, metrics, annotation, modifier; blocks, imports, naming, sizes, whitespace, indentation, header, regexp and the top-level checks",
    rows: [
      { key: "checkstyle-javadoc", rule: property("checkPackage", "javadoc"), category: "DOCUMENTATION" },
      {
        key: "checkstyle-coding",
        rule: propertyIn("checkPackage", ["coding", "design", "metrics", "annotation", "modifier"]),
        category: "ANTI_PATTERN",
      },
      { key: "checkstyle-style", rule: ANY_RULE, category: "STYLE" },
    ],
  },
  {
    // PHP_CodeSniffer's sniff codes are Standard.Category.Sniff.Code; the category says what the
    // sniff looks at. The level is the standard's (its errors and warnings), read on the lint scale.
    family: "PHP_CodeSniffer",
    tools: ["phpcs"],
    source:
      "PHP_CodeSniffer's sniff codes (Standard.Category.Sniff.Code) and its standards' categories: Commenting; CodeAnalysis, Metrics; the rest (Files, WhiteSpace, NamingConventions, Classes, Methods…) formatting and naming",
    rows: [
      { key: "phpcs-commenting", rule: property("sniffCategory", "Commenting"), category: "DOCUMENTATION" },
      {
        key: "phpcs-analysis",
        rule: propertyIn("sniffCategory", ["CodeAnalysis", "Metrics"]),
        category: "ANTI_PATTERN",
      },
      { key: "phpcs-style", rule: ANY_RULE, category: "STYLE" },
    ],
  },
];

/** Every row, in the order they are tried. */
export const FAMILY_ROWS: readonly FamilyRow[] = FAMILIES.flatMap(({ rows, cweMeansSecurity, ...family }) =>
  rows.map((row) => ({
    ...family,
    severity: null,
    scale: "lint" as const,
    cweMeansSecurity: cweMeansSecurity ?? true,
    ...row,
  })),
);

function bestPractice(id: string): boolean {
  const segments = id.split(".");
  return segments.includes("best-practice") || segments.includes("maintainability");
}

/** The rows of each driver name of the table, in table order. */
const ROWS_BY_TOOL = new Map<string, FamilyRow[]>();
for (const row of FAMILY_ROWS) {
  for (const tool of row.tools) ROWS_BY_TOOL.set(tool, [...(ROWS_BY_TOOL.get(tool) ?? []), row]);
}

/**
 * The rows of the tool named `toolName`: compared case-insensitively, a name also matching as the
 * first word of the driver's (`Semgrep OSS` is `semgrep`, `clang static analyzer` is `clang`).
 * One map lookup, as it runs for every result.
 */
function rowsOfTool(toolName: string): readonly FamilyRow[] {
  const name = toolName.trim().toLowerCase();
  return ROWS_BY_TOOL.get(name) ?? ROWS_BY_TOOL.get(name.split(" ", 1)[0]!) ?? [];
}

/** The first row of {@link FAMILY_ROWS} that covers `rule` of the tool named `toolName`, if any. */
export function familyRowOf(toolName: string, rule: RuleFacts): FamilyRow | null {
  return rowsOfTool(toolName).find((row) => row.rule.test(rule)) ?? null;
}
