import type { GoModuleRow } from "../../db/types-ingestion.ts";
import { builder } from "../../graphql/builder.ts";
import { registerNodeType } from "../../graphql/node.ts";
import {
  connectionArgs,
  connectionType,
  globalIdField,
  NodeInterface,
  pageArgs,
} from "../../graphql/relay.ts";
import { CheckRef } from "../checks/check-type.ts";
import { visibleCheckByKey } from "../checks/checks-loaders.ts";
import { visibleRunByKey } from "../runs/run-loaders.ts";
import { AnalysisRunRef } from "../runs/run-type.ts";
import {
  ARTIFACT_SKIP_REASONS,
  type ArtifactSkipCount,
  type ArtifactSkipReason,
  findVisibleArtifact,
  outcomeOfArtifact,
  reportSize,
  skipCounts,
  skippedTotal,
} from "./artifact-service.ts";
import { type ArtifactView, artifactsOfCheck, artifactsOfRun } from "./artifact-store.ts";

const ArtifactKindEnum = builder.enumType("ArtifactKind", {
  description: "What an uploaded artifact holds; it follows from the analyzer it was uploaded for.",
  values: {
    SARIF: {
      description:
        "An analyzer's findings, as a SARIF 2.1.0 log, a cppcheck XML report (version 2), go vet's JSON output (go vet -json), GCC's JSON diagnostics (-fdiagnostics-format=json), a checkstyle XML report (Checkstyle, ShellCheck, ESLint, PHP_CodeSniffer and other linters) or ShellCheck's JSON (-f json1 or -f json).",
    },
    COVERAGE: {
      description:
        "A test coverage report (analyzer `test-coverage`): LCOV, Cobertura, Clover, JaCoCo or a Go cover profile.",
    },
    CHANGES: {
      description:
        "The run's changed lines (analyzer `changes`), as a unified diff or JSON line ranges, for new-code coverage.",
    },
    SBOM: {
      description:
        "A software bill of materials (analyzer `sca`): CycloneDX 1.4-1.6 (JSON or XML) or SPDX 2.2/2.3 (JSON or tag-value).",
    },
  } as const,
});

const ArtifactStatusEnum = builder.enumType("ArtifactStatus", {
  description: "Where an accepted artifact is in its processing.",
  values: {
    QUEUED: { description: "Stored and waiting to be processed; its check stays PENDING." },
    PROCESSED: { description: "Processed: its counts say what was read, stored and skipped." },
    FAILED: {
      description: "Its report could not be processed; `error` says why, and nothing of it was stored.",
    },
  } as const,
});

const SKIP_REASON_DESCRIPTIONS: Record<ArtifactSkipReason, string> = {
  OUTSIDE_REPOSITORY:
    "The entry's file lies outside the repository: an absolute path outside the upload's workDir, any absolute path when the upload gave no workDir, or a relative path climbing above the root.",
  NO_LOCATION:
    "A SARIF result that names no file (no location, or only logical ones): there is no path to show, suppress or compare.",
  NOT_REPORTED:
    "The repository does not report the issue's category or priority (`isReported: false` in its settings).",
  ABSENT: 'The tool itself marks the SARIF result as gone (`baselineState: "absent"`).',
  NOT_A_FAILURE:
    "A SARIF result that reports no problem: its `kind` is `pass` (a check the tool ran held) or `notApplicable`.",
  NO_PURL: "An SBOM component without a valid package URL (purl): nothing says which package it is.",
  UNSUPPORTED_ECOSYSTEM:
    "An SBOM component whose package URL is of a type no supported registry uses (such as `deb` or `generic`).",
  NO_VERSION: "An SBOM component that states no version.",
  PROJECT_PACKAGE:
    "An SBOM component that is the project's own code, not a third-party package: an npm workspace package or a package linked from the repository (`file:`), which `npm audit` leaves out too. It counts in no dependency figure and is matched against no advisory; the packages it depends on count, as direct dependencies.",
  UNSTORABLE_TEXT:
    "A SARIF result whose rule id, message, file paths or fingerprints contain a NUL character or an unpaired UTF-16 surrogate: text that cannot be stored as sent, and is not stored altered.",
  ALREADY_REPORTED:
    "A SARIF result that another processed artifact of the same check already reported (the same finding, by fingerprint), such as a CI job run again: it is counted once, as that artifact's. The artifact's warnings name the artifacts holding them.",
  REPEATED:
    "A diagnostic the same report already gave, with the same rule, message and place: GCC's JSON output repeats a header's warning for every file that includes it. It is counted once, as the first.",
  EXCLUDED:
    "A SARIF result in a file the `.deepsource.toml`'s `exclude_patterns` match (the run's configuration, else the repository's): DeepSource reports no finding there. The artifact's warnings name the first such file and its pattern.",
};

