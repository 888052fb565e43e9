// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readFindings } from "../findings.ts";
import { readToolFixture, readToolSummary, toolFixture } from "../fixtures.ts";
import { classifySarifRule, severityOfResult } from "./mapping.ts";
import type { SarifResult, SarifTool, SarifToolError } from "./types.ts";

/**
 * Classification of the reports real tools wrote (src/formats/sarif/fixtures/, made by
 * scripts/make-fixtures.sh: SARIF, and cppcheck's XML), compared with each tool's own summary:
 * every result is read, its level becomes the severity the tool meant, and its rule the category
 * its family says.
 */

interface Classified {
  ruleId: string;
  path: string | null;
  level: string;
  category: string;
  severity: string;
}

/** Reads a fixture with its run's workDir and classifies every result (a repeated one once, as processing does). */
async function classify(tool: string, name: string): Promise<Classified[]> {
  const fixture = toolFixture("sarif", tool, name);
  const tools = new Map<number, SarifTool>();
  const results: Array<{ result: SarifResult; tool: SarifTool }> = [];
  for await (const event of readFindings([readToolFixture("sarif", tool, name)], {
    workDir: fixture.workDir,
  })) {
    if (event.type === "run") tools.set(event.run.index, event.run.tool);
    else if (event.type === "result" && event.result.repeatOf === undefined)
      results.push({ result: event.result, tool: tools.get(event.result.runIndex)! });
  }
  return results.map(({ result, tool: driver }) => {
    const rule = result.rule ?? {
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
    return {
      ruleId: result.ruleId,
      path: result.locations[0]?.path ?? null,
      level: result.level,
      category: classifySarifRule(driver, rule, result.level).category,
      severity: severityOfResult(driver, result),
    };
  });
}

/** Results per rule: `{ errors, warnings }` by SARIF level, and the severities they got. */
function countsByRule(rows: readonly Classified[]) {
  const byRule: Record<string, { errors: number; warnings: number; MAJOR: number; MINOR: number }> = {};
  for (const row of rows) {
    const counts = byRule[row.ruleId] ?? { errors: 0, warnings: 0, MAJOR: 0, MINOR: 0 };
    byRule[row.ruleId] = counts;
    if (row.level === "error") counts.errors += 1;
    if (row.level === "warning") counts.warnings += 1;
    if (row.severity === "MAJOR" || row.severity === "MINOR") counts[row.severity] += 1;
  }
  return byRule;
}

/** The category of each rule's results (one per rule, or a list when they disagree). */
function categoriesByRule(rows: readonly Classified[]): Record<string, string> {
  const byRule: Record<string, Set<string>> = {};
  for (const row of rows) byRule[row.ruleId] = new Set([...(byRule[row.ruleId] ?? []), row.category]);
  return Object.fromEntries(Object.entries(byRule).map(([rule, set]) => [rule, [...set].sort().join(",")]));
}

/** ESLint's problems of no rule (from its JSON output), which its SARIF formatter files as notifications. */
interface EslintNotices {
  withoutRule: Array<{ file: string; line: number; column: number; level: string; message: string }>;
}

type LintSummary = {
  errors: number;
  warnings: number;
  byRule: Record<string, { errors: number; warnings: number }>;
};

/** For a linter graded by levels: each rule's errors are MAJOR and its warnings MINOR, as many as the tool counted. */
function assertLevelsBecomeSeverities(rows: readonly Classified[], summary: LintSummary): void {
  assert.equal(rows.length, summary.errors + summary.warnings, "every result the tool counted is read");
  const actual = countsByRule(rows);
  const expected = Object.fromEntries(
    Object.entries(summary.byRule).map(([rule, c]) => [
      rule,
      { errors: c.errors, warnings: c.warnings, MAJOR: c.errors, MINOR: c.warnings },
    ]),
  );
  assert.deepEqual(actual, expected);
}

describe("real tools' SARIF", () => {
  it("ESLint: core rules by their type, errors MAJOR and warnings MINOR as ESLint counted them", async () => {
    const rows = await classify("eslint", "eslint.sarif");
    const summary = readToolSummary("sarif", "eslint", "eslint.sarif").figures as unknown as LintSummary &
      EslintNotices;
    // ESLint counts its problems of no rule (an unused directive) among its errors: not results.
    const without = (level: string) => summary.withoutRule.filter((notice) => notice.level === level).length;
    assertLevelsBecomeSeverities(rows, {
      ...summary,
      errors: summary.errors - without("error"),
      warnings: summary.warnings - without("warning"),
    });
    assert.deepEqual(categoriesByRule(rows), {
      complexity: "ANTI_PATTERN",
      eqeqeq: "ANTI_PATTERN",
      "no-debugger": "BUG_RISK",
      "no-dupe-keys": "BUG_RISK",
      "no-empty": "ANTI_PATTERN",
      "no-eval": "SECURITY",
      "no-self-assign": "BUG_RISK",
      "no-undef": "BUG_RISK",
      "no-unreachable": "BUG_RISK",
      "no-unused-vars": "BUG_RISK",
      "no-var": "ANTI_PATTERN",
      "use-isnan": "BUG_RISK",
    });
  });

  it("ESLint: an unused eslint-disable directive, which ESLint printed as an error of no rule, is an error about its configuration", async () => {
    const summary = readToolSummary("sarif", "eslint", "eslint.sarif").figures as unknown as EslintNotices;
    assert.ok(summary.withoutRule.length > 0, "the js-lint project has an unused directive");
    const errors: SarifToolError[] = [];
    for await (const event of readFindings([readToolFixture("sarif", "eslint", "eslint.sarif")], {
      workDir: toolFixture("sarif", "eslint", "eslint.sarif").workDir,
    })) {
      if (event.type === "toolError") errors.push(event.error);
    }
    assert.deepEqual(
      errors,
      summary.withoutRule
        .filter((notice) => notice.level === "error")
        .map((notice) => ({
          runIndex: 0,
          message: notice.message,
          path: notice.file,
          line: notice.line,
          configuration: true,
        })),
    );
  });

  it("Biome: rules by their group, errors MAJOR and warnings MINOR as Biome counted them", async () => {
    const rows = await classify("biome", "biome.sarif");
    assertLevelsBecomeSeverities(
      rows,
      readToolSummary("sarif", "biome", "biome.sarif").figures as LintSummary,
    );
    const categories = categoriesByRule(rows);
    for (const [rule, category] of Object.entries(categories)) {
      const group = rule.split("/")[1];
      const expected = {
        a11y: "BUG_RISK",
        complexity: "ANTI_PATTERN",
        correctness: "BUG_RISK",
        performance: "PERFORMANCE",
        security: "SECURITY",
        style: "STYLE",
        suspicious: "BUG_RISK",
      }[group ?? ""];
      assert.equal(category, expected, rule);
    }
    assert.equal(categories["lint/style/useTemplate"], "STYLE", "a style rule stays STYLE");
    assert.ok(rows.filter((r) => r.ruleId === "lint/style/useTemplate").every((r) => r.severity === "MINOR"));
  });

  it("oxlint: rules by their category, errors MAJOR and warnings MINOR as oxlint counted them", async () => {
    const rows = await classify("oxlint", "oxlint.sarif");
    assertLevelsBecomeSeverities(
      rows,
      readToolSummary("sarif", "oxlint", "oxlint.sarif").figures as LintSummary,
    );
    assert.deepEqual(categoriesByRule(rows), {
      "eslint(eqeqeq)": "ANTI_PATTERN",
      "eslint(no-debugger)": "BUG_RISK",
      "eslint(no-dupe-keys)": "BUG_RISK",
      "eslint(no-eval)": "SECURITY",
      "eslint(no-self-assign)": "BUG_RISK",
      "eslint(no-unreachable)": "BUG_RISK",
      "eslint(no-unused-vars)": "BUG_RISK",
      "eslint(no-var)": "ANTI_PATTERN",
      "eslint(use-isnan)": "BUG_RISK",
      "jsx-a11y(alt-text)": "BUG_RISK",
      "jsx-a11y(anchor-is-valid)": "BUG_RISK",
      "jsx-a11y(click-events-have-key-events)": "BUG_RISK",
      "jsx-a11y(no-static-element-interactions)": "BUG_RISK",
      "oxc(no-accumulating-spread)": "PERFORMANCE",
    });
  });

  it("clang's analyzer: defects are MAJOR bug risks, insecure calls security, dead stores MINOR", async () => {
    for (const name of ["inventory.sarif", "main.sarif"]) {
      const rows = await classify("clang", name);
      const summary = readToolSummary("sarif", "clang", name).figures as {
        warnings: number;
        byChecker: Record<string, number>;
      };
      assert.equal(rows.length, summary.warnings, `${name}: every warning clang printed`);
      const byChecker: Record<string, number> = {};
      for (const row of rows) byChecker[row.ruleId] = (byChecker[row.ruleId] ?? 0) + 1;
      assert.deepEqual(byChecker, summary.byChecker, name);
      assert.ok(
        rows.every((row) => row.level === "warning"),
        "clang writes no level",
      );
    }
    const rows = await classify("clang", "inventory.sarif");
    const lines = rows.map((r) => `${r.ruleId} ${r.category} ${r.severity}`).sort();
    assert.deepEqual(
      [...new Set(lines)],
      [
        "core.DivideZero BUG_RISK MAJOR",
        "core.NullDereference BUG_RISK MAJOR",
        "deadcode.DeadStores ANTI_PATTERN MINOR",
        "security.insecureAPI.strcpy SECURITY MAJOR",
        "unix.Malloc BUG_RISK MAJOR",
      ],
    );
    assert.deepEqual(
      (await classify("clang", "main.sarif")).map((r) => `${r.ruleId} ${r.category} ${r.severity}`),
      ["security.insecureAPI.gets SECURITY MAJOR"],
    );
  });

  it("cppcheck (XML): each finding by cppcheck's severity, as many per check as cppcheck printed", async () => {
    const rows = await classify("cppcheck", "cppcheck.xml");
    const summary = readToolSummary("sarif", "cppcheck", "cppcheck.xml").figures as {
      problems: number;
      byRule: Record<string, { severity: string; count: number; inconclusive: number }>;
    };
    assert.equal(rows.length, summary.problems, "every finding cppcheck printed");
    // docs/ingestion-sarif.md "cppcheck": the category and severity of each of cppcheck's severities.
    const documented: Record<string, string> = {
      error: "BUG_RISK MAJOR",
      warning: "BUG_RISK MAJOR",
      style: "ANTI_PATTERN MINOR",
      performance: "PERFORMANCE MINOR",
      portability: "BUG_RISK MINOR",
      information: "ANTI_PATTERN MINOR",
    };
    const actual: Record<string, string[]> = {};
    for (const row of rows)
      actual[row.ruleId] = [...(actual[row.ruleId] ?? []), `${row.category} ${row.severity}`];
    const expected: Record<string, string[]> = {};
    for (const [rule, { severity, count }] of Object.entries(summary.byRule)) {
      const mapped = documented[severity];
      assert.ok(mapped, `${rule}: cppcheck severity ${severity} has a documented mapping`);
      expected[rule] = Array.from({ length: count }, () => mapped);
    }
    assert.deepEqual(actual, expected);
    assert.ok(summary.byRule.memleak && summary.byRule.uninitvar, "the fixture has an error and a warning");
  });

  it("Staticcheck: each check by its group (SA bugs MAJOR, the rest MINOR), as many per check as it printed", async () => {
    const rows = await classify("staticcheck", "staticcheck.sarif");
    const summary = readToolSummary("sarif", "staticcheck", "staticcheck.sarif").figures as LintSummary & {
      ignored: number;
    };
    assert.equal(rows.length, summary.errors + summary.warnings, "every finding Staticcheck printed");
    assert.ok(summary.ignored > 0, "the fixture has a finding a //lint:ignore directive silences");
    // docs/ingestion-sarif.md "Staticcheck": the category and severity of each group of checks.
    const documented = (check: string): string => {
      if (check === "compile") return "BUG_RISK MAJOR";
      if (check === "SA1019") return "ANTI_PATTERN MINOR";
      if (check.startsWith("SA6")) return "PERFORMANCE MINOR";
      if (check.startsWith("SA")) return "BUG_RISK MAJOR";
      if (["ST1000", "ST1020", "ST1021", "ST1022"].includes(check)) return "DOCUMENTATION MINOR";
      if (check.startsWith("ST1")) return "STYLE MINOR";
      if (/^(S1|QF1|U1)/.test(check) || check === "staticcheck") return "ANTI_PATTERN MINOR";
      throw new Error(`Staticcheck check ${check} has no documented mapping`);
    };
    const actual: Record<string, string[]> = {};
    for (const row of rows)
      actual[row.ruleId] = [...(actual[row.ruleId] ?? []), `${row.category} ${row.severity}`];
    const expected: Record<string, string[]> = {};
    for (const [check, { errors, warnings }] of Object.entries(summary.byRule)) {
      expected[check] = Array.from({ length: errors + warnings }, () => documented(check));
    }
    assert.deepEqual(actual, expected);
    // Its results carry no level: a rule's default decides it (error for a few SA checks), and the
    // severity does not depend on it.
    const levels = new Set(rows.filter((row) => row.ruleId === "SA5009").map((row) => row.level));
    assert.deepEqual([...levels], ["error"]);
    assert.ok(
      rows.some((row) => row.ruleId === "SA5011" && row.level === "warning" && row.severity === "MAJOR"),
    );
    // Paths are relative to the module, where it ran; a package that does not compile is there too.
    assert.ok(rows.some((row) => row.ruleId === "compile" && row.path === "internal/legacy/legacy.go"));
  });

  it("GCC (JSON): each warning by its option; the analyzer's MAJOR bug risks, the rest by the level GCC gave", async () => {
    const rows = await classify("gcc", "gcc.json");
    const summary = readToolSummary("sarif", "gcc", "gcc.json").figures as LintSummary;
    assert.equal(rows.length, summary.errors + summary.warnings, "every distinct warning GCC printed");
    // docs/ingestion-sarif.md "GCC": the analyzer's warnings MAJOR bug risks; unused and sign
    // comparisons anti-patterns and the other warnings bug risks, on the lint scale.
    const documented = (option: string, level: "error" | "warning"): string => {
      if (option.startsWith("-Wanalyzer-tainted-") || option.startsWith("-Wanalyzer-exposure-through-"))
        return "SECURITY MAJOR";
      if (option.startsWith("-Wanalyzer-")) return "BUG_RISK MAJOR";
      const severity = level === "error" ? "MAJOR" : "MINOR";
      const cleanup = [
        "-Wunused",
        "-Wshadow",
        "-Wpedantic",
        "-Wsign-compare",
        "-Wsign-conversion",
        "-Wconversion",
      ];
      return `${cleanup.some((prefix) => option.startsWith(prefix)) ? "ANTI_PATTERN" : "BUG_RISK"} ${severity}`;
    };
    const actual: Record<string, string[]> = {};
    for (const row of rows)
      actual[row.ruleId] = [...(actual[row.ruleId] ?? []), `${row.category} ${row.severity}`];
    const expected: Record<string, string[]> = {};
    for (const [printed, { errors, warnings }] of Object.entries(summary.byRule)) {
      const option = printed.replace(/^-Werror=/, "-W");
      expected[option] = [
        ...Array.from({ length: errors }, () => documented(option, "error")),
        ...Array.from({ length: warnings }, () => documented(option, "warning")),
      ];
    }
    assert.deepEqual(actual, expected);
    assert.deepEqual(actual["-Wunused-variable"], ["ANTI_PATTERN MAJOR"], "-Werror= made it an error");
  });

  it("go vet (JSON): each analyzer's findings, as many as vet alone printed; defects MAJOR, unkeyed fields and dead code MINOR", async () => {
    const rows = await classify("govet", "vet.json");
    const summary = readToolSummary("sarif", "govet", "vet.json").figures as {
      findings: number;
      byRule: Record<string, number>;
    };
    assert.equal(rows.length, summary.findings, "every finding vet printed");
    // docs/ingestion-sarif.md "go vet": the analyzers that find defects, and the two that do not.
    const cleanups = new Set(["composites", "unreachable"]);
    const actual: Record<string, string[]> = {};
    for (const row of rows)
      actual[row.ruleId] = [...(actual[row.ruleId] ?? []), `${row.category} ${row.severity}`];
    const expected: Record<string, string[]> = {};
    for (const [analyzer, count] of Object.entries(summary.byRule)) {
      const mapped = cleanups.has(analyzer) ? "ANTI_PATTERN MINOR" : "BUG_RISK MAJOR";
      expected[analyzer] = Array.from({ length: count }, () => mapped);
    }
    assert.deepEqual(actual, expected);
    assert.ok(summary.byRule.copylocks && summary.byRule.composites, "the fixture has both kinds");
  });

  it("secretlint: every leaked credential is SECRETS and CRITICAL", async () => {
    const rows = await classify("secretlint", "secretlint.sarif");
    const summary = readToolSummary("sarif", "secretlint", "secretlint.sarif").figures as {
      problems: number;
      byRule: Record<string, number>;
    };
    assert.equal(rows.length, summary.problems);
    const byRule: Record<string, number> = {};
    for (const row of rows) byRule[row.ruleId] = (byRule[row.ruleId] ?? 0) + 1;
    assert.deepEqual(byRule, summary.byRule);
    assert.ok(rows.every((row) => row.category === "SECRETS" && row.severity === "CRITICAL"));
    assert.ok(
      rows.some((row) => row.ruleId.endsWith("secretlint-rule-aws") && row.path === "config/settings.py"),
    );
  });
});
