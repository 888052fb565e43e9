import { storedPlacement } from "../../formats/report-placement.ts";
import { readSbom, sbomFormatName } from "../../formats/sbom/index.ts";
import { matchScaCheck } from "../../modules/dependencies/advisory-matching.ts";
import {
  countDistinctPackagesOfRun,
  deleteScaChecksOfRunTarget,
  insertScaCheck,
  insertScaCheckDependencies,
  packageVersionRefOf,
  upsertPackageVersions,
  upsertRepositoryTargets,
} from "../../modules/dependencies/sbom-store.ts";
import { replaceMetricValuesOfCheck } from "../../modules/metrics/metric-store.ts";
import { type ProcessInput, type ProcessResult, ProcessTally } from "../types.ts";
import { planSbom, sbomSkipWarnings } from "./sbom-plan.ts";

/**
 * Processing of an SBOM artifact (docs/ingestion-sbom.md), inside the artifact's transaction:
 * packages and versions upserted by purl, the repository's targets made sure of, one SCA check of
 * the upload (replacing the run's earlier one of the same target) with its dependencies, and the
 * run's DDP value — distinct third-party packages over every target's scan as of the run
 * (`countDistinctPackagesOfRun`) — on the `sca` check.
 */
export async function processSbom(input: ProcessInput): Promise<ProcessResult> {
  const { tx, artifact, repository, run, check } = input;
  if (check === null) throw new Error(`SBOM artifact ${artifact.key} has no check`);
  const document = await readSbom(input.text());
  const plan = planSbom(document, storedPlacement(artifact.work_dir, artifact.repository_root));

  const tally = new ProcessTally();
  tally.store(plan.stored);
  for (const [reason, count] of Object.entries(plan.skipped))
    tally.skip(reason as keyof typeof plan.skipped, count);
  for (const warning of sbomSkipWarnings(plan)) tally.warn(warning);

  const targets = await upsertRepositoryTargets(tx, repository.id, plan.targets);
  const versions = await upsertPackageVersions(tx, plan.dependencies);
  const primary = plan.primaryLockfile === null ? null : (targets.get(plan.primaryLockfile) ?? null);
  if (primary) await deleteScaChecksOfRunTarget(tx, run.id, primary.id);
  if (primary && !primary.is_activated) tally.warn(deactivatedTargetWarning(primary.lockfile_path));
  const scaCheck = await insertScaCheck(tx, {
    runId: run.id,
    checkId: check.id,
    artifactId: artifact.id,
    targetId: primary?.id ?? null,
    format: sbomFormatName(document),
    dependencies: plan.packageVersions,
    direct: plan.directPackageVersions,
    transitive: plan.packageVersions - plan.directPackageVersions,
  });
  const dependencies = plan.dependencies.map((d) => ({
    spec: d,
    ids: versions.get(packageVersionRefOf(d))!,
  }));
  await insertScaCheckDependencies(
    tx,
    scaCheck.id,
    dependencies.map(({ spec, ids }) => ({
      targetId: targets.get(spec.lockfilePath)!.id,
      packageVersionId: ids.versionId,
      isDirect: spec.direct,
      license: spec.license,
    })),
  );

  const packages = await countDistinctPackagesOfRun(tx, run.id);
  await replaceMetricValuesOfCheck(
    tx,
    {
      id: check.id,
      repositoryId: repository.id,
      commitOid: run.commit_oid,
      onDefaultBranch: run.branch_name !== null && run.branch_name === repository.default_branch,
      // Dated by the run's place in the history, so a late run of an older commit's DDP is not
      // the latest value (docs/ingestion.md "Where a run stands in the history").
      measuredAt: run.placed_at,
    },
    [{ shortcode: "DDP", key: "AGGREGATE", value: packages }],
    ["DDP"],
  );
  // Its vulnerability occurrences, against the advisories imported so far (docs/advisories.md);
  // an import later matches the latest runs' checks again.
  const matched = await matchScaCheck(tx, scaCheck.id, {
    dependencies: dependencies.map(({ spec, ids }) => ({
      package_version_id: ids.versionId,
      package_id: ids.packageId,
      ecosystem: spec.ecosystem,
      name: spec.name,
      version: spec.version,
    })),
  });
  return tally.result({
    components: plan.components,
    dependencies: plan.packageVersions,
    direct: plan.directPackageVersions,
    transitive: plan.packageVersions - plan.directPackageVersions,
    targets: plan.targets.length,
    runPackages: packages,
    vulnerabilitiesIntroduced: matched.introduced,
    vulnerabilitiesExisting: matched.existing,
    vulnerabilitiesResolved: matched.resolved,
  });
}

/**
 * The sentence for an SBOM of a deactivated target: it is stored like any other (nothing a user
 * sends is dropped unseen), but its scan counts for nothing until the target is activated again.
 */
export function deactivatedTargetWarning(lockfilePath: string): string {
  return `The target ${JSON.stringify(lockfilePath)} is deactivated: this scan is stored, but counts in neither the repository's vulnerabilities nor DDP while it stays deactivated (activateRepositoryTarget counts it again).`;
}
