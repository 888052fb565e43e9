// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifySarifRule, cweTagOf, normaliseTags, severityOfResult, severityOfScore } from "./mapping.ts";
import type { SarifProperties, SarifResult, SarifRule } from "./types.ts";

/**
 * One test per row of docs/ingestion-sarif.md "Classification" (the standard properties); the
 * tool-family rows are tested in tool-families.test.ts.
 */

const UNKNOWN_TOOL = { name: "some-linter" };

function properties(overrides: Partial<SarifProperties> = {}): SarifProperties {
  return {
    tags: [],
    securitySeverity: null,
    precision: null,
    problemSeverity: null,
    strings: {},
    ...overrides,
  };
}

function rule(
  overrides: Partial<Omit<SarifRule, "properties">> & { properties?: Partial<SarifProperties> } = {},
) {
  const { properties: bag, ...rest } = overrides;
  const value: SarifRule = {
    id: "r",
    index: 0,
    name: null,
    shortDescription: null,
    fullDescription: null,
    help: null,
    helpUri: null,
    defaultLevel: null,
    taxa: [],
    messageStrings: {},
    ...rest,
    properties: properties(bag),
  };
  return value;
}

function result(
  ruleValue: SarifRule | null,
  overrides: Partial<Omit<SarifResult, "properties">> & { properties?: Partial<SarifProperties> } = {},
): SarifResult {
  const { properties: bag, ...rest } = overrides;
  const ownLevel = rest.ownLevel ?? null;
  const kind = rest.kind ?? "fail";
  return {
    runIndex: 0,
    index: 0,
    ruleId: ruleValue?.id ?? "r",
    rule: ruleValue,
    level: ownLevel ?? (kind !== "fail" ? "none" : (ruleValue?.defaultLevel ?? "warning")),
    ownLevel,
    kind,
    taxa: [],
    message: "m",
    locations: [],
    relatedLocations: [],
    suppressions: [],
    isSuppressed: false,
    baselineState: null,
    partialFingerprints: {},
    fingerprints: {},
    ...rest,
    properties: properties(bag),
  };
}

const categoryOf = (value: SarifRule) => classifySarifRule(UNKNOWN_TOOL, value).category;

describe("category", () => {
  it("is SECRETS when a tag names secrets, before any security word", () => {
    assert.equal(categoryOf(rule({ properties: { tags: ["security", "secret"] } })), "SECRETS");
    assert.equal(categoryOf(rule({ properties: { tags: ["Credentials"] } })), "SECRETS");
  });

  it("is SECURITY for a security word, a CWE tag, a CWE relationship or a security-severity", () => {
    assert.equal(categoryOf(rule({ properties: { tags: ["vulnerability"] } })), "SECURITY");
    assert.equal(categoryOf(rule({ properties: { tags: ["external/cwe/cwe-079"] } })), "SECURITY");
    assert.equal(categoryOf(rule({ taxa: [{ id: "476", taxonomy: "CWE" }] })), "SECURITY");
    assert.equal(categoryOf(rule({ properties: { securitySeverity: 5 } })), "SECURITY");
  });

  it("reads the other groups from tags, a tag also matching on its last segment", () => {
    assert.equal(categoryOf(rule({ properties: { tags: ["quality/performance"] } })), "PERFORMANCE");
    assert.equal(categoryOf(rule({ properties: { tags: ["types"] } })), "TYPECHECK");
    assert.equal(categoryOf(rule({ properties: { tags: ["jsdoc"] } })), "DOCUMENTATION");
    assert.equal(categoryOf(rule({ properties: { tags: ["stylistic"] } })), "STYLE");
    assert.equal(categoryOf(rule({ properties: { tags: ["correctness"] } })), "BUG_RISK");
    assert.equal(categoryOf(rule({ properties: { tags: ["Maintainability"] } })), "ANTI_PATTERN");
  });

  it("reads properties.category with the same words when the tags say nothing", () => {
    assert.equal(categoryOf(rule({ properties: { strings: { category: "Possible Errors" } } })), "BUG_RISK");
    assert.equal(categoryOf(rule({ properties: { strings: { category: "Stylistic Issues" } } })), "STYLE");
    assert.equal(
      categoryOf(rule({ properties: { tags: ["performance"], strings: { category: "Stylistic Issues" } } })),
      "PERFORMANCE",
      "tags come first",
    );
  });

  it("falls back on the level: BUG_RISK for error, ANTI_PATTERN otherwise", () => {
    assert.equal(categoryOf(rule({ defaultLevel: "error" })), "BUG_RISK");
    assert.equal(categoryOf(rule({ defaultLevel: "note" })), "ANTI_PATTERN");
    assert.equal(categoryOf(rule()), "ANTI_PATTERN");
    assert.equal(classifySarifRule(UNKNOWN_TOOL, rule(), "error").category, "BUG_RISK", "the level observed");
  });
});

