import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ANALYZERS, catalogKey, FORMATTERS } from "./catalog-data.ts";
import {
  OWASP_2021_BY_CWE,
  SANS_TOP_25_2023,
  SANS_TOP_25_TAG,
  tagsFor,
  withStandardTags,
} from "./data/standards.ts";

const ALL_ISSUES = ANALYZERS.flatMap((a) => a.issues.map((issue) => ({ analyzer: a.shortcode, ...issue })));

describe("the built-in catalog", () => {
  test("has every analyzer the product promises, with at least 200 issues across them", () => {
    const shortcodes = ANALYZERS.map((a) => a.shortcode);
    for (const required of [
      "python",
      "javascript",
      "go",
      "java",
      "ruby",
      "rust",
      "php",
      "csharp",
      "docker",
      "terraform",
      "shell",
      "sql",
      "secrets",
      "test-coverage",
      "cxx",
    ]) {
      assert.ok(shortcodes.includes(required), required);
    }
    assert.equal(new Set(shortcodes).size, shortcodes.length);
    assert.ok(ALL_ISSUES.length >= 200, `${ALL_ISSUES.length} issues`);
  });

  test("issue shortcodes are unique, and titles and descriptions are filled in", () => {
    const seen = new Set<string>();
    for (const issue of ALL_ISSUES) {
      assert.ok(!seen.has(issue.shortcode), `duplicate ${issue.shortcode}`);
      seen.add(issue.shortcode);
      assert.match(issue.shortcode, /^[A-Z]+(-[A-Z]*\d+[A-Z0-9]*)+$|^[A-Z]+-[A-Z]+\d+$/, issue.shortcode);
      assert.ok(
        issue.title.length > 0 && issue.summary.length > 0 && issue.detail.length > 0,
        issue.shortcode,
      );
    }
  });

  test("every category and severity occurs, with minor issues the most common", () => {
    const categories = new Set(ALL_ISSUES.map((i) => i.category));
    assert.equal(categories.size, 9);
    const bySeverity = (s: string) => ALL_ISSUES.filter((i) => i.severity === s).length;
    assert.ok(bySeverity("MINOR") > bySeverity("MAJOR") && bySeverity("MAJOR") > bySeverity("CRITICAL"));
  });

  test("security and secrets issues name their weaknesses with CWE ids", () => {
    for (const issue of ALL_ISSUES.filter((i) => i.category === "SECRETS")) {
      assert.ok(issue.cwe.length > 0, issue.shortcode);
    }
    const security = ALL_ISSUES.filter((i) => i.category === "SECURITY");
    assert.ok(security.filter((i) => i.cwe.length > 0).length / security.length > 0.9);
  });

  test("the C and C++ analyzer checks MISRA C:2012 rules, and only it does", () => {
    const misra = ALL_ISSUES.filter((i) => i.misra !== undefined);
    assert.ok(misra.length >= 15);
    assert.ok(misra.every((i) => i.analyzer === "cxx" && /^\d+\.\d+$/.test(i.misra!)));
  });

  test("formatters link to analyzers that exist", () => {
    const analyzers = new Set(ANALYZERS.map((a) => a.shortcode));
    for (const required of [
      "black",
      "isort",
      "prettier",
      "gofmt",
      "rustfmt",
      "standardjs",
      "yapf",
      "autopep8",
      "scalafmt",
      "swift-format",
    ]) {
      assert.ok(
        FORMATTERS.some((f) => f.shortcode === required),
        required,
      );
    }
    for (const formatter of FORMATTERS)
      assert.ok(formatter.analyzer === null || analyzers.has(formatter.analyzer));
  });

  test("keys derive from names: the same everywhere, distinct between names", () => {
    assert.equal(catalogKey("issue:python:PYL-W0611"), catalogKey("issue:python:PYL-W0611"));
    assert.match(catalogKey("x"), /^[0-9a-z]{10}$/);
    const keys = new Set(ALL_ISSUES.map((i) => catalogKey(`issue:${i.analyzer}:${i.shortcode}`)));
    assert.equal(keys.size, ALL_ISSUES.length);
  });
});

describe("withStandardTags", () => {
  test("follows a tool's tags with the OWASP and SANS tags its CWE tags imply, each once", () => {
    assert.deepEqual(withStandardTags(["security", "cwe-416", "cwe-79", "external/x"]), [
      "security",
      "cwe-416",
      "cwe-79",
      "external/x",
      "owasp-top-10-2021-a03",
      SANS_TOP_25_TAG,
    ]);
    assert.deepEqual(withStandardTags(["owasp-top-10-2021-a03", "cwe-89"]), [
      "owasp-top-10-2021-a03",
      "cwe-89",
      SANS_TOP_25_TAG,
    ]);
    assert.deepEqual(withStandardTags(["bug-risk", "cwe-401"]), ["bug-risk", "cwe-401"]);
  });
});

describe("tagsFor", () => {
  test("tags the category, each CWE, its OWASP category and the SANS list", () => {
    assert.deepEqual(tagsFor("SECURITY", [89]), [
      "security",
      "cwe-89",
      "owasp-top-10-2021-a03",
      SANS_TOP_25_TAG,
    ]);
    assert.deepEqual(tagsFor("BUG_RISK", [1333]), ["bug-risk", "cwe-1333"]);
    assert.deepEqual(tagsFor("BUG_RISK", [], "17.7"), ["bug-risk", "misra-c-2012-rule-17.7"]);
  });

  test("several CWE ids of one OWASP category give one OWASP tag, sorted", () => {
    assert.deepEqual(tagsFor("SECURITY", [502, 22, 798]), [
      "security",
      "cwe-502",
      "cwe-22",
      "cwe-798",
      "owasp-top-10-2021-a01",
      "owasp-top-10-2021-a07",
      "owasp-top-10-2021-a08",
      SANS_TOP_25_TAG,
    ]);
  });

  test("the OWASP map covers every category and the SANS list has 25 entries", () => {
    assert.deepEqual([...new Set(OWASP_2021_BY_CWE.values())].sort(), [
      "a01",
      "a02",
      "a03",
      "a04",
      "a05",
      "a06",
      "a07",
      "a08",
      "a09",
      "a10",
    ]);
    assert.equal(SANS_TOP_25_2023.size, 25);
  });

  test("the catalog reaches every OWASP category and most of the SANS list", () => {
    const tags = new Set(ALL_ISSUES.flatMap((i) => tagsFor(i.category, i.cwe, i.misra)));
    for (let n = 1; n <= 10; n++) {
      const tag = `owasp-top-10-2021-a${String(n).padStart(2, "0")}`;
      assert.ok(tags.has(tag), tag);
    }
    const sans = [...SANS_TOP_25_2023].filter((cwe) => tags.has(`cwe-${cwe}`));
    assert.ok(sans.length >= 15, `${sans.length} of the SANS Top 25 covered`);
  });
});
