import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isVulnerabilitySeverity, overallSeverity, severityRank, UNRATED_RANK } from "./severity.ts";

const unrated = { severity: null, cvss_v2_severity: null, cvss_v3_severity: null, cvss_v4_severity: null };

describe("a vulnerability's overall severity", () => {
  test("the advisory's own rating wins over every CVSS rating", () => {
    assert.equal(overallSeverity({ ...unrated, severity: "LOW", cvss_v3_severity: "CRITICAL" }), "LOW");
    assert.equal(overallSeverity({ ...unrated, severity: "NONE", cvss_v2_severity: "HIGH" }), "NONE");
  });

  test("without its own rating, the highest CVSS rating present stands in", () => {
    assert.equal(
      overallSeverity({ ...unrated, cvss_v2_severity: "CRITICAL", cvss_v3_severity: "MEDIUM" }),
      "CRITICAL",
    );
    assert.equal(
      overallSeverity({
        ...unrated,
        cvss_v2_severity: "LOW",
        cvss_v3_severity: "HIGH",
        cvss_v4_severity: "MEDIUM",
      }),
      "HIGH",
    );
    assert.equal(overallSeverity({ ...unrated, cvss_v4_severity: "NONE" }), "NONE");
  });

  test("with no rating at all it is null", () => {
    assert.equal(overallSeverity(unrated), null);
  });

  test("values outside the contract's severities are ignored", () => {
    const odd = "INFORMATIONAL" as never;
    assert.equal(overallSeverity({ ...unrated, severity: odd, cvss_v3_severity: "LOW" }), "LOW");
    assert.equal(isVulnerabilitySeverity("INFORMATIONAL"), false);
    assert.equal(isVulnerabilitySeverity("CRITICAL"), true);
  });

  test("ranks put CRITICAL first and an unrated vulnerability after NONE", () => {
    const ranks = (["CRITICAL", "HIGH", "MEDIUM", "LOW", "NONE", null] as const).map(severityRank);
    assert.deepEqual(ranks, [0, 1, 2, 3, 4, UNRATED_RANK]);
    assert.equal(UNRATED_RANK, 5);
  });
});
