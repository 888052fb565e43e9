import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { failureReason, formatOutcome } from "./upload-report.ts";
import type { ArtifactResult, CheckResult, WaitOutcome } from "./upload-wait.ts";

const LINK = "https://assay.example.com/graphql/?query=q&variables=v";

function findings(overrides: Partial<CheckResult> = {}): CheckResult {
  return {
    analyzer: "eslint",
    status: "FAILURE",
    introduced: 3,
    resolved: 1,
    suppressed: 2,
    newByCategory: [
      { category: "BUG_RISK", count: 2 },
      { category: "SECURITY", count: 1 },
    ],
    newBySeverity: [
      { severity: "CRITICAL", count: 1 },
      { severity: "MINOR", count: 2 },
    ],
    metrics: [],
    ...overrides,
  };
}

function coverage(status: string, thresholdStatus: string | null): CheckResult {
  return {
    analyzer: "test-coverage",
    status,
    introduced: 0,
    resolved: 0,
    suppressed: 0,
    newByCategory: [],
    newBySeverity: [],
    metrics: [
      {
        shortcode: "LCV",
        name: "Line Coverage",
        unit: "%",
        items: [
          { key: "AGGREGATE", value: "72.5%", threshold: thresholdStatus ? 80 : null, thresholdStatus },
          { key: "JAVASCRIPT", value: "72.5%", threshold: null, thresholdStatus: null },
        ],
      },
      {
        shortcode: "BCV",
        name: "Branch Coverage",
        unit: "%",
        items: [{ key: "AGGREGATE", value: null, threshold: null, thresholdStatus: null }],
      },
    ],
  };
}

function sarif(overrides: Partial<ArtifactResult> = {}): ArtifactResult {
  return {
    kind: "SARIF",
    status: "PROCESSED",
    format: "SARIF 2.1.0",
    error: null,
    readCount: 10,
    storedCount: 10,
    skippedCount: 0,
    skipped: [],
    warnings: [],
    ...overrides,
  };
}

const outcome = (
  check: CheckResult | null,
  runStatus = "FAILURE",
  artifact: ArtifactResult | null = null,
): WaitOutcome => ({
  runUid: "3f0c7a4e-0000-4000-8000-000000000001",
  runStatus,
  check,
  artifact,
  link: LINK,
});

