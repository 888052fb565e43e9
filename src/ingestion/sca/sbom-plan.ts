import type { ReportPlacement } from "../../formats/report-placement.ts";
import {
  defaultTarget,
  packageOfComponent,
  parsePurl,
  type SbomDocument,
  type SbomPackage,
  type SbomSkip,
  type SbomTarget,
  targetOfLocation,
} from "../../formats/sbom/index.ts";

/**
 * What an SBOM will store (docs/ingestion-sbom.md "How fields map"), worked out without the
 * database so the intake can say what will be skipped and processing can write it: each
 * component's package version placed in its targets (every manifest or lockfile the SBOM says it
 * was found in), duplicates merged (direct when any copy is), and the components skipped, by
 * reason: the project's own packages (workspaces, `file:` links) among them.
 */

/** One dependency of one target. */
export interface PlannedDependency extends SbomPackage {
  lockfilePath: string;
}

/** An SBOM's plan. */
export interface SbomPlan {
  /** Components the document lists (the root left out). */
  components: number;
  /** Components that became a dependency (duplicates included). */
  stored: number;
  skipped: Partial<Record<SbomSkip, number>>;
  /** The first component skipped for each reason, named for the warning. */
  firstSkipped: Partial<Record<SbomSkip, string>>;
  targets: SbomTarget[];
  /** The target with the most dependencies: the one the SCA check is of. */
  primaryLockfile: string | null;
  /** One per (target, package version). */
  dependencies: PlannedDependency[];
  /** Distinct package versions over every target, and those of them some target uses directly. */
  packageVersions: number;
  directPackageVersions: number;
}

function describe(name: string, version: string | null, purl: string | null): string {
  return purl ?? (version ? `${name || "(unnamed)"} ${version}` : name || "(unnamed)");
}

/**
 * The plan of `document`; its placement (src/formats/report-placement.ts) makes component
 * locations repository-relative.
 */
export function planSbom(document: SbomDocument, placement: ReportPlacement): SbomPlan {
  const skipped: Partial<Record<SbomSkip, number>> = {};
  const firstSkipped: Partial<Record<SbomSkip, string>> = {};
  const targets = new Map<string, SbomTarget>();
  const dependencies = new Map<string, PlannedDependency>();
  let stored = 0;
  for (const component of document.components) {
    const pkg: SbomPackage | { skip: SbomSkip } = component.own
      ? { skip: "PROJECT_PACKAGE" }
      : packageOfComponent(component);
    if ("skip" in pkg) {
      skipped[pkg.skip] = (skipped[pkg.skip] ?? 0) + 1;
      firstSkipped[pkg.skip] ??= describe(component.name, component.version, component.purl);
      continue;
    }
    stored += 1;
    // A package several of the SBOM's lockfiles hold (cdxgen names each) is a dependency of each.
    const placed = new Map<string, SbomTarget>();
    for (const location of pkg.locations) {
      const target = targetOfLocation(location, pkg.ecosystem, placement);
      if (target) placed.set(target.lockfilePath, target);
    }
    if (placed.size === 0) {
      const target = defaultTarget(pkg.ecosystem, placement.directory);
      placed.set(target.lockfilePath, target);
    }
    for (const target of placed.values()) {
      targets.set(target.lockfilePath, target);
      const id = `${target.lockfilePath}\n${pkg.ecosystem}:${pkg.name}@${pkg.version}`;
      const known = dependencies.get(id);
      if (known) {
        known.direct ||= pkg.direct;
        known.license ??= pkg.license;
      } else dependencies.set(id, { ...pkg, lockfilePath: target.lockfilePath });
    }
  }
  if (targets.size === 0) {
    // Nothing to place: the root's ecosystem still says which target was scanned.
    const root = document.root?.purl ? parsePurl(document.root.purl) : null;
    if (root?.ecosystem) {
      const target = defaultTarget(root.ecosystem);
      targets.set(target.lockfilePath, target);
    }
  }
  const perTarget = new Map<string, number>();
  const versions = new Map<string, boolean>();
  for (const dependency of dependencies.values()) {
    perTarget.set(dependency.lockfilePath, (perTarget.get(dependency.lockfilePath) ?? 0) + 1);
    const ref = `${dependency.ecosystem}:${dependency.name}@${dependency.version}`;
    versions.set(ref, (versions.get(ref) ?? false) || dependency.direct);
  }
  let primaryLockfile: string | null = null;
  let most = -1;
  for (const lockfile of targets.keys()) {
    const count = perTarget.get(lockfile) ?? 0;
    if (count > most) {
      most = count;
      primaryLockfile = lockfile;
    }
  }
  return {
    components: document.components.length,
    stored,
    skipped,
    firstSkipped,
    targets: [...targets.values()],
    primaryLockfile,
    dependencies: [...dependencies.values()],
    packageVersions: versions.size,
    directPackageVersions: [...versions.values()].filter(Boolean).length,
  };
}

const SKIP_SENTENCES: Record<SbomSkip, [string, string]> = {
  NO_PURL: [
    "has no valid package URL (purl) and will not be stored",
    "have no valid package URL (purl) and will not be stored",
  ],
  UNSUPPORTED_ECOSYSTEM: [
    "is of a package type no supported registry uses and will not be stored",
    "are of package types no supported registry uses and will not be stored",
  ],
  NO_VERSION: ["states no version and will not be stored", "state no version and will not be stored"],
  PROJECT_PACKAGE: [
    "is one of the project's own packages (an npm workspace or a file: link), not a third-party dependency: it is not stored, counted or matched against advisories, and what it depends on counts as direct",
    "are the project's own packages (npm workspaces or file: links), not third-party dependencies: they are not stored, counted or matched against advisories, and what they depend on counts as direct",
  ],
};

/** The sentences saying which components will not be stored; empty when every one will. */
export function sbomSkipWarnings(plan: SbomPlan): string[] {
  const warnings: string[] = [];
  for (const reason of Object.keys(SKIP_SENTENCES) as SbomSkip[]) {
    const count = plan.skipped[reason] ?? 0;
    if (count === 0) continue;
    const [one, many] = SKIP_SENTENCES[reason];
    warnings.push(
      `${count} of ${plan.components} components ${count === 1 ? one : many} (first: ${plan.firstSkipped[reason]}).`,
    );
  }
  return warnings;
}
