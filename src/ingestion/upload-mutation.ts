import type { ArtifactCompression, GoModuleRow } from "../db/types-ingestion.ts";
import { builder } from "../graphql/builder.ts";
import { type GraphQLContext, RequestLoaders } from "../graphql/context.ts";
import {
  clientMutationIdInput,
  clientMutationIdOutput,
  echoOf,
  inTransaction,
  type MutationEcho,
} from "../graphql/mutations.ts";
import { writableRepository } from "../modules/accounts/access.ts";
import { findVisibleArtifact } from "../modules/artifacts/artifact-service.ts";
import { ArtifactRef } from "../modules/artifacts/artifact-type.ts";
import { visibleRunByKey } from "../modules/runs/run-loaders.ts";
import { AnalysisRunRef } from "../modules/runs/run-type.ts";
import { UploadError } from "./errors.ts";
import { acceptUpload } from "./intake.ts";
import { type ArtifactUpload, presentOrNull } from "./types.ts";

/**
 * `uploadArtifact` on the main endpoint: the token-authenticated way to upload an artifact (used
 * by `assay upload` and scripts; docs/ingestion.md "Upload paths"). It ends in the same intake as
 * the contract CLI's `createArtifact`, and answers refusals the same way: `ok: false` with an
 * `error` sentence, not a GraphQL error, since the upload itself was answered.
 */

/** `UploadArtifactInput` as Pothos coerces it. */
export interface UploadArtifactInputValue {
  repositoryId: string | number;
  commitOid: string;
  branch?: string | null;
  pullRequestNumber?: number | null;
  baseBranch?: string | null;
  mergeBaseOid?: string | null;
  ancestorOids?: readonly string[] | null;
  renamesBaseOid?: string | null;
  analyzer: string;
  analyzerType?: string | null;
  key?: string | null;
  data: string;
  compression?: ArtifactCompression | null;
  workDir?: string | null;
  repositoryRoot?: string | null;
  reporter?: string | null;
  reporterVersion?: string | null;
  configToml?: string | null;
  lockfilePaths?: readonly string[] | null;
  goModules?: readonly GoModuleRow[] | null;
  clientMutationId?: string | null;
}

/** What `uploadArtifact` answers; `run` resolves from `runKey` after the intake's commit. */
interface UploadArtifactResult extends MutationEcho {
  ok: boolean;
  message: string;
  error: string;
  warnings: string[];
  artifactKey: string | null;
  runKey: string | null;
}

/** The reporter recorded when the input names none. */
export const DEFAULT_API_REPORTER = "api";

/** The intake's view of an `uploadArtifact` input, uploaded by `userId`. */
export function uploadOfUploadArtifact(input: UploadArtifactInputValue, userId: string): ArtifactUpload {
  return {
    commitOid: input.commitOid,
    branch: presentOrNull(input.branch),
    pullRequestNumber: input.pullRequestNumber ?? null,
    baseBranch: presentOrNull(input.baseBranch),
    mergeBaseOid: presentOrNull(input.mergeBaseOid),
    ancestorOids: input.ancestorOids ?? null,
    renamesBaseOid: presentOrNull(input.renamesBaseOid),
    analyzer: input.analyzer,
    analyzerType: presentOrNull(input.analyzerType),
    key: presentOrNull(input.key),
    data: input.data,
    compression: input.compression ?? "NONE",
    workDir: presentOrNull(input.workDir),
    repositoryRoot: presentOrNull(input.repositoryRoot),
    reporter: presentOrNull(input.reporter) ?? DEFAULT_API_REPORTER,
    reporterVersion: presentOrNull(input.reporterVersion),
    uploadedBy: userId,
    configToml: presentOrNull(input.configToml),
    lockfilePaths: input.lockfilePaths ?? null,
    goModules: input.goModules ?? null,
  };
}

/**
 * Authorises the upload (ADMIN or MEMBER of the repository's account, checked in a short
 * transaction of its own: the intake opens its own transaction, which takes the repository lock
 * again), then hands it to the intake. An {@link UploadError} answers `ok: false`; anything else
 * is a server error.
 */
async function uploadArtifact(
  ctx: GraphQLContext,
  input: UploadArtifactInputValue,
): Promise<UploadArtifactResult> {
  const { repository } = await inTransaction(ctx, (tx) =>
    writableRepository(ctx, tx, input.repositoryId, "repositoryId"),
  );
  const upload = uploadOfUploadArtifact(input, ctx.viewer.userId);
  try {
    const accepted = await acceptUpload(
      ctx.db,
      ctx.config,
      ctx.logger.child({ requestId: ctx.requestId }),
      repository,
      upload,
    );
    return {
      ok: true,
      message: accepted.message,
      error: "",
      warnings: accepted.warnings,
      artifactKey: accepted.artifactKey,
      runKey: accepted.runKey,
      ...echoOf(input),
    };
  } catch (error) {
    if (!(error instanceof UploadError)) throw error;
    return {
      ok: false,
      message: "",
      error: error.message,
      warnings: [],
      artifactKey: null,
      runKey: null,
      ...echoOf(input),
    };
  } finally {
    // The intake committed (or not) on its own: later fields read the state after it.
    ctx.loaders = new RequestLoaders(ctx.db);
  }
}

