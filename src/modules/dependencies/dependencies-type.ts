import type { RepositoryTargetRow, ScaCheckRow } from "../../db/types.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { RepositoryRef } from "../repositories/repository-type.ts";
import { AnalysisRunRef } from "../runs/run-type.ts";
import { EcosystemEnum, PackageRef, PackageVersionRef, VulnerabilityRef } from "./advisory-type.ts";
import {
  packageById,
  packageVersionById,
  targetById,
  visibleScaCheckByKey,
  visibleTargetByKey,
  visibleVulnerabilityOccurrenceByKey,
  vulnerabilityById,
} from "./dependencies-loaders.ts";
import { findRepositoryTarget, findRepositoryVulnerabilityOccurrence } from "./dependencies-service.ts";
import {
  scaChecksOfRun,
  targetsOfRepository,
  type VulnerabilityOccurrenceNode,
  vulnerabilityOccurrencesOfRepository,
  vulnerabilityOccurrencesOfScaCheck,
} from "./dependencies-store.ts";

const PACKAGE_MANAGERS = [
  "REQUIREMENTS_TXT",
  "POETRY",
  "PIPFILE",
  "PDM",
  "UV",
  "NPM",
  "YARN",
  "PNPM",
  "BUN",
  "GRADLE",
  "MAVEN",
  "GO_MOD",
  "RUBY_GEMS",
  "NUGET",
  "PACKAGIST",
  "CARGO",
] as const;

type PackageManager = (typeof PACKAGE_MANAGERS)[number];

/** The stored package manager as the enum; the column is free text, so anything else is a data fault. */
function asPackageManager(value: string): PackageManager {
  const known = PACKAGE_MANAGERS.find((manager) => manager === value);
  if (!known) throw new Error(`repository target has an unknown package manager "${value}"`);
  return known;
}

const PackageManagerEnum = builder.enumType("PackageManager", {
  description:
    "The tool whose manifest and lockfile describe a target's dependencies: REQUIREMENTS_TXT, POETRY, PIPFILE, PDM and UV (Python); NPM, YARN, PNPM and BUN (JavaScript); GRADLE and MAVEN (JVM); GO_MOD; RUBY_GEMS (Bundler); NUGET; PACKAGIST (Composer); CARGO (Rust).",
  values: PACKAGE_MANAGERS,
});

const RepositoryTargetSourceEnum = builder.enumType("RepositoryTargetSource", {
  description:
    "How a target came to be scanned: AUTO when detected in the repository, CUSTOM when configured by a user.",
  values: ["AUTO", "CUSTOM"] as const,
});

const ReachabilityEnum = builder.enumType("VulnerabilityOccurrenceReachability", {
  description:
    "Whether the repository's code can reach the vulnerable code: REACHABLE, UNREACHABLE, or UNKNOWN when reachability was not analysed.",
  values: ["REACHABLE", "UNREACHABLE", "UNKNOWN"] as const,
});

const FixabilityEnum = builder.enumType("VulnerabilityOccurrenceFixability", {
  description:
    "How the occurrence can be fixed: AUTO_FIXABLE (a fix can be generated), MANUALLY_FIXABLE (a fixed version exists but upgrading needs manual work), POSSIBLY_FIXABLE (a fix may exist), UNFIXABLE (no fixed version), GENERATING_FIX (a fix is being generated) or ERROR (generating a fix failed).",
  values: [
    "ERROR",
    "UNFIXABLE",
    "GENERATING_FIX",
    "POSSIBLY_FIXABLE",
    "MANUALLY_FIXABLE",
    "AUTO_FIXABLE",
  ] as const,
});

