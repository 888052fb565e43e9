import type { FindingState } from "../../db/types.ts";
import { advisoryDataset, packageVersionRef, type VulnerabilitySpec } from "./advisories.ts";
import type {
  PlannedScaCheck,
  PlannedTarget,
  PlannedVulnerabilityOccurrence,
  RepositorySpec,
} from "./plan-types.ts";
import { hash32, type Random } from "./random.ts";

/**
 * Dependency targets (lock files), SCA checks and vulnerability occurrences of one repository.
 * Each target pins some packages of its ecosystem; upgrades happen now and then on the default
 * branch, and pull requests sometimes bump one package. A vulnerability is found when a pinned
 * version is affected and the advisory was published (and not withdrawn) by the run's time, so
 * new advisories surface as INTRODUCED and upgrades as RESOLVED.
 */

/** Versions pinned per target: package index → version index. */
export type Pins = Map<string, Map<number, number>>;

interface VulnerableDependency {
  vulnerability: VulnerabilitySpec;
  packageVersion: string;
}

/** What one analyzed run found, per target: by `identifier|packageVersion`. */
export type DependencySnapshot = Map<string, Map<string, VulnerableDependency>>;

export class DependencyPlanner {
  readonly targets: PlannedTarget[] = [];
  readonly scaChecks: PlannedScaCheck[] = [];
  readonly occurrences: PlannedVulnerabilityOccurrence[] = [];
  /** The pins on the default branch, updated by each analyzed default-branch run. */
  pins: Pins = new Map();
  private readonly byPackage: Map<number, VulnerabilitySpec[]>;

  constructor(
    private readonly rand: Random,
    private readonly keys: { target: () => string; sca: () => string; occurrence: () => string },
    spec: RepositorySpec,
    createdAt: Date,
  ) {
    const { packages, vulnerabilities } = advisoryDataset();
    this.byPackage = new Map();
    for (const v of vulnerabilities) {
      const list = this.byPackage.get(v.packageIndex) ?? [];
      list.push(v);
      this.byPackage.set(v.packageIndex, list);
    }
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
        key: keys.target(),
        ecosystem: manifest.ecosystem,
        packageManager: manifest.manager,
        manifestPath: manifest.manifest,
        lockfilePath: manifest.lockfile,
        isActivated: !rand.chance(0.05),
        createdAt,
      };
      this.targets.push(target);
      const pinned = new Map<number, number>();
      for (const index of rand.sample(candidates, rand.int(3, 8))) {
        // Older versions are more likely: most code bases lag behind.
        pinned.set(index, Math.floor(rand.next() ** 1.6 * packages[index]!.versions.length * 0.85));
      }
      this.pins.set(target.key, pinned);
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

  /** The pins a pull request tests: its base's, sometimes with one package bumped to its latest. */
  pullRequestPins(base: Pins): Pins {
    if (!this.rand.chance(0.25)) return base;
    const { packages } = advisoryDataset();
    const next: Pins = new Map([...base].map(([target, pinned]) => [target, new Map(pinned)]));
    const targets = [...next.keys()];
    if (targets.length === 0) return base;
    const pinned = next.get(this.rand.pick(targets))!;
    const indexes = [...pinned.keys()];
    if (indexes.length > 0) {
      const index = this.rand.pick(indexes);
      pinned.set(index, packages[index]!.versions.length - 1);
    }
    return next;
  }

  private vulnerable(pins: Map<number, number>, time: number): Map<string, VulnerableDependency> {
    const { packages } = advisoryDataset();
    const found = new Map<string, VulnerableDependency>();
    for (const [index, versionIndex] of pins) {
      const pkg = packages[index]!;
      const version = pkg.versions[versionIndex]!;
      for (const v of this.byPackage.get(index) ?? []) {
        const withdrawn = v.withdrawnAt !== null && v.withdrawnAt.getTime() <= time;
        if (!v.affected.has(version) || v.publishedAt.getTime() > time || withdrawn) continue;
        const packageVersion = packageVersionRef(pkg, version);
        found.set(`${v.identifier}|${packageVersion}`, { vulnerability: v, packageVersion });
      }
    }
    return found;
  }

  /**
   * The SCA checks of an analyzed run with `pins` at `time`, compared with `base` (the base run's
   * snapshot; undefined for a first run). Returns this run's snapshot.
   */
  analyze(runKey: string, time: Date, pins: Pins, base: DependencySnapshot | undefined): DependencySnapshot {
    const snapshot: DependencySnapshot = new Map();
    for (const target of this.targets) {
      if (!target.isActivated) continue;
      const check: PlannedScaCheck = {
        key: this.keys.sca(),
        runKey,
        targetKey: target.key,
        status: "SUCCESS",
        createdAt: time,
      };
      this.scaChecks.push(check);
      const found = this.vulnerable(pins.get(target.key) ?? new Map(), time.getTime());
      snapshot.set(target.key, found);
      const before = base?.get(target.key);
      for (const [id, dependency] of found) {
        this.emit(check, target.key, dependency, before?.has(id) ? "EXISTING" : "INTRODUCED");
      }
      for (const [id, dependency] of before ?? []) {
        if (!found.has(id)) this.emit(check, target.key, dependency, "RESOLVED");
      }
    }
    return snapshot;
  }

  private emit(
    check: PlannedScaCheck,
    targetKey: string,
    d: VulnerableDependency,
    state: FindingState,
  ): void {
    // Reachability and fixability are properties of (target, advisory): stable across runs.
    const roll = hash32(targetKey, d.vulnerability.identifier) % 100;
    this.occurrences.push({
      key: this.keys.occurrence(),
      scaCheckKey: check.key,
      vulnerability: d.vulnerability.identifier,
      packageVersion: d.packageVersion,
      reachability: roll < 25 ? "REACHABLE" : roll < 60 ? "UNREACHABLE" : "UNKNOWN",
      fixability:
        d.vulnerability.fixedVersions.length === 0
          ? "UNFIXABLE"
          : roll % 3 === 0
            ? "AUTO_FIXABLE"
            : roll % 3 === 1
              ? "POSSIBLY_FIXABLE"
              : "MANUALLY_FIXABLE",
      state,
      createdAt: check.createdAt,
    });
  }
}