const ArtifactCompressionEnum = builder.enumType("ArtifactCompression", {
  description: "How an uploaded artifact's `data` is encoded.",
  values: {
    NONE: { description: "The report text itself." },
    ZSTD: { description: "Base64 of the report text compressed with zstd." },
    GZIP: { description: "Base64 of the report text compressed with gzip." },
  } as const,
});

const GoModuleInput = builder.inputType("GoModuleInput", {
  description:
    "A Go module of the repository: its module path and the directory its go.mod is in (an Assay extension).",
  fields: (t) => ({
    modulePath: t.string({
      required: true,
      description: "The module path the go.mod's `module` line declares (`example.com/shop`).",
    }),
    directory: t.string({
      required: true,
      description:
        'The directory of the go.mod, relative to the repository root and separated by "/" ("backend", "libs/pricing"); "" or "." for the root.',
    }),
  }),
});

const UploadArtifactInput = builder.inputType("UploadArtifactInput", {
  description: "One artifact (an analyzer's SARIF report, a coverage report, or changed lines) for a commit.",
  fields: (t) => ({
    repositoryId: t.id({ required: true, description: "The global id of the repository." }),
    commitOid: t.string({
      required: true,
      description: "The analysed commit: 7 to 64 hexadecimal characters.",
    }),
    branch: t.string({
      required: false,
      description:
        "The branch the commit was built on. Without it the run takes the branch of an earlier run of the commit, else the repository's default branch.",
    }),
    pullRequestNumber: t.int({
      required: false,
      description:
        "The pull request the commit is the head of (an Assay extension). The run joins that pull request (created when Assay has not heard of it from the provider) and is compared with its base branch. Without it, a commit that a provider's webhook reported as an open pull request's head joins that pull request.",
    }),
    baseBranch: t.string({
      required: false,
      description:
        "The branch the run is compared with: the pull request's target (an Assay extension). Without it, the pull request's base branch as last reported, else the repository's default branch.",
    }),
    mergeBaseOid: t.string({
      required: false,
      description:
        "Where the commit's history meets the base branch's (`git merge-base`; an Assay extension), sent with pullRequestNumber or baseBranch: the run is compared with that commit's analysed run, so what the base branch changed since is not counted as the pull request's. Without it, the merge base the provider reported, else the base branch's latest analysed run. `assay upload` sends it.",
    }),
    ancestorOids: t.stringList({
      required: false,
      description:
        "The commit's first-parent ancestors, nearest first (`git rev-list --first-parent`, without the commit itself; at most 1000; an Assay extension). On the default branch the run is then compared with the newest of them that was analysed rather than with the latest upload, and a run of an older commit that arrives after a newer commit's is placed before it in the branch's history: it gets its own checks but does not become the repository's current state. Ignored for a pull request's run, which mergeBaseOid places. Without it, runs follow the upload order. `assay upload` sends up to 100.",
    }),
    renamesBaseOid: t.string({
      required: false,
      description:
        "With analyzer `changes`: the commit the diff was made against, sending the diff for its renamed files alone (an Assay extension). The run's findings in those files are matched with their old paths' only while this commit is the run's base commit, the one it is compared with; the diff's lines are not the run's changed lines, so its coverage gets no new-code metrics from them. `assay upload` sends `git diff --find-renames --diff-filter=R` from the first parent with this for a build of a branch that is no pull request's. Without it, a diff's renames and lines count whatever it was made against.",
    }),
    analyzer: t.string({
      required: true,
      description:
        "The analyzer's shortcode; `test-coverage` for coverage, `changes` for the run's changed lines.",
    }),
    analyzerType: t.string({
      required: false,
      description: 'Set to "community" for an analyzer outside the catalog; otherwise omitted.',
    }),
    key: t.string({
      required: false,
      description: "For `test-coverage`, the language (`python`, `go`, `javascript`...); ignored otherwise.",
    }),
    data: t.string({
      required: true,
      description: "The report text, or base64 of its compression when `compression` is not NONE.",
    }),
    compression: t.field({
      type: ArtifactCompressionEnum,
      required: false,
      defaultValue: "NONE",
      description: "How `data` is encoded.",
    }),
    workDir: t.string({
      required: false,
      description:
        "The directory the report was made in (absolute, as on the machine that made it); kept with the artifact for resolving its paths. Absolute paths under it are made relative to it; without `repositoryRoot` it is taken as the repository's root, and relative paths as relative to the root.",
    }),
    repositoryRoot: t.string({
      required: false,
      description:
        "The checkout's root on the machine that made the report, when `workDir` is a subdirectory of it (an Assay extension; `assay upload --work-dir` sends the git top level). Then absolute paths are made relative to this root, and relative paths are read from `workDir`'s place in the repository: `src/a.js` of a report made in `/ci/repo/web` with this root `/ci/repo` is `web/src/a.js`. A `workDir` outside it refuses the upload. The artifact keeps it (`Artifact.repositoryRoot`).",
    }),
    reporter: t.string({ required: false, description: 'The uploading program; "api" when omitted.' }),
    reporterVersion: t.string({ required: false, description: "The uploading program's version." }),
    configToml: t.string({
      required: false,
      description:
        "The repository's `.deepsource.toml` at this commit, as TOML text of at most 64 KiB (an Assay extension). The run keeps it, a new run waits for the analyzers it turns on, and a default-branch run's newest one becomes `Repository.configJson`. A file that is not TOML or not of DeepSource's documented shape refuses the upload, as does one that differs from the configuration the run was uploaded with before. Without it, nothing changes.",
    }),
    lockfilePaths: t.stringList({
      required: false,
      description:
        "The repository-relative paths of the dependency manifests and lockfiles git tracks at this commit (an Assay extension; `assay upload` sends them with an SBOM, from `git ls-files`). The run keeps them. A detected dependency target whose lockfile was listed when it was last scanned, and that the default branch's newest list leaves out, counts as scanned and empty: its vulnerabilities leave the repository's and DDP drops it. A path that is not relative to the repository root, or a list that differs from the one the run was uploaded with before, refuses the upload. Without it, nothing changes.",
    }),
    goModules: t.field({
      type: [GoModuleInput],
      required: false,
      description:
        "With a Go cover profile (`test-coverage`, key `go`): the repository's Go modules, each module path with the directory its go.mod is in (an Assay extension; `assay upload` sends those of the checkout). A profile names files by import path; a file under a module's path (the longest that fits) is placed in its directory, so `example.com/shop/internal/cart/cart.go` of the module `example.com/shop` in `backend` is `backend/internal/cart/cart.go`. The artifact keeps them (`Artifact.goModules`). An entry that is not a module path or not a directory relative to the repository root, a module path named twice, more than 1000 modules, or the field on another upload refuses the upload. Without it, files under the repository's conventional module path (the host and path of its page) lose that prefix, and the others are kept as written.",
    }),
    clientMutationId: clientMutationIdInput(t),
  }),
});