describe("issue severity", () => {
  it("bands security-severity: ≥ 9.0 CRITICAL, ≥ 4.0 MAJOR, below MINOR", () => {
    assert.deepEqual([9.8, 9, 8.9, 7, 6.1, 4, 3.9, 0].map(severityOfScore), [
      "CRITICAL",
      "CRITICAL",
      "MAJOR",
      "MAJOR",
      "MAJOR",
      "MAJOR",
      "MINOR",
      "MINOR",
    ]);
    const xss = rule({ defaultLevel: "note", properties: { tags: ["security"], securitySeverity: 9.3 } });
    assert.equal(classifySarifRule(UNKNOWN_TOOL, xss).severity, "CRITICAL", "the score wins over the level");
  });

  it("reads the declared level: defaultConfiguration.level, else problem.severity", () => {
    const severity = (value: SarifRule) => classifySarifRule(UNKNOWN_TOOL, value).severity;
    assert.equal(severity(rule({ defaultLevel: "error" })), "MAJOR");
    assert.equal(severity(rule({ defaultLevel: "warning" })), "MINOR");
    assert.equal(severity(rule({ properties: { problemSeverity: "error" } })), "MAJOR");
    assert.equal(severity(rule({ properties: { problemSeverity: "recommendation" } })), "MINOR");
    assert.equal(
      severity(rule({ defaultLevel: "note", properties: { problemSeverity: "error" } })),
      "MINOR",
      "defaultConfiguration.level first",
    );
  });

  it("takes the highest level observed when the rule declares none, else warning", () => {
    assert.equal(classifySarifRule(UNKNOWN_TOOL, rule(), "error").severity, "MAJOR");
    assert.equal(classifySarifRule(UNKNOWN_TOOL, rule()).severity, "MINOR");
    assert.equal(
      classifySarifRule(UNKNOWN_TOOL, rule({ defaultLevel: "note" }), "error").severity,
      "MINOR",
      "a declared level is not overridden by what was observed",
    );
  });

  it("lowers a low-precision rule one step", () => {
    const low = (severity: number) =>
      classifySarifRule(UNKNOWN_TOOL, rule({ properties: { securitySeverity: severity, precision: "low" } }));
    assert.equal(low(9.5).severity, "MAJOR");
    assert.equal(low(7).severity, "MINOR");
    assert.equal(
      classifySarifRule(UNKNOWN_TOOL, rule({ defaultLevel: "error", properties: { precision: "high" } }))
        .severity,
      "MAJOR",
    );
  });
});

describe("occurrence severity", () => {
  it("reads the result's own level before the rule's", () => {
    const declared = rule({ defaultLevel: "warning" });
    assert.equal(severityOfResult(UNKNOWN_TOOL, result(declared, { ownLevel: "error" })), "MAJOR");
    assert.equal(severityOfResult(UNKNOWN_TOOL, result(declared)), "MINOR");
    assert.equal(
      severityOfResult(UNKNOWN_TOOL, result(rule({ defaultLevel: "error" }), { ownLevel: "note" })),
      "MINOR",
    );
  });

  it("reads the rule's problem.severity when neither the result nor the rule gives a level", () => {
    assert.equal(
      severityOfResult(UNKNOWN_TOOL, result(rule({ properties: { problemSeverity: "error" } }))),
      "MAJOR",
    );
  });

  it("takes the result's security-severity before the rule's", () => {
    const scored = rule({ properties: { securitySeverity: 5 } });
    assert.equal(severityOfResult(UNKNOWN_TOOL, result(scored)), "MAJOR");
    assert.equal(
      severityOfResult(UNKNOWN_TOOL, result(scored, { properties: { securitySeverity: 9.1 } })),
      "CRITICAL",
    );
  });

  it("reads a non-failure kind without a level as none (MINOR)", () => {
    const declared = rule({ defaultLevel: "error" });
    assert.equal(severityOfResult(UNKNOWN_TOOL, result(declared, { kind: "review" })), "MINOR");
    assert.equal(
      severityOfResult(UNKNOWN_TOOL, result(declared, { kind: "review", ownLevel: "error" })),
      "MAJOR",
    );
  });

  it("grades a result of an undescribed rule by its own properties", () => {
    assert.equal(severityOfResult(UNKNOWN_TOOL, result(null, { ownLevel: "error" })), "MAJOR");
    assert.equal(
      severityOfResult(UNKNOWN_TOOL, result(null, { properties: { securitySeverity: 9.9 } })),
      "CRITICAL",
    );
  });

  it("lowers a low-precision result one step", () => {
    assert.equal(
      severityOfResult(
        UNKNOWN_TOOL,
        result(rule({ properties: { precision: "low" } }), { ownLevel: "error" }),
      ),
      "MINOR",
    );
  });
});

describe("tags", () => {
  it("normalises the usual CWE spellings to cwe-<n>", () => {
    assert.equal(cweTagOf("external/cwe/cwe-79"), "cwe-79");
    assert.equal(cweTagOf("CWE-079"), "cwe-79");
    assert.equal(cweTagOf("cwe/22"), "cwe-22");
    assert.equal(
      cweTagOf("CWE-89: Improper Neutralization of Special Elements used in an SQL Command"),
      "cwe-89",
    );
    assert.equal(cweTagOf("security"), null);
    assert.equal(cweTagOf("cwe-top-25"), null);
    assert.deepEqual(normaliseTags(["CWE-79", "external/cwe/cwe-79", " Security "]), ["cwe-79", "security"]);
  });

  it("names an OWASP Top 10 2021 category as the reports do", () => {
    assert.deepEqual(normaliseTags(["OWASP-A03:2021 - Injection", "OWASP-A01:2017 - Injection"]), [
      "owasp-top-10-2021-a03",
      "owasp-a01:2017 - injection",
    ]);
  });

  it("adds a CWE tag for each relationship to a CWE taxon", () => {
    const related = rule({
      properties: { tags: ["security"] },
      taxa: [
        { id: "787", taxonomy: "CWE" },
        { id: "CWE-416", taxonomy: null },
        { id: "A03", taxonomy: "OWASP" },
      ],
    });
    assert.deepEqual(classifySarifRule(UNKNOWN_TOOL, related).tags, ["security", "cwe-787", "cwe-416"]);
  });
});
