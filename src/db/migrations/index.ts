import type { Migration, MigrationProvider } from "kysely";
import * as foundation from "./0001-foundation.ts";
import * as readModel from "./0002-read-model.ts";
import * as checksIndexes from "./0003-checks-indexes.ts";
import * as authFlows from "./0005-auth-flows.ts";
import * as webhooks from "./0006-webhooks.ts";
import * as readIndexes from "./0007-read-indexes.ts";
import * as ingestion from "./0008-ingestion.ts";
import * as occurrenceSeverity from "./0009-occurrence-severity.ts";
import * as artifactOutcomes from "./0010-artifact-outcomes.ts";
import * as coverageCheckFiles from "./0011-coverage-check-files.ts";
import * as dependencyMetric from "./0012-dependency-metric.ts";
import * as vcsEvents from "./0013-vcs-events.ts";
import * as advisories from "./0014-advisories.ts";
import * as sbomDependencies from "./0015-sbom-dependencies.ts";
import * as coverageCheckFilesBackfill from "./0016-coverage-check-files-backfill.ts";
import * as advisorySync from "./0017-advisory-sync.ts";
import * as vcsAccountSecrets from "./0018-vcs-account-secrets.ts";
import * as queuedArtifacts from "./0019-queued-artifacts.ts";
import * as checkIssueCounts from "./0020-check-issue-counts.ts";
import * as occurrenceParents from "./0021-occurrence-parents.ts";
import * as issueAnnouncements from "./0022-issue-announcements.ts";
import * as currentChecks from "./0023-current-checks.ts";
import * as currentScaChecks from "./0024-current-sca-checks.ts";
import * as pullRequestHeads from "./0025-pull-request-heads.ts";
import * as runBranchDefaulted from "./0026-run-branch-defaulted.ts";
import * as findingsStoredTwice from "./0027-findings-stored-twice.ts";
import * as runConfig from "./0028-run-config.ts";
import * as testPatternRules from "./0029-test-pattern-rules.ts";
import * as runLockfilePaths from "./0030-run-lockfile-paths.ts";
import * as artifactGoModules from "./0031-artifact-go-modules.ts";
import * as metricValuesOfAnalysedRuns from "./0032-metric-values-of-analysed-runs.ts";
import * as artifactRepositoryRoot from "./0033-artifact-repository-root.ts";
import * as checkBaseCheck from "./0034-check-base-check.ts";
import * as runHistory from "./0035-run-history.ts";
import * as occurrenceFormerFingerprint from "./0036-occurrence-former-fingerprint.ts";
import * as occurrenceCarried from "./0037-occurrence-carried.ts";
import * as checkFingerprintVersion from "./0038-check-fingerprint-version.ts";
import * as accountIssues from "./0039-account-issues.ts";
import * as scaHistory from "./0040-sca-history.ts";
import * as artifactAnalyzedPaths from "./0041-artifact-analyzed-paths.ts";
import * as runMergeBase from "./0042-run-merge-base.ts";
import * as artifactRenamesBase from "./0043-artifact-renames-base.ts";
import * as occurrenceDeferredFormerFingerprint from "./0044-occurrence-deferred-former-fingerprint.ts";
import * as occurrenceBytewiseCollation from "./0045-occurrence-bytewise-collation.ts";
import * as pathsBytewiseCollation from "./0046-paths-bytewise-collation.ts";
import * as checkSettledAgainst from "./0047-check-settled-against.ts";

/**
 * Every migration, in order. Listed statically (not read from the folder) so the set is the same
 * however the code is run or packaged; the name's numeric prefix fixes the order.
 */
const migrations: Record<string, Migration> = {
  "0001-foundation": foundation,
  "0002-read-model": readModel,
  "0003-checks-indexes": checksIndexes,
  "0005-auth-flows": authFlows,
  "0006-webhooks": webhooks,
  "0007-read-indexes": readIndexes,
  "0008-ingestion": ingestion,
  "0009-occurrence-severity": occurrenceSeverity,
  "0010-artifact-outcomes": artifactOutcomes,
  "0011-coverage-check-files": coverageCheckFiles,
  "0012-dependency-metric": dependencyMetric,
  "0013-vcs-events": vcsEvents,
  "0014-advisories": advisories,
  "0015-sbom-dependencies": sbomDependencies,
  "0016-coverage-check-files-backfill": coverageCheckFilesBackfill,
  "0017-advisory-sync": advisorySync,
  "0018-vcs-account-secrets": vcsAccountSecrets,
  "0019-queued-artifacts": queuedArtifacts,
  "0020-check-issue-counts": checkIssueCounts,
  "0021-occurrence-parents": occurrenceParents,
  "0022-issue-announcements": issueAnnouncements,
  "0023-current-checks": currentChecks,
  "0024-current-sca-checks": currentScaChecks,
  "0025-pull-request-heads": pullRequestHeads,
  "0026-run-branch-defaulted": runBranchDefaulted,
  "0027-findings-stored-twice": findingsStoredTwice,
  "0028-run-config": runConfig,
  "0029-test-pattern-rules": testPatternRules,
  "0030-run-lockfile-paths": runLockfilePaths,
  "0031-artifact-go-modules": artifactGoModules,
  "0032-metric-values-of-analysed-runs": metricValuesOfAnalysedRuns,
  "0033-artifact-repository-root": artifactRepositoryRoot,
  "0034-check-base-check": checkBaseCheck,
  "0035-run-history": runHistory,
  "0036-occurrence-former-fingerprint": occurrenceFormerFingerprint,
  "0037-occurrence-carried": occurrenceCarried,
  "0038-check-fingerprint-version": checkFingerprintVersion,
  "0039-account-issues": accountIssues,
  "0040-sca-history": scaHistory,
  "0041-artifact-analyzed-paths": artifactAnalyzedPaths,
  "0042-run-merge-base": runMergeBase,
  "0043-artifact-renames-base": artifactRenamesBase,
  "0044-occurrence-deferred-former-fingerprint": occurrenceDeferredFormerFingerprint,
  "0045-occurrence-bytewise-collation": occurrenceBytewiseCollation,
  "0046-paths-bytewise-collation": pathsBytewiseCollation,
  "0047-check-settled-against": checkSettledAgainst,
};

/** Kysely migration provider over {@link migrations}. */
export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
