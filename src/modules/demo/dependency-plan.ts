import { advisoryDataset } from "./advisories.ts";
import type { PlannedSbom, PlannedTarget, RepositorySpec } from "./plan-types.ts";
import { hash32, type Random } from "./random.ts";

/**
 * The dependencies of one repository: its targets (lock files), the package versions each pins,
 * and the SBOM each analyzed run uploads of each target. Upgrades happen now and then on the
 * default branch, and pull requests sometimes bump one package. Which of the pinned versions are
 * vulnerable, and whether a finding is new, is left to the SBOM processing and the advisory
 * matching the SBOMs go through (docs/ingestion-sbom.md, docs/advisories.md).
 */

/** Versions pinned per target: package index → version index, by lockfile path. */
export type Pins = Map<string, Map<number, number>>;

/** A pull request's change to its base's pins: one package of one target moved to its latest. */
export interface Bump {
  lockfile: string;
  index: number;
}

export class DependencyPlanner {
  readonly targets: PlannedTarget[] = [];
  readonly sboms: PlannedSbom[] = [];
  /** The pins on the default branch, updated by each analyzed default-branch run. */
  pins: Pins = new Map();

  constructor(
    private readonly rand: Random,
    spec: RepositorySpec,
  ) {
    const { packages } = advisoryDataset();
    const manifests = [...spec.profile.targets];
    if (spec.analyzers.includes("javascript") && spec.profile.primary !== "javascript") {
      manifests.push({
        ecosystem: "NPM",
        manager: "yarn",
        manifest: "frontend/package.json",
        lockfile: "frontend/yarn.lock",
      });
    }
    for (const manifest of manifests) {
      const candidates = packages.flatMap((p, i) => (p.ecosystem === manifest.ecosystem ? [i] : []));
      if (candidates.length === 0) continue;
      const target: PlannedTarget = {
        ecosystem: manifest.ecosystem,
        packageManager: manifest.manager,
        manifestPath: manifest.manifest,
        lockfilePath: manifest.lockfile,
      };
      this.targets.push(target);
      const pinned = new Map<number, number>();
      for (const index of rand.sample(candidates, rand.int(3, 8))) {
        // Older versions are more likely: most code bases lag behind.
        pinned.set(index, Math.floor(rand.next() ** 1.6 * packages[index]!.versions.length * 0.85));
      }
      this.pins.set(target.lockfilePath, pinned);
    }
  }

  /** The default-branch pins after this run's upgrades. */
  upgrade(): Pins {
    const { packages } = advisoryDataset();
    const next: Pins = new Map();
    for (const [target, pinned] of this.pins) {
      const copy = new Map(pinned);
      for (const [index, version] of copy) {
        const last = packages[index]!.versions.length - 1;
        if (version < last && this.rand.chance(0.05)) copy.set(index, this.rand.int(version + 1, last));
      }
      next.set(target, copy);
    }
    this.pins = next;
    return next;
  }

  /** What a new pull request changes in its dependencies: sometimes one package bumped. */
  pullRequestBump(base: Pins): Bump | null {
    if (!this.rand.chance(0.25)) return null;
    const targets = [...base.keys()];
    if (targets.length === 0) return null;
    const lockfile = this.rand.pick(targets);
    const indexes = [...base.get(lockfile)!.keys()];
    if (indexes.length === 0) return null;
    return { lockfile, index: this.rand.pick(indexes) };
  }

  /** `base` with `bump` applied. */
  static withBump(base: Pins, bump: Bump | null): Pins {
    if (!bump) return base;
    const { packages } = advisoryDataset();
    const next: Pins = new Map([...base].map(([target, pinned]) => [target, new Map(pinned)]));
    next.get(bump.lockfile)?.set(bump.index, packages[bump.index]!.versions.length - 1);
    return next;
  }

  /**
   * The SBOMs of an analyzed run with `pins` at `time`, one per target. About a third of a
   * target's packages come in through another (transitive); the rest the project names itself.
   */
  analyze(runKey: string, checkKey: string, time: Date, pins: Pins): void {
    const { packages } = advisoryDataset();
    for (const target of this.targets) {
      const pinned = [...(pins.get(target.lockfilePath) ?? new Map<number, number>())];
      this.sboms.push({
        runKey,
        checkKey,
        createdAt: time,
        target,
        packages: pinned.map(([index, versionIndex], i) => ({
          index,
          version: packages[index]!.versions[versionIndex]!,
          direct: i === 0 || hash32(target.lockfilePath, packages[index]!.name) % 3 !== 0,
        })),
      });
    }
  }
}
