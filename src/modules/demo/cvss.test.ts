import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cvss2BaseScore, cvss2Severity, cvss3BaseScore, cvss3Severity, roundUp } from "./cvss.ts";

// Reference scores from the FIRST calculators for vectors that appear in many published advisories.
describe("cvss3BaseScore", () => {
  const cases: Array<[string, number]> = [
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8],
    ["CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", 8.8],
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H", 7.5],
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", 6.1],
    ["CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N", 5.9],
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", 10],
    ["CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:N/A:N", 5.5],
    ["CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N", 5.3],
  ];
  for (const [vector, score] of cases) {
    test(`scores ${vector} as ${score}`, () => assert.equal(cvss3BaseScore(vector), score));
  }

  test("a vector without impact scores zero and rates NONE", () => {
    const score = cvss3BaseScore("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N");
    assert.equal(score, 0);
    assert.equal(cvss3Severity(score), "NONE");
  });

  test("an unknown metric value is refused rather than scored", () => {
    assert.throws(() => cvss3BaseScore("CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"), /AV:X/);
  });
});

describe("roundUp", () => {
  test("rounds up to one decimal and leaves exact tenths alone despite float error", () => {
    assert.equal(roundUp(4.02), 4.1);
    assert.equal(roundUp(4.0), 4);
    assert.equal(roundUp(0.1 + 0.2), 0.3);
  });
});

describe("cvss3Severity", () => {
  test("follows the qualitative scale's boundaries", () => {
    assert.deepEqual([0.1, 3.9, 4, 6.9, 7, 8.9, 9, 10].map(cvss3Severity), [
      "LOW",
      "LOW",
      "MEDIUM",
      "MEDIUM",
      "HIGH",
      "HIGH",
      "CRITICAL",
      "CRITICAL",
    ]);
  });
});

describe("cvss2BaseScore", () => {
  test("scores the classic v2 vectors as NVD does", () => {
    assert.equal(cvss2BaseScore("AV:N/AC:L/Au:N/C:P/I:P/A:P"), 7.5);
    assert.equal(cvss2BaseScore("AV:N/AC:L/Au:N/C:C/I:C/A:C"), 10);
    assert.equal(cvss2BaseScore("AV:N/AC:M/Au:N/C:N/I:P/A:N"), 4.3);
    assert.equal(cvss2BaseScore("AV:N/AC:L/Au:N/C:N/I:N/A:N"), 0);
  });

  test("rates v2 scores low, medium or high", () => {
    assert.deepEqual([3.9, 4, 6.9, 7].map(cvss2Severity), ["LOW", "MEDIUM", "MEDIUM", "HIGH"]);
  });
});
