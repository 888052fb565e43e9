import type { ArtifactResult, CheckResult, WaitOutcome } from "./upload-wait.ts";

/**
 * What `assay upload --wait` prints once processing settled the upload: the check's verdict, what
 * processing read, stored and skipped of the report and its warnings, the check's new findings by
 * category and by severity, its metrics against their thresholds, the run, and the link
 * to the run's query. Pure, so the wording is unit-tested.
 */

/** What a report's entries are, by artifact kind. */
const ENTRIES: Record<string, string> = { SARIF: "results", COVERAGE: "files", CHANGES: "changed files" };

/** "BUG_RISK 2, SECURITY 1", or "none". */
function counts(entries: Array<{ label: string; count: number }>): string {
  return entries.length === 0 ? "none" : entries.map((e) => `${e.label} ${e.count}`).join(", ");
}

function hasFindings(check: CheckResult): boolean {
  return check.introduced + check.resolved + check.suppressed > 0;
}

/** "12 results skipped (OUTSIDE_REPOSITORY 12)". */
function skippedText(artifact: ArtifactResult): string {
  const reasons = artifact.skipped.map((s) => ({ label: s.reason, count: s.count }));
  return `${artifact.skippedCount ?? 0} skipped${reasons.length > 0 ? ` (${counts(reasons)})` : ""}`;
}

function artifactLines(artifact: ArtifactResult): string[] {
  const format = artifact.format ?? artifact.kind;
  if (artifact.status === "FAILED")
    return [`  Report: ${format}, not processed: ${artifact.error ?? "no reason given"}`];
  const entries = ENTRIES[artifact.kind] ?? "entries";
  return [
    `  Report: ${format}, ${artifact.readCount ?? 0} ${entries} read, ${artifact.storedCount ?? 0} stored, ${skippedText(artifact)}`,
    ...artifact.warnings.map((warning) => `  warning: ${warning}`),
  ];
}

function checkLines(check: CheckResult, artifact: ArtifactResult | null): string[] {
  const lines = [`Check ${check.analyzer}: ${check.status}`, ...(artifact ? artifactLines(artifact) : [])];
  // A coverage check has metrics and no findings: lines of zeros would only hide its figures.
  if (hasFindings(check) || check.metrics.length === 0) {
    const byCategory = counts(check.newByCategory.map((c) => ({ label: c.category, count: c.count })));
    const bySeverity = counts(check.newBySeverity.map((s) => ({ label: s.severity, count: s.count })));
    lines.push(
      `  New findings: ${check.introduced}${check.introduced > 0 ? ` (${byCategory}; ${bySeverity})` : ""}; resolved ${check.resolved}; suppressed ${check.suppressed}`,
    );
  }
  for (const metric of check.metrics) {
    for (const item of metric.items) {
      const threshold =
        item.threshold === null
          ? ""
          : ` (threshold ${item.threshold}${metric.unit ?? ""}${item.thresholdStatus ? `: ${item.thresholdStatus}` : ""})`;
      lines.push(
        `  ${metric.name} (${metric.shortcode}) ${item.key}: ${item.value ?? "no value"}${threshold}`,
      );
    }
  }
  return lines;
}

/** The lines printed on stdout for a settled upload. */
export function formatOutcome(outcome: WaitOutcome): string[] {
  const { check, artifact } = outcome;
  return [
    ...(check ? checkLines(check, artifact) : artifact ? artifactLines(artifact) : []),
    `Run ${outcome.runUid}: ${outcome.runStatus}`,
    `Details: ${outcome.link}`,
  ];
}

/** The one-line reason a settled upload did not pass, for stderr. */
export function failureReason(outcome: WaitOutcome): string {
  const { artifact } = outcome;
  if (artifact?.status === "FAILED") {
    return `the report could not be processed: ${artifact.error ?? "no reason given"}`;
  }
  if (!outcome.check) return `the run ended ${outcome.runStatus}`;
  const { analyzer, status, introduced, metrics } = outcome.check;
  if (status === "NEUTRAL") {
    const lost = artifact
      ? ` (${artifact.skippedCount ?? 0} of ${artifact.readCount ?? 0} ${ENTRIES[artifact.kind] ?? "entries"} skipped: ${counts(artifact.skipped.map((r) => ({ label: r.reason, count: r.count })))})`
      : "";
    return `the ${analyzer} check is NEUTRAL: nothing of the report was stored${lost}, so nothing was checked`;
  }
  if (status !== "FAILURE") return `the ${analyzer} check ended ${status}`;
  const reasons: string[] = [];
  if (introduced > 0) reasons.push(`${introduced} new finding${introduced === 1 ? "" : "s"}`);
  for (const metric of metrics) {
    for (const item of metric.items) {
      if (item.thresholdStatus === "FAILING") {
        reasons.push(`${metric.shortcode} ${item.key} ${item.value ?? "no value"} misses its threshold`);
      }
    }
  }
  return reasons.length === 0
    ? `the ${analyzer} check ended FAILURE`
    : `the ${analyzer} check failed its quality gate: ${reasons.join("; ")}`;
}