const ArtifactSkipReasonEnum = builder.enumType("ArtifactSkipReason", {
  description:
    "Why an entry of a report (a SARIF result, a coverage file, an SBOM component) was read but not stored.",
  values: Object.fromEntries(
    ARTIFACT_SKIP_REASONS.map((reason) => [reason, { description: SKIP_REASON_DESCRIPTIONS[reason] }]),
  ) as Record<ArtifactSkipReason, { description: string }>,
});

const GoModuleRef = builder.objectRef<GoModuleRow>("GoModule").implement({
  description:
    "A Go module of the repository as an upload named it: its module path and the directory its go.mod is in (an Assay extension).",
  fields: (t) => ({
    modulePath: t.string({
      description: "The module path its go.mod declares (`example.com/shop`).",
      resolve: (m) => m.modulePath,
    }),
    directory: t.string({
      description:
        'The directory of its go.mod, relative to the repository root ("backend"); "" for the root.',
      resolve: (m) => m.directory,
    }),
  }),
});

const ArtifactSkipCountRef = builder.objectRef<ArtifactSkipCount>("ArtifactSkipCount").implement({
  description: "How many entries of an artifact were skipped for one reason.",
  fields: (t) => ({
    reason: t.field({ type: ArtifactSkipReasonEnum, description: "The reason.", resolve: (s) => s.reason }),
    count: t.int({ description: "Entries skipped for it.", resolve: (s) => s.count }),
  }),
});