/** A vulnerable package version found in a repository's dependencies. */
export const VulnerabilityOccurrenceRef = builder
  .objectRef<VulnerabilityOccurrenceNode>("VulnerabilityOccurrence")
  .implement({
    description:
      "A vulnerability found in one package version that a repository depends on, in one analysis run.",
    interfaces: [NodeInterface],
    fields: (t) => ({
      id: t.id(globalIdField("VulnerabilityOccurrence")),
      vulnerability: t.field({
        type: VulnerabilityRef,
        description: "The advisory.",
        resolve: async (o, _args, ctx) => (await vulnerabilityById(ctx).load(o.vulnerability_id))!,
      }),
      package: t.field({
        type: PackageRef,
        description: "The affected package.",
        resolve: async (o, _args, ctx) => (await packageById(ctx).load(o.package_id))!,
      }),
      packageVersion: t.field({
        type: PackageVersionRef,
        description: "The version of the package the repository uses.",
        resolve: async (o, _args, ctx) => (await packageVersionById(ctx).load(o.package_version_id))!,
      }),
      reachability: t.field({
        type: ReachabilityEnum,
        description: "Whether the repository's code reaches the vulnerable code.",
        resolve: (o) => o.reachability,
      }),
      fixability: t.field({
        type: FixabilityEnum,
        description: "How the occurrence can be fixed.",
        resolve: (o) => o.fixability,
      }),
    }),
  });

/** `VulnerabilityOccurrenceConnection`, for every connection of vulnerability occurrences. */
export const VulnerabilityOccurrenceConnection = connectionType(
  "VulnerabilityOccurrence",
  VulnerabilityOccurrenceRef,
  "vulnerability occurrence",
);

/** A manifest and lockfile pair of a repository that dependency scanning reads. */
export const RepositoryTargetRef = builder.objectRef<RepositoryTargetRow>("RepositoryTarget").implement({
  description:
    "A manifest and lockfile pair of a repository whose dependencies are scanned for vulnerabilities.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("RepositoryTarget")),
    ecosystem: t.field({
      type: EcosystemEnum,
      description: "The registry the target's dependencies come from.",
      resolve: (target) => target.ecosystem,
    }),
    packageManager: t.field({
      type: PackageManagerEnum,
      description: "The tool that wrote the manifest and lockfile.",
      resolve: (target) => asPackageManager(target.package_manager),
    }),
    manifestPath: t.string({
      nullable: true,
      description:
        "Path of the manifest (e.g. `package.json`) in the repository; null when there is only a lockfile.",
      resolve: (target) => target.manifest_path,
    }),
    lockfilePath: t.string({
      description: "Path of the lockfile (e.g. `package-lock.json`) in the repository.",
      resolve: (target) => target.lockfile_path,
    }),
    source: t.field({
      type: RepositoryTargetSourceEnum,
      description: "Whether the target was detected or configured.",
      resolve: (target) => target.source,
    }),
    isActivated: t.boolean({
      description:
        "True when the target is scanned: its newest scan counts in the repository's vulnerabilities and DDP. False once `deactivateRepositoryTarget` switched it off (its scans are kept; SBOMs of it are still stored, with a warning).",
      resolve: (target) => target.is_activated,
    }),
  }),
});

const RepositoryTargetConnection = connectionType(
  "RepositoryTarget",
  RepositoryTargetRef,
  "repository target",
);

/** One dependency scan of one target in an analysis run. */
export const ScaCheckRef = builder.objectRef<ScaCheckRow>("SCACheck").implement({
  description: "A dependency scan (software composition analysis) of one target, as part of an analysis run.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("SCACheck")),
    target: t.field({
      type: RepositoryTargetRef,
      nullable: true,
      description:
        "The target scanned: for an uploaded SBOM, the manifest and lockfile most of its dependencies come from; null when unknown.",
      resolve: (check, _args, ctx) =>
        check.target_id === null ? null : targetById(ctx).load(check.target_id),
    }),
    format: t.string({
      nullable: true,
      description:
        'The format of the SBOM the scan read, e.g. "CycloneDX 1.5 (JSON)" or "SPDX 2.3 (tag-value)"; null when the scan came from elsewhere.',
      resolve: (check) => check.format,
    }),
    dependencyCount: t.int({
      nullable: true,
      description:
        "How many distinct package versions the scan found, direct and transitive (the SBOM's root left out); null when not counted.",
      resolve: (check) => check.dependencies_count,
    }),
    directDependencyCount: t.int({
      nullable: true,
      description:
        "How many of them the scanned project depends on itself (all of them when the SBOM states no dependency graph); null when not counted.",
      resolve: (check) => check.direct_dependencies_count,
    }),
    transitiveDependencyCount: t.int({
      nullable: true,
      description: "How many of them come in only through other dependencies; null when not counted.",
      resolve: (check) => check.transitive_dependencies_count,
    }),
    vulnerabilityOccurrences: t.field({
      type: VulnerabilityOccurrenceConnection,
      nullable: true,
      description:
        "The vulnerabilities the scan found in the analysed commit (new and already present; fixed ones are not listed), most severe first, then by key.",
      args: connectionArgs(t.arg),
      resolve: (check, args, ctx) =>
        ctx.loaders.connections.load<VulnerabilityOccurrenceNode>(
          vulnerabilityOccurrencesOfScaCheck,
          check.id,
          pageArgs(args),
        ),
    }),
  }),
});

