// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IssueCategory, IssueSeverity } from "../issue-vocabulary.ts";
import { classifySarifRule, severityOfResult } from "./mapping.ts";
import { FAMILY_ROWS, familyRowOf } from "./tool-families.ts";
import type { SarifLevel, SarifResult, SarifRule } from "./types.ts";

/**
 * One test per row of the tool-family table (tool-families.ts, docs/ingestion-sarif.md "Tool
 * families"): an example rule the row must decide, with the category and the severities that
 * follow at each level the tool can write. Rule ids are the tools' own.
 */

interface Example {
  tool: string;
  ruleId: string;
  strings?: Record<string, string>;
  category: IssueCategory;
  /** The occurrence severity at each level (the row's fixed one whatever the level). */
  severities: Partial<Record<SarifLevel, IssueSeverity>>;
}

const LINT = { error: "MAJOR", warning: "MINOR", note: "MINOR" } as const;
const SECURITY_SCALE = { error: "MAJOR", warning: "MAJOR", note: "MINOR" } as const;

const EXAMPLES: Record<string, Example> = {
  "secret-scanners": {
    tool: "secretlint",
    ruleId: "@secretlint/secretlint-rule-preset-recommend > @secretlint/secretlint-rule-aws",
    category: "SECRETS",
    severities: { error: "CRITICAL", warning: "CRITICAL" },
  },
  "clang-security": {
    tool: "clang",
    ruleId: "security.insecureAPI.strcpy",
    category: "SECURITY",
    severities: { warning: "MAJOR" },
  },
  "clang-deadcode": {
    tool: "clang",
    ruleId: "deadcode.DeadStores",
    category: "ANTI_PATTERN",
    severities: { warning: "MINOR", error: "MINOR" },
  },
  "clang-performance": {
    tool: "clang",
    ruleId: "optin.performance.Padding",
    category: "PERFORMANCE",
    severities: { warning: "MINOR" },
  },
  "clang-portability": {
    tool: "clang",
    ruleId: "optin.portability.UnixAPI",
    category: "BUG_RISK",
    severities: { warning: "MINOR" },
  },
  "clang-defects": {
    tool: "clang",
    ruleId: "core.NullDereference",
    category: "BUG_RISK",
    severities: { warning: "MAJOR", note: "MAJOR" },
  },
  "biome-security": {
    tool: "Biome",
    ruleId: "lint/security/noGlobalEval",
    category: "SECURITY",
    severities: LINT,
  },
  "biome-correctness": {
    tool: "Biome",
    ruleId: "lint/suspicious/noDebugger",
    category: "BUG_RISK",
    severities: LINT,
  },
  "biome-a11y": { tool: "Biome", ruleId: "lint/a11y/useAltText", category: "BUG_RISK", severities: LINT },
  "biome-performance": {
    tool: "Biome",
    ruleId: "lint/performance/noAccumulatingSpread",
    category: "PERFORMANCE",
    severities: LINT,
  },
  "biome-complexity": {
    tool: "Biome",
    ruleId: "lint/complexity/noUselessTernary",
    category: "ANTI_PATTERN",
    severities: LINT,
  },
  "biome-style": { tool: "Biome", ruleId: "lint/style/useConst", category: "STYLE", severities: LINT },
  "eslint-eval": { tool: "ESLint", ruleId: "no-eval", category: "SECURITY", severities: LINT },
  "eslint-problem": { tool: "ESLint", ruleId: "no-undef", category: "BUG_RISK", severities: LINT },
  "eslint-suggestion": { tool: "ESLint", ruleId: "eqeqeq", category: "ANTI_PATTERN", severities: LINT },
  "eslint-layout": { tool: "ESLint", ruleId: "semi", category: "STYLE", severities: LINT },
  "eslint-typescript-stylistic": {
    tool: "ESLint",
    ruleId: "@typescript-eslint/consistent-type-definitions",
    category: "STYLE",
    severities: LINT,
  },
  "eslint-typescript-problem": {
    tool: "ESLint",
    ruleId: "@typescript-eslint/no-unused-vars",
    category: "BUG_RISK",
    severities: LINT,
  },
  "eslint-typescript-suggestion": {
    tool: "ESLint",
    ruleId: "@typescript-eslint/no-explicit-any",
    category: "ANTI_PATTERN",
    severities: LINT,
  },
  markdownlint: {
    tool: "markdownlint-cli2",
    ruleId: "MD022",
    category: "STYLE",
    severities: LINT,
  },
  "stylelint-errors": {
    tool: "stylelint",
    ruleId: "property-no-unknown",
    category: "BUG_RISK",
    severities: LINT,
  },
  "stylelint-conventions": {
    tool: "stylelint",
    ruleId: "rule-empty-line-before",
    category: "STYLE",
    severities: LINT,
  },
  "htmlhint-defects": { tool: "HTMLHint", ruleId: "tag-pair", category: "BUG_RISK", severities: LINT },
  "htmlhint-practices": {
    tool: "HTMLHint",
    ruleId: "inline-style-disabled",
    category: "ANTI_PATTERN",
    severities: LINT,
  },
  "htmlhint-performance": {
    tool: "HTMLHint",
    ruleId: "head-script-disabled",
    category: "PERFORMANCE",
    severities: LINT,
  },
  "htmlhint-style": { tool: "HTMLHint", ruleId: "attr-lowercase", category: "STYLE", severities: LINT },
  "eslint-jsdoc": {
    tool: "ESLint",
    ruleId: "jsdoc/require-param",
    category: "DOCUMENTATION",
    severities: LINT,
  },
  "eslint-security-plugin": {
    tool: "ESLint",
    ruleId: "security/detect-eval-with-expression",
    category: "SECURITY",
    severities: LINT,
  },
  "eslint-jsx-a11y": { tool: "ESLint", ruleId: "jsx-a11y/alt-text", category: "BUG_RISK", severities: LINT },
  "eslint-type-problem": {
    tool: "ESLint",
    ruleId: "promise/valid-params",
    strings: { type: "problem" },
    category: "BUG_RISK",
    severities: LINT,
  },
  "eslint-type-suggestion": {
    tool: "ESLint",
    ruleId: "unicorn/prefer-at",
    strings: { type: "suggestion" },
    category: "ANTI_PATTERN",
    severities: LINT,
  },
  "eslint-type-layout": {
    tool: "ESLint",
    ruleId: "@stylistic/semi",
    strings: { type: "layout" },
    category: "STYLE",
    severities: LINT,
  },
  "oxlint-eval": {
    tool: "oxlint",
    ruleId: "eslint(no-eval)",
    strings: { category: "correctness", plugin: "eslint" },
    category: "SECURITY",
    severities: LINT,
  },
  "oxlint-jsx-a11y": { tool: "oxlint", ruleId: "jsx-a11y(alt-text)", category: "BUG_RISK", severities: LINT },
  "oxlint-jsdoc": {
    tool: "oxlint",
    ruleId: "jsdoc(require-param)",
    strings: { category: "pedantic", plugin: "jsdoc" },
    category: "DOCUMENTATION",
    severities: LINT,
  },
  "oxlint-correctness": {
    tool: "oxlint",
    ruleId: "eslint(no-self-assign)",
    strings: { category: "correctness", plugin: "eslint" },
    category: "BUG_RISK",
    severities: LINT,
  },
  "oxlint-suspicious": {
    tool: "oxlint",
    ruleId: "eslint(no-extend-native)",
    strings: { category: "suspicious", plugin: "eslint" },
    category: "BUG_RISK",
    severities: LINT,
  },
  "oxlint-perf": {
    tool: "oxlint",
    ruleId: "eslint(no-await-in-loop)",
    strings: { category: "perf", plugin: "eslint" },
    category: "PERFORMANCE",
    severities: LINT,
  },
  "oxlint-style": {
    tool: "oxlint",
    ruleId: "eslint(id-length)",
    strings: { category: "style", plugin: "eslint" },
    category: "STYLE",
    severities: LINT,
  },
  "oxlint-pedantic": {
    tool: "oxlint",
    ruleId: "eslint(eqeqeq)",
    strings: { category: "pedantic", plugin: "eslint" },
    category: "ANTI_PATTERN",
    severities: LINT,
  },
  "oxlint-restriction": {
    tool: "oxlint",
    ruleId: "eslint(no-console)",
    strings: { category: "restriction", plugin: "eslint" },
    category: "ANTI_PATTERN",
    severities: LINT,
  },
  "semgrep-security": {
    tool: "Semgrep OSS",
    ruleId: "python.lang.security.audit.eval-detected.eval-detected",
    category: "SECURITY",
    severities: SECURITY_SCALE,
  },
  "semgrep-correctness": {
    tool: "Semgrep OSS",
    ruleId: "python.lang.correctness.useless-comparison.no-strings-as-booleans",
    category: "BUG_RISK",
    severities: LINT,
  },
  "semgrep-performance": {
    tool: "Semgrep Pro",
    ruleId: "javascript.lang.performance.array-spread-in-loop",
    category: "PERFORMANCE",
    severities: LINT,
  },
  "semgrep-best-practice": {
    tool: "semgrep",
    ruleId: "python.lang.best-practice.open-never-closed.open-never-closed",
    category: "ANTI_PATTERN",
    severities: LINT,
  },
  "cppcheck-error": {
    tool: "cppcheck",
    ruleId: "nullPointer",
    strings: { severity: "error", cwe: "476" },
    category: "BUG_RISK",
    severities: { error: "MAJOR" },
  },
  "cppcheck-warning": {
    tool: "cppcheck",
    ruleId: "nullPointerRedundantCheck",
    strings: { severity: "warning", cwe: "476" },
    category: "BUG_RISK",
    severities: { warning: "MAJOR" },
  },
  "cppcheck-style": {
    tool: "cppcheck",
    ruleId: "unreadVariable",
    strings: { severity: "style", cwe: "563" },
    category: "ANTI_PATTERN",
    severities: { note: "MINOR" },
  },
  "cppcheck-performance": {
    tool: "cppcheck",
    ruleId: "passedByValue",
    strings: { severity: "performance", cwe: "398" },
    category: "PERFORMANCE",
    severities: { note: "MINOR" },
  },
  "cppcheck-portability": {
    tool: "cppcheck",
    ruleId: "AssignmentAddressToInteger",
    strings: { severity: "portability", cwe: "758" },
    category: "BUG_RISK",
    severities: { note: "MINOR" },
  },
  "cppcheck-information": {
    tool: "cppcheck",
    ruleId: "missingIncludeSystem",
    strings: { severity: "information" },
    category: "ANTI_PATTERN",
    severities: { note: "MINOR" },
  },
  "staticcheck-compile": {
    tool: "Staticcheck",
    ruleId: "compile",
    category: "BUG_RISK",
    severities: { warning: "MAJOR", error: "MAJOR" },
  },
  "staticcheck-deprecated": {
    tool: "Staticcheck",
    ruleId: "SA1019",
    category: "ANTI_PATTERN",
    severities: { warning: "MINOR", error: "MINOR" },
  },
  "staticcheck-performance": {
    tool: "Staticcheck",
    ruleId: "SA6005",
    category: "PERFORMANCE",
    severities: { warning: "MINOR", error: "MINOR" },
  },
  "staticcheck-bugs": {
    tool: "Staticcheck",
    ruleId: "SA5011",
    category: "BUG_RISK",
    severities: { warning: "MAJOR", error: "MAJOR", note: "MAJOR" },
  },
  "staticcheck-documentation": {
    tool: "Staticcheck",
    ruleId: "ST1020",
    category: "DOCUMENTATION",
    severities: { warning: "MINOR", error: "MINOR" },
  },
  "staticcheck-style": {
    tool: "Staticcheck",
    ruleId: "ST1005",
    category: "STYLE",
    severities: { warning: "MINOR", error: "MINOR" },
  },
  "staticcheck-simplifications": {
    tool: "Staticcheck",
    ruleId: "S1003",
    category: "ANTI_PATTERN",
    severities: { warning: "MINOR", error: "MINOR" },
  },
  "gcc-analyzer-security": {
    tool: "gcc",
    ruleId: "-Wanalyzer-tainted-array-index",
    category: "SECURITY",
    severities: { warning: "MAJOR", error: "MAJOR" },
  },
  "gcc-analyzer": {
    tool: "gcc",
    ruleId: "-Wanalyzer-malloc-leak",
    category: "BUG_RISK",
    severities: { warning: "MAJOR", error: "MAJOR" },
  },
  "gcc-cleanups": { tool: "gcc", ruleId: "-Wunused-variable", category: "ANTI_PATTERN", severities: LINT },
  "gcc-warnings": { tool: "gcc", ruleId: "-Wformat=", category: "BUG_RISK", severities: LINT },
  "go-vet-defects": {
    tool: "go vet",
    ruleId: "copylocks",
    category: "BUG_RISK",
    severities: { warning: "MAJOR", error: "MAJOR" },
  },
  "go-vet-cleanups": {
    tool: "go vet",
    ruleId: "composites",
    category: "ANTI_PATTERN",
    severities: { warning: "MINOR", error: "MINOR" },
  },
  "go-vet-fieldalignment": {
    tool: "go vet",
    ruleId: "fieldalignment",
    category: "PERFORMANCE",
    severities: { warning: "MINOR" },
  },
  "pylint-security": { tool: "pylint", ruleId: "W0123", category: "SECURITY", severities: LINT },
  "pylint-documentation": { tool: "pylint", ruleId: "C0116", category: "DOCUMENTATION", severities: LINT },
  "pylint-cleanups": { tool: "pylint", ruleId: "W0611", category: "ANTI_PATTERN", severities: LINT },
  "pylint-error": { tool: "pylint", ruleId: "E0602", category: "BUG_RISK", severities: LINT },
  "pylint-warning": { tool: "pylint", ruleId: "W0102", category: "BUG_RISK", severities: LINT },
  "pylint-refactor": { tool: "pylint", ruleId: "R1705", category: "ANTI_PATTERN", severities: LINT },
  "pylint-convention": { tool: "pylint", ruleId: "C0103", category: "STYLE", severities: LINT },
  "pylint-informational": { tool: "pylint", ruleId: "I0021", category: "ANTI_PATTERN", severities: LINT },
  "security-scanners": { tool: "Bandit", ruleId: "B602", category: "SECURITY", severities: SECURITY_SCALE },
  "hadolint-parse": { tool: "Hadolint", ruleId: "DL1000", category: "BUG_RISK", severities: LINT },
  "hadolint-shellcheck": { tool: "Hadolint", ruleId: "SC2086", category: "BUG_RISK", severities: LINT },
  "hadolint-dockerfile": { tool: "Hadolint", ruleId: "DL3008", category: "ANTI_PATTERN", severities: LINT },
  "shellcheck-style": {
    tool: "shellcheck",
    ruleId: "SC2006",
    strings: { severity: "style" },
    category: "STYLE",
    severities: { note: "MINOR" },
  },
  shellcheck: {
    tool: "shellcheck",
    ruleId: "SC2068",
    strings: { severity: "error" },
    category: "BUG_RISK",
    severities: LINT,
  },
  "checkstyle-javadoc": {
    tool: "checkstyle",
    ruleId: "MissingJavadocMethod",
    strings: { checkPackage: "javadoc" },
    category: "DOCUMENTATION",
    severities: LINT,
  },
  "checkstyle-coding": {
    tool: "checkstyle",
    ruleId: "EqualsHashCode",
    strings: { checkPackage: "coding" },
    category: "ANTI_PATTERN",
    severities: LINT,
  },
  "checkstyle-style": {
    tool: "checkstyle",
    ruleId: "ConstantName",
    strings: { checkPackage: "naming" },
    category: "STYLE",
    severities: LINT,
  },
  "phpcs-commenting": {
    tool: "phpcs",
    ruleId: "Squiz.Commenting.FunctionComment.Missing",
    strings: { sniffCategory: "Commenting" },
    category: "DOCUMENTATION",
    severities: LINT,
  },
  "phpcs-analysis": {
    tool: "phpcs",
    ruleId: "Generic.CodeAnalysis.UnusedFunctionParameter.Found",
    strings: { sniffCategory: "CodeAnalysis" },
    category: "ANTI_PATTERN",
    severities: LINT,
  },
  "phpcs-style": {
    tool: "phpcs",
    ruleId: "PSR1.Methods.CamelCapsMethodName.NotCamelCaps",
    strings: { sniffCategory: "Methods" },
    category: "STYLE",
    severities: LINT,
  },
};

