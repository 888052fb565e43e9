// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifySarifRule, cweTagOf, normaliseTags } from "./mapping.ts";
import type { SarifRule } from "./types.ts";

function rule(overrides: Partial<SarifRule>): SarifRule {
  return {
    id: "r",
    index: 0,
    name: null,
    shortDescription: null,
    fullDescription: null,
    help: null,
    helpUri: null,
    defaultLevel: null,
    tags: [],
    securitySeverity: null,
    precision: null,
    problemSeverity: null,
    messageStrings: {},
    ...overrides,
  };
}

describe("classifySarifRule", () => {
  it("maps CodeQL security rules by security-severity bands", () => {
    const tags = ["security", "external/cwe/cwe-079", "external/cwe/cwe-116"];
    assert.deepEqual(classifySarifRule(rule({ tags, securitySeverity: 9.3 })), {
      category: "SECURITY",
      severity: "CRITICAL",
      tags: ["security", "cwe-79", "cwe-116"],
    });
    assert.equal(classifySarifRule(rule({ tags, securitySeverity: 7.8 })).severity, "MAJOR");
    assert.equal(classifySarifRule(rule({ tags, securitySeverity: 4 })).severity, "MAJOR");
    assert.equal(classifySarifRule(rule({ tags, securitySeverity: 3.9 })).severity, "MINOR");
  });

  it("counts a CWE tag or a security-severity as security even without a security tag", () => {
    assert.equal(classifySarifRule(rule({ tags: ["CWE-89"] })).category, "SECURITY");
    assert.equal(classifySarifRule(rule({ securitySeverity: 5 })).category, "SECURITY");
  });

  it("prefers secrets over security", () => {
    assert.equal(classifySarifRule(rule({ tags: ["security", "secrets"] })).category, "SECRETS");
  });

  it("reads category words from tag segments", () => {
    assert.equal(classifySarifRule(rule({ tags: ["quality/performance"] })).category, "PERFORMANCE");
    assert.equal(classifySarifRule(rule({ tags: ["Maintainability"] })).category, "ANTI_PATTERN");
    assert.equal(classifySarifRule(rule({ tags: ["correctness"] })).category, "BUG_RISK");
    assert.equal(classifySarifRule(rule({ tags: ["stylistic"] })).category, "STYLE");
    assert.equal(classifySarifRule(rule({ tags: ["jsdoc"] })).category, "DOCUMENTATION");
    assert.equal(classifySarifRule(rule({ tags: ["types"] })).category, "TYPECHECK");
  });

  it("falls back on the level for category and severity", () => {
    assert.deepEqual(classifySarifRule(rule({ defaultLevel: "error" })), {
      category: "BUG_RISK",
      severity: "MAJOR",
      tags: [],
    });
    assert.deepEqual(classifySarifRule(rule({})), { category: "ANTI_PATTERN", severity: "MINOR", tags: [] });
    assert.equal(classifySarifRule(rule({ defaultLevel: "note" }), "error").severity, "MAJOR");
  });

  it("uses problem.severity when there is no security-severity", () => {
    assert.equal(
      classifySarifRule(rule({ problemSeverity: "error", defaultLevel: "note" })).severity,
      "MAJOR",
    );
    assert.equal(
      classifySarifRule(rule({ problemSeverity: "recommendation", defaultLevel: "error" })).severity,
      "MINOR",
    );
  });
});

describe("CWE tags", () => {
  it("normalises the usual spellings to cwe-<n>", () => {
    assert.equal(cweTagOf("external/cwe/cwe-79"), "cwe-79");
    assert.equal(cweTagOf("CWE-079"), "cwe-79");
    assert.equal(cweTagOf("cwe/22"), "cwe-22");
    assert.equal(cweTagOf("security"), null);
    assert.deepEqual(normaliseTags(["CWE-79", "external/cwe/cwe-79", " Security "]), ["cwe-79", "security"]);
  });
});