const ScaCheckConnection = connectionType("SCACheck", ScaCheckRef, "SCA check");

builder.objectField(RepositoryRef, "dependencyVulnerabilityOccurrences", (t) =>
  t.field({
    type: VulnerabilityOccurrenceConnection,
    nullable: true,
    description:
      "The vulnerabilities in the repository's dependencies now: per activated target, those its newest scan on the default branch found (of the newest analysed run that scanned it and whose dependency scanning did not fail), fixed ones left out, so a run that did not scan a target leaves its vulnerabilities as they were, and a deactivated target has none. Most severe first (an advisory without any rating last), then by key.",
    args: connectionArgs(t.arg),
    resolve: (repository, args, ctx) =>
      ctx.loaders.connections.load<VulnerabilityOccurrenceNode>(
        vulnerabilityOccurrencesOfRepository,
        repository.id,
        pageArgs(args),
      ),
  }),
);

builder.objectField(RepositoryRef, "dependencyVulnerabilityOccurrence", (t) =>
  t.field({
    type: VulnerabilityOccurrenceRef,
    description:
      "One vulnerability occurrence of this repository, from any of its runs, by global id. Any other id is NOT_FOUND.",
    args: {
      id: t.arg.id({ required: true, description: "The occurrence's global id." }),
    },
    resolve: (repository, args, ctx) =>
      findRepositoryVulnerabilityOccurrence(ctx, repository, String(args.id)),
  }),
);

builder.objectField(RepositoryRef, "target", (t) =>
  t.field({
    type: RepositoryTargetRef,
    description:
      "One dependency-scanning target of this repository, by global id. Any other id is NOT_FOUND.",
    args: {
      id: t.arg.id({ required: true, description: "The target's global id." }),
    },
    resolve: (repository, args, ctx) => findRepositoryTarget(ctx, repository, String(args.id)),
  }),
);

builder.objectField(RepositoryRef, "targets", (t) =>
  t.field({
    type: RepositoryTargetConnection,
    description: "The repository's dependency-scanning targets, by lockfile path, then key.",
    args: connectionArgs(t.arg),
    resolve: (repository, args, ctx) =>
      ctx.loaders.connections.load<RepositoryTargetRow>(targetsOfRepository, repository.id, pageArgs(args)),
  }),
);

builder.objectField(AnalysisRunRef, "scaChecks", (t) =>
  t.field({
    type: ScaCheckConnection,
    nullable: true,
    description: "The run's dependency scans, one per scanned target, oldest first, then by key.",
    args: connectionArgs(t.arg),
    resolve: (run, args, ctx) =>
      ctx.loaders.connections.load<ScaCheckRow>(scaChecksOfRun, run.id, pageArgs(args)),
  }),
);

registerNodeType("VulnerabilityOccurrence", (ctx, key) => visibleVulnerabilityOccurrenceByKey(ctx).load(key));
registerNodeType("RepositoryTarget", (ctx, key) => visibleTargetByKey(ctx).load(key));
registerNodeType("SCACheck", (ctx, key) => visibleScaCheckByKey(ctx).load(key));