const UploadArtifactPayload = builder.objectRef<UploadArtifactResult>("UploadArtifactPayload").implement({
  description:
    "The answer of `uploadArtifact`: accepted with its run, or the reason for the refusal in `error`.",
  fields: (t) => ({
    ok: t.boolean({ description: "True when the artifact was accepted.", resolve: (p) => p.ok }),
    message: t.string({
      description:
        'What was accepted ("Artifact successfully uploaded for repository ..."), followed by `warnings`; "" on refusal.',
      resolve: (p) => p.message,
    }),
    error: t.string({
      description: 'Why the artifact was refused, in one sentence; "" when it was accepted.',
      resolve: (p) => p.error,
    }),
    warnings: t.stringList({
      description:
        "What the uploader should know although the artifact was accepted, in sentences: SARIF results that lie outside the repository (with the first path and the fix) or name no file, and will not be stored. Empty on refusal.",
      resolve: (p) => p.warnings,
    }),
    artifact: t.field({
      type: ArtifactRef,
      nullable: true,
      description:
        "The stored artifact (QUEUED until processed; for a repeated upload of the same report, the one stored first); null on refusal.",
      resolve: (p, _args, ctx) => (p.artifactKey ? findVisibleArtifact(ctx, p.artifactKey) : null),
    }),
    artifactId: t.string({
      nullable: true,
      description:
        "The accepted artifact's key (the same for a repeated upload of the same report to the run); null on refusal.",
      resolve: (p) => p.artifactKey,
    }),
    run: t.field({
      type: AnalysisRunRef,
      nullable: true,
      description:
        "The run of the commit the artifact joined (PENDING until it is processed); null on refusal.",
      resolve: (p, _args, ctx) => (p.runKey ? visibleRunByKey(ctx).load(p.runKey) : null),
    }),
    clientMutationId: clientMutationIdOutput(t),
  }),
});

builder.mutationField("uploadArtifact", (t) =>
  t.field({
    type: UploadArtifactPayload,
    nullable: true,
    description:
      "Uploads one artifact for a commit of a repository, as `createArtifact` does with a DSN, but with a personal access token. Needs the ADMIN or MEMBER role in the repository's account. Processing is asynchronous: the run is PENDING until the artifact is processed. A refused upload answers `ok: false` with the reason in `error`; nothing is stored then.",
    args: {
      input: t.arg({
        type: UploadArtifactInput,
        required: true,
        description: "The artifact and its commit.",
      }),
    },
    resolve: (_root, { input }, ctx) => uploadArtifact(ctx, input),
  }),
);
