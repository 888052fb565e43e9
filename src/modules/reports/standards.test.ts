import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SANS_TOP_25_2023 } from "../catalog/data/standards.ts";
import { SANS_TOP_25_2023_ENTRIES } from "./data/sans-top-25-2023.ts";
import { COMPLIANCE_STANDARDS } from "./standards.ts";

describe("compliance standards", () => {
  test("OWASP places an issue by its CWE ids and by explicit category tags, once per category", () => {
    const owasp = COMPLIANCE_STANDARDS.OWASP_TOP_10;
    assert.deepEqual(owasp.itemsOfTags(["cwe-89", "cwe-79", "owasp-top-10-2021-a03"]), ["A03"]);
    assert.deepEqual(owasp.itemsOfTags(["cwe-918", "owasp-top-10-2021-a05"]), ["A05", "A10"]);
    assert.deepEqual(owasp.itemsOfTags(["style", "cwe-99999"]), []);
  });

  test("SANS keys by CWE id and lists the same 25 weaknesses as the catalog", () => {
    assert.deepEqual(COMPLIANCE_STANDARDS.SANS_TOP_25.itemsOfTags(["cwe-89", "cwe-1"]), ["CWE-89"]);
    assert.deepEqual(new Set(SANS_TOP_25_2023_ENTRIES.map((e) => e.cwe)), SANS_TOP_25_2023);
  });

  test("MISRA groups rules by their section number", () => {
    const misra = COMPLIANCE_STANDARDS.MISRA_C;
    assert.deepEqual(
      misra.itemsOfTags(["misra-c-2012-rule-10.3", "misra-c-2012-rule-10.4", "misra-c-2012-rule-2.1"]),
      ["2", "10"],
    );
    assert.deepEqual(misra.itemsOfTags(["misra-c-2012-rule-99.1"]), []);
    assert.equal(misra.items.length, 22);
  });
});