describe("what --wait prints", () => {
  test("a findings check: its status, new findings by category and by severity, the run and the link", () => {
    assert.deepEqual(formatOutcome(outcome(findings())), [
      "Check eslint: FAILURE",
      "  New findings: 3 (BUG_RISK 2, SECURITY 1; CRITICAL 1, MINOR 2); resolved 1; suppressed 2",
      "Run 3f0c7a4e-0000-4000-8000-000000000001: FAILURE",
      `Details: ${LINK}`,
    ]);
    const clean = findings({ status: "SUCCESS", introduced: 0, newByCategory: [], newBySeverity: [] });
    assert.equal(formatOutcome(outcome(clean, "SUCCESS"))[1], "  New findings: 0; resolved 1; suppressed 2");
  });

  test("what processing read, stored and skipped of the report, by reason, with its warnings", () => {
    const partly = sarif({
      readCount: 12,
      storedCount: 9,
      skippedCount: 3,
      skipped: [
        { reason: "OUTSIDE_REPOSITORY", count: 2 },
        { reason: "NO_LOCATION", count: 1 },
      ],
      warnings: ["2 results lie outside the repository (the first: /usr/lib/x.c); give workDir."],
    });
    assert.deepEqual(formatOutcome(outcome(findings(), "FAILURE", partly)).slice(0, 4), [
      "Check eslint: FAILURE",
      "  Report: SARIF 2.1.0, 12 results read, 9 stored, 3 skipped (OUTSIDE_REPOSITORY 2, NO_LOCATION 1)",
      "  warning: 2 results lie outside the repository (the first: /usr/lib/x.c); give workDir.",
      "  New findings: 3 (BUG_RISK 2, SECURITY 1; CRITICAL 1, MINOR 2); resolved 1; suppressed 2",
    ]);
    assert.equal(
      formatOutcome(
        outcome(
          coverage("SUCCESS", null),
          "SUCCESS",
          sarif({ kind: "COVERAGE", format: "LCOV", readCount: 4, storedCount: 4 }),
        ),
      )[1],
      "  Report: LCOV, 4 files read, 4 stored, 0 skipped",
    );
    assert.deepEqual(
      formatOutcome(
        outcome(
          findings(),
          "FAILURE",
          sarif({ status: "FAILED", error: "the SARIF report is invalid: x", readCount: null }),
        ),
      ).slice(0, 2),
      ["Check eslint: FAILURE", "  Report: SARIF 2.1.0, not processed: the SARIF report is invalid: x"],
    );
    const changes = sarif({ kind: "CHANGES", format: "unified diff", readCount: 2, storedCount: 2 });
    assert.deepEqual(formatOutcome(outcome(null, "SUCCESS", changes)), [
      "  Report: unified diff, 2 changed files read, 2 stored, 0 skipped",
      "Run 3f0c7a4e-0000-4000-8000-000000000001: SUCCESS",
      `Details: ${LINK}`,
    ]);
  });

  test("a coverage check: each metric item with its threshold, and no lines of zero findings", () => {
    assert.deepEqual(formatOutcome(outcome(coverage("FAILURE", "FAILING"))).slice(0, 4), [
      "Check test-coverage: FAILURE",
      "  Line Coverage (LCV) AGGREGATE: 72.5% (threshold 80%: FAILING)",
      "  Line Coverage (LCV) JAVASCRIPT: 72.5%",
      "  Branch Coverage (BCV) AGGREGATE: no value",
    ]);
  });

  test("an upload without a check (changed lines) prints the run and the link", () => {
    assert.deepEqual(formatOutcome(outcome(null, "SUCCESS")), [
      "Run 3f0c7a4e-0000-4000-8000-000000000001: SUCCESS",
      `Details: ${LINK}`,
    ]);
  });

  test("the reason a check did not pass names its new findings, or the metrics that missed their threshold", () => {
    assert.equal(
      failureReason(outcome(findings())),
      "the eslint check failed its quality gate: 3 new findings",
    );
    assert.equal(
      failureReason(outcome(findings({ introduced: 1 }))),
      "the eslint check failed its quality gate: 1 new finding",
    );
    assert.equal(
      failureReason(outcome(coverage("FAILURE", "FAILING"))),
      "the test-coverage check failed its quality gate: LCV AGGREGATE 72.5% misses its threshold",
    );
    assert.equal(failureReason(outcome(findings({ introduced: 0 }))), "the eslint check ended FAILURE");
    assert.equal(
      failureReason(outcome(findings({ status: "ARTIFACT_TIMEOUT" }))),
      "the eslint check ended ARTIFACT_TIMEOUT",
    );
    assert.equal(failureReason(outcome(null, "TIMEOUT")), "the run ended TIMEOUT");
  });

  test("a failed report, or a check that stored nothing, says so", () => {
    assert.equal(
      failureReason(
        outcome(findings(), "FAILURE", sarif({ status: "FAILED", error: "the SARIF report is invalid: x" })),
      ),
      "the report could not be processed: the SARIF report is invalid: x",
    );
    const lost = sarif({
      storedCount: 0,
      skippedCount: 10,
      skipped: [{ reason: "OUTSIDE_REPOSITORY", count: 10 }],
    });
    assert.equal(
      failureReason(outcome(findings({ status: "NEUTRAL", introduced: 0 }), "NEUTRAL", lost)),
      "the eslint check is NEUTRAL: nothing of the report was stored (10 of 10 results skipped: OUTSIDE_REPOSITORY 10), so nothing was checked",
    );
  });
});