/** One upload of a run: a SARIF log, a coverage report or changed lines, and what became of it. */
export const ArtifactRef = builder.objectRef<ArtifactView>("Artifact").implement({
  description:
    "One upload to a run (through `createArtifact` or `uploadArtifact`): what it was, and what processing read, stored and skipped. Every accepted upload is listed, so nothing sent disappears unseen.",
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.id(globalIdField("Artifact")),
    kind: t.field({
      type: ArtifactKindEnum,
      description: "What the artifact holds.",
      resolve: (a) => a.kind,
    }),
    format: t.string({
      nullable: true,
      description:
        'The format the upload was recognised as: "SARIF 2.1.0", "cppcheck XML 2", "go vet JSON", "GCC JSON", "checkstyle XML", "ShellCheck json1", "ShellCheck JSON", "LCOV", "Cobertura", "Clover", "JaCoCo", "Go cover profile", "unified diff", "line ranges" or "empty". Null for artifacts uploaded before the format was recorded.',
      resolve: (a) => a.format,
    }),
    analyzerShortcode: t.string({
      description:
        "The analyzer's shortcode as uploaded (`test-coverage` for coverage, `changes` for changed lines).",
      resolve: (a) => a.analyzer,
    }),
    languageKey: t.string({
      nullable: true,
      description: "A coverage artifact's language key (`javascript`, `go`...); null for other kinds.",
      resolve: (a) => a.language_key,
    }),
    workDir: t.string({
      nullable: true,
      description:
        "The directory the upload said the report was made in; null when it gave none. Absolute paths are made relative to it, or to `repositoryRoot` when the upload named one.",
      resolve: (a) => a.work_dir,
    }),
    repositoryRoot: t.string({
      nullable: true,
      description:
        "The checkout's root the upload named, when it said the report was made in a subdirectory of it (`workDir`; an Assay extension, sent by `assay upload --work-dir`): the report's relative paths were read from that subdirectory, its absolute paths against this root. Null when it named none, and `workDir` was taken as the root.",
      resolve: (a) => a.repository_root,
    }),
    renamesBaseOid: t.string({
      nullable: true,
      description:
        "A CHANGES artifact sent for its renamed files alone (an Assay extension; `assay upload` sends one for a branch build that renames files): the commit its diff was made against. Its renames matched the run's findings with their old paths' only when this was the run's base commit, and its lines are not the run's changed lines. Null for every other artifact.",
      resolve: (a) => a.renames_base_oid,
    }),
    goModules: t.field({
      type: [GoModuleRef],
      nullable: true,
      description:
        "The Go modules the upload named (an Assay extension; `assay upload` sends those of the checkout with a Go cover profile): a profile's file under a module's path was placed in that module's directory. Null when it named none.",
      resolve: (a) => a.go_modules,
    }),
    status: t.field({
      type: ArtifactStatusEnum,
      description: "Where the artifact is in its processing.",
      resolve: (a) => a.status,
    }),
    error: t.string({
      nullable: true,
      description: "Why processing failed, when `status` is FAILED; null otherwise.",
      resolve: (a) => a.error,
    }),
    readCount: t.int({
      nullable: true,
      description:
        "Entries the report held: SARIF results, coverage files, or changed files. `readCount = storedCount + skippedCount`. Null until processed.",
      resolve: (a) => outcomeOfArtifact(a)?.read ?? null,
    }),
    storedCount: t.int({
      nullable: true,
      description:
        "Entries that became rows: occurrences, covered files, changed files. Null until processed.",
      resolve: (a) => outcomeOfArtifact(a)?.stored ?? null,
    }),
    skippedCount: t.int({
      nullable: true,
      description: "Entries read but not stored, for any reason (see `skipped`). Null until processed.",
      resolve: (a) => skippedTotal(a),
    }),
    skipped: t.field({
      type: [ArtifactSkipCountRef],
      description: "The skipped entries by reason, in the enum's order; reasons with none are left out.",
      resolve: (a) => skipCounts(a),
    }),
    warnings: t.stringList({
      description:
        "What the uploader should know although processing went on, in sentences (results outside the repository, with the first path and the fix). Empty until processed.",
      resolve: (a) => outcomeOfArtifact(a)?.warnings ?? [],
    }),
    sizeBytes: t.float({
      description:
        "The report's size in bytes after decompression, which is what ASSAY_ARTIFACT_MAX_BYTES caps. For a compressed artifact uploaded before Assay recorded that size, the compressed bytes as stored.",
      resolve: (a) => reportSize(a),
    }),
    createdAt: t.field({
      type: "DateTime",
      description: "When the upload was accepted.",
      resolve: (a) => a.created_at,
    }),
    processedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When processing ended (PROCESSED or FAILED); null while QUEUED.",
      resolve: (a) => a.processed_at,
    }),
    run: t.field({
      type: AnalysisRunRef,
      description: "The run of the commit the artifact was uploaded for.",
      resolve: async (a, _args, ctx) => (await visibleRunByKey(ctx).load(a.run_key))!,
    }),
    check: t.field({
      type: CheckRef,
      nullable: true,
      description:
        "The check of the artifact's analyzer in its run; null for changed lines, which belong to the run.",
      resolve: (a, _args, ctx) => (a.check_key === null ? null : visibleCheckByKey(ctx).load(a.check_key)),
    }),
  }),
});

const ArtifactConnection = connectionType("Artifact", ArtifactRef, "artifact");

builder.objectField(AnalysisRunRef, "artifacts", (t) =>
  t.field({
    type: ArtifactConnection,
    description: "Every artifact uploaded to the run, its changed lines included, in upload order.",
    args: connectionArgs(t.arg),
    resolve: (run, args, ctx) =>
      ctx.loaders.connections.load<ArtifactView>(artifactsOfRun, run.id, pageArgs(args)),
  }),
);

builder.objectField(CheckRef, "artifacts", (t) =>
  t.field({
    type: ArtifactConnection,
    description: "The artifacts uploaded for the check's analyzer in its run, in upload order.",
    args: connectionArgs(t.arg),
    resolve: (check, args, ctx) =>
      ctx.loaders.connections.load<ArtifactView>(artifactsOfCheck, check.id, pageArgs(args)),
  }),
);

registerNodeType("Artifact", (ctx, key) => findVisibleArtifact(ctx, key));