function ruleOf(id: string, strings: Record<string, string> = {}): SarifRule {
  return {
    id,
    index: 0,
    name: null,
    shortDescription: null,
    fullDescription: null,
    help: null,
    helpUri: null,
    defaultLevel: null,
    properties: { tags: [], securitySeverity: null, precision: null, problemSeverity: null, strings },
    taxa: [],
    messageStrings: {},
  };
}

function resultOf(rule: SarifRule, level: SarifLevel): SarifResult {
  return {
    runIndex: 0,
    index: 0,
    ruleId: rule.id,
    rule,
    level,
    ownLevel: level,
    kind: "fail",
    properties: { tags: [], securitySeverity: null, precision: null, problemSeverity: null, strings: {} },
    taxa: [],
    message: "m",
    locations: [],
    relatedLocations: [],
    suppressions: [],
    isSuppressed: false,
    baselineState: null,
    partialFingerprints: {},
    fingerprints: {},
  };
}

describe("tool families", () => {
  for (const row of FAMILY_ROWS) {
    it(`${row.key}: ${row.family}, ${row.rule.text}`, () => {
      const example = EXAMPLES[row.key];
      assert.ok(example, `row ${row.key} has an example`);
      const rule = ruleOf(example.ruleId, example.strings);
      assert.equal(familyRowOf(example.tool, rule)?.key, row.key, "the row decides its example");
      const tool = { name: example.tool };
      assert.equal(classifySarifRule(tool, rule).category, example.category);
      for (const [level, severity] of Object.entries(example.severities)) {
        assert.equal(severityOfResult(tool, resultOf(rule, level as SarifLevel)), severity, `at ${level}`);
      }
    });
  }

  it("names only rows of the table in its examples", () => {
    const keys = new Set(FAMILY_ROWS.map((row) => row.key));
    assert.equal(keys.size, FAMILY_ROWS.length, "row keys are unique");
    assert.deepEqual(
      Object.keys(EXAMPLES).filter((key) => !keys.has(key)),
      [],
    );
  });

  it("matches a tool by its driver name, case-insensitively, not by a look-alike", () => {
    const rule = ruleOf("core.NullDereference");
    assert.equal(familyRowOf("Clang", rule)?.key, "clang-defects");
    assert.equal(familyRowOf("clang static analyzer", rule)?.key, "clang-defects");
    assert.equal(familyRowOf("clang-tidy", rule), null);
    assert.equal(familyRowOf("my-clang", rule), null);
  });

  it("leaves rules the family does not know, and unknown tools, to the standard properties", () => {
    assert.equal(familyRowOf("Biome", ruleOf("lint/nursery/noFloatingPromises")), null);
    assert.equal(familyRowOf("ESLint", ruleOf("react/jsx-key")), null);
    assert.equal(familyRowOf("oxlint", ruleOf("eslint(x)", { category: "nursery" })), null);
    assert.equal(familyRowOf("clang", ruleOf("-Wunused-variable")), null);
    const unknown = classifySarifRule({ name: "some-linter" }, ruleOf("core.NullDereference"));
    assert.deepEqual(unknown, { category: "ANTI_PATTERN", severity: "MINOR", tags: [] });
  });

  it("reads stylelint's plugin rules by their plugin: @stylistic's as style, another's by the standard properties", () => {
    assert.equal(familyRowOf("stylelint", ruleOf("@stylistic/indentation"))?.key, "stylelint-conventions");
    assert.equal(familyRowOf("stylelint", ruleOf("scss/at-rule-no-unknown")), null);
    assert.equal(familyRowOf("markdownlint", ruleOf("MD013"))?.key, "markdownlint");
  });

  it("leaves a typescript-eslint rule it does not list, and a core ESLint rule's name under another plugin, to the standard properties", () => {
    assert.equal(familyRowOf("ESLint", ruleOf("@typescript-eslint/a-rule-from-a-later-version")), null);
    assert.equal(familyRowOf("ESLint", ruleOf("other-plugin/no-explicit-any")), null);
  });

  it("reads the clang analyzer's experimental (alpha) checkers like the stable ones", () => {
    assert.equal(familyRowOf("clang", ruleOf("alpha.security.ArrayBoundV2"))?.key, "clang-security");
    assert.equal(familyRowOf("clang", ruleOf("alpha.unix.Stream"))?.key, "clang-defects");
    assert.equal(familyRowOf("clang", ruleOf("alpha.deadcode.UnreachableCode"))?.key, "clang-deadcode");
  });

  it("lets a security signal in the tags win over the family, and a secret scanner over any tag", () => {
    const tagged = ruleOf("eqeqeq");
    tagged.properties.tags = ["external/cwe/cwe-1025"];
    assert.equal(classifySarifRule({ name: "ESLint" }, tagged).category, "SECURITY");
    const gitleaks = ruleOf("aws-access-token");
    gitleaks.properties.tags = ["style"];
    assert.deepEqual(classifySarifRule({ name: "gitleaks" }, gitleaks), {
      category: "SECRETS",
      severity: "CRITICAL",
      tags: ["style"],
    });
  });

  it("keeps cppcheck's CWEs as tags without making its findings security ones", () => {
    const rule = ruleOf("unreadVariable", { severity: "style", cwe: "563" });
    rule.taxa = [{ id: "563", taxonomy: "CWE" }];
    assert.deepEqual(classifySarifRule({ name: "cppcheck" }, rule), {
      category: "ANTI_PATTERN",
      severity: "MINOR",
      tags: ["cwe-563"],
    });
    // The same CWE from a tool that names CWEs only for weaknesses still says security.
    assert.equal(classifySarifRule({ name: "ESLint" }, rule).category, "SECURITY");
  });

  it("keeps GCC's CWEs as tags: a leak is a bug risk, attacker-controlled data a security finding", () => {
    const leak = ruleOf("-Wanalyzer-malloc-leak");
    leak.taxa = [{ id: "401", taxonomy: "CWE" }];
    assert.deepEqual(classifySarifRule({ name: "gcc" }, leak, "warning"), {
      category: "BUG_RISK",
      severity: "MAJOR",
      tags: ["cwe-401"],
    });
    const taint = ruleOf("-Wanalyzer-tainted-allocation-size");
    taint.taxa = [{ id: "789", taxonomy: "CWE" }];
    assert.equal(classifySarifRule({ name: "gcc" }, taint, "warning").category, "SECURITY");
  });

  it("lowers an inconclusive cppcheck finding one step", () => {
    const rule = ruleOf("nullPointer", { severity: "error" });
    const result = resultOf(rule, "error");
    result.properties.precision = "low";
    assert.equal(severityOfResult({ name: "cppcheck" }, result), "MINOR");
    assert.equal(severityOfResult({ name: "cppcheck" }, resultOf(rule, "error")), "MAJOR");
  });

  it("reads Staticcheck's checks by their group, whatever level its SARIF gives them", () => {
    // S1 is not SA nor ST; SA6 and SA1019 are taken out of the SA bugs; the doc-comment checks out
    // of ST; `staticcheck` (a directive that matched nothing) and U1000 are code to clean up.
    const cases: Array<[string, string]> = [
      ["SA1000", "BUG_RISK MAJOR"],
      ["SA2000", "BUG_RISK MAJOR"],
      ["SA4017", "BUG_RISK MAJOR"],
      ["SA9003", "BUG_RISK MAJOR"],
      ["SA1019", "ANTI_PATTERN MINOR"],
      ["SA6000", "PERFORMANCE MINOR"],
      ["S1006", "ANTI_PATTERN MINOR"],
      ["QF1001", "ANTI_PATTERN MINOR"],
      ["U1000", "ANTI_PATTERN MINOR"],
      ["staticcheck", "ANTI_PATTERN MINOR"],
      ["ST1000", "DOCUMENTATION MINOR"],
      ["ST1022", "DOCUMENTATION MINOR"],
      ["ST1003", "STYLE MINOR"],
      ["compile", "BUG_RISK MAJOR"],
    ];
    for (const [id, expected] of cases) {
      const rule = ruleOf(id);
      for (const level of ["error", "warning", "note"] as const) {
        const { category } = classifySarifRule({ name: "Staticcheck" }, rule, level);
        const severity = severityOfResult({ name: "Staticcheck" }, resultOf(rule, level));
        assert.equal(`${category} ${severity}`, expected, `${id} at ${level}`);
      }
    }
    // Another tool's rule of the same id is not Staticcheck's.
    assert.equal(familyRowOf("golangci-lint", ruleOf("SA5011")), null);
  });

  it("keeps a family's fixed severity over a security-severity and a low precision", () => {
    const rule = ruleOf("core.NullDereference");
    rule.properties.securitySeverity = 2;
    rule.properties.precision = "low";
    assert.equal(classifySarifRule({ name: "clang" }, rule).severity, "MAJOR");
  });
});
