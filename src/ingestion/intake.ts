import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import type { AnalyzerRow, Database, RepositoryRow } from "../db/types.ts";
import type { ArtifactKind, GoModuleRow } from "../db/types-ingestion.ts";
import { latin1Warning } from "../formats/coverage/index.ts";
import {
  type RepositoryConfig,
  RepositoryConfigError,
  readRepositoryConfig,
} from "../formats/deepsource-config/reader.ts";
import { emptyReportRefusal, FINDINGS_FORMAT_NAMES } from "../formats/findings.ts";
import { type ReportPlacement, reportPlacement, rootField } from "../formats/report-placement.ts";
import { findWorkingDirectories } from "../formats/sarif/working-directories.ts";
import type { SbomStandard } from "../formats/sbom/index.ts";
import { ShellcheckFormatError } from "../formats/shellcheck/reader.ts";
import { SNIFF_HEAD_BYTES, sniffFormat } from "../formats/sniff.ts";
import { newRowKey } from "../graphql/global-id.ts";
import { enqueueJob } from "../jobs/job-store.ts";
import type { Logger } from "../logger.ts";
import { findAccountById } from "../modules/accounts/account-store.ts";
import { findDuplicateArtifact, insertArtifact } from "../modules/artifacts/artifact-store.ts";
import { catalogKey } from "../modules/catalog/catalog-data.ts";
import { findAnalyzerByShortcode, insertAnalyzerIfAbsent } from "../modules/catalog/catalog-store.ts";
import { branchNameProblem } from "../modules/repositories/branch-name.ts";
import { lockRepositoryNoKeyUpdate } from "../modules/repositories/repository-store.ts";
import { lockRunNoKeyUpdate } from "../modules/runs/run-store.ts";
import {
  decodeUploadData,
  reportHead,
  sha256Of,
  storeArtifactBytes,
  storedForm,
  textChunks,
} from "./artifact-bytes.ts";
import { parseRenamedFiles } from "./changes.ts";
import { collectDecodedText, collectText, validateChanges, validateCoverage } from "./coverage/validate.ts";
import { invalidReportMessage, UploadError, wrongFormatMessage } from "./errors.ts";
import { readGoModules } from "./go-modules.ts";
import {
  COVERAGE_FORMAT_NAMES,
  changesFormatName,
  coveragePlacementWarnings,
  sarifPlacementWarnings,
} from "./intake-report.ts";
import { adoptUploadedConfig } from "./run-config.ts";
import { openCheck, openRun, settleRun } from "./run-lifecycle.ts";
import { adoptLockfilePaths, readLockfilePaths } from "./run-lockfiles.ts";
import { validateSarif } from "./sarif-validate.ts";
import { checkSbomKey, validateSbom } from "./sca/sbom-intake.ts";
import {
  type ArtifactUpload,
  artifactKindOf,
  COVERAGE_LANGUAGE_KEYS,
  type CoverageLanguageKey,
} from "./types.ts";

/**
 * The upload intake shared by `createArtifact` (DSN) and `uploadArtifact` (token): checks the
 * upload, validates the whole report, then stores it and queues its processing in one transaction
 * (docs/ingestion.md "Upload paths").
 */

/** The job that processes one artifact. */
export const PROCESS_JOB_KIND = "ingest.artifact";

/** What an accepted upload answers. */
export interface UploadAccepted {
  /** The contract's sentence, followed by {@link UploadAccepted.warnings}. */
  message: string;
  /** What the uploader should know although the report was accepted (results that will not be stored). */
  warnings: string[];
  artifactKey: string;
  runKey: string;
  runUid: string;
  /** True when the same report was already uploaded for this run (nothing changed). */
  duplicate: boolean;
}

const COMMIT_PATTERN = /^[0-9a-fA-F]{7,64}$/;
const COMMUNITY_SHORTCODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** An upload's checked fields. */
interface CheckedUpload {
  commitOid: string;
  branch: string | null;
  pullRequestNumber: number | null;
  baseBranch: string | null;
  mergeBaseOid: string | null;
  /** The commit's first-parent ancestors, nearest first, lower-cased; null when the upload sends none. */
  ancestorOids: string[] | null;
  /** A CHANGES upload's renames base, lower-cased; null when it sends none. */
  renamesBaseOid: string | null;
  kind: ArtifactKind;
  analyzer: string;
  languageKey: CoverageLanguageKey | null;
  community: boolean;
  /** An SBOM upload's `key`: the standard it must be in; null to detect it. */
  sbomStandard: SbomStandard | null;
  /** The repository's configuration the upload carries, read; null when it sends none. */
  config: RepositoryConfig | null;
  /** The lockfiles the upload lists, as kept (run-lockfiles.ts); null when it lists none. */
  lockfilePaths: string[] | null;
  /** A Go profile's modules, as kept (go-modules.ts); null when the upload names none. */
  goModules: GoModuleRow[] | null;
  workDir: string | null;
  repositoryRoot: string | null;
  /** Where the report's paths lead (src/formats/report-placement.ts). */
  placement: ReportPlacement;
}

/** Checks everything about an upload but its report; throws {@link UploadError}. */
function checkUpload(repository: RepositoryRow, upload: ArtifactUpload): CheckedUpload {
  if (!repository.is_activated) {
    throw new UploadError(
      "REPOSITORY_INACTIVE",
      `repository ${repository.name} is not activated; activate it before uploading artifacts`,
    );
  }
  const commitOid = upload.commitOid.trim();
  if (!COMMIT_PATTERN.test(commitOid)) {
    throw new UploadError(
      "INVALID_COMMIT",
      `commitOid must be a git commit id of 7 to 64 hexadecimal characters, got "${commitOid.slice(0, 80)}"`,
    );
  }
  const branch = upload.branch?.trim() || null;
  const branchProblem = branch === null ? undefined : branchNameProblem(branch);
  if (branchProblem)
    throw new UploadError("INVALID_INPUT", `branch "${branch}" is not a valid branch name: ${branchProblem}`);
  const pullRequestNumber = upload.pullRequestNumber ?? null;
  if (pullRequestNumber !== null && !(Number.isInteger(pullRequestNumber) && pullRequestNumber > 0)) {
    throw new UploadError(
      "INVALID_INPUT",
      `pullRequestNumber must be a positive pull request number, got ${pullRequestNumber}`,
    );
  }
  const baseBranch = upload.baseBranch?.trim() || null;
  const baseProblem = baseBranch === null ? undefined : branchNameProblem(baseBranch);
  if (baseProblem) {
    throw new UploadError(
      "INVALID_INPUT",
      `baseBranch "${baseBranch}" is not a valid branch name: ${baseProblem}`,
    );
  }
  const mergeBaseOid = upload.mergeBaseOid?.trim() || null;
  if (mergeBaseOid !== null && !COMMIT_PATTERN.test(mergeBaseOid)) {
    throw new UploadError(
      "INVALID_INPUT",
      `mergeBaseOid must be a git commit id of 7 to 64 hexadecimal characters, got "${mergeBaseOid.slice(0, 80)}"`,
    );
  }
  if (mergeBaseOid !== null && pullRequestNumber === null && baseBranch === null) {
    throw new UploadError(
      "INVALID_INPUT",
      "mergeBaseOid is where the commit meets the branch it is compared with: send it with pullRequestNumber or baseBranch",
    );
  }
  const ancestorOids = readAncestorOids(upload.ancestorOids, commitOid);
  const analyzer = upload.analyzer.trim();
  if (analyzer === "") throw new UploadError("INVALID_INPUT", "analyzer is empty");
  const kind = artifactKindOf(analyzer);
  const renamesBaseOid = readRenamesBaseOid(upload.renamesBaseOid, kind, commitOid);
  let languageKey: CoverageLanguageKey | null = null;
  if (kind === "COVERAGE") {
    const key = (upload.key ?? "").trim().toLowerCase();
    if (key === "") {
      throw new UploadError(
        "INVALID_INPUT",
        `a coverage upload needs a language key (\`key\`; \`--key\` for assay upload): one of ${Object.keys(COVERAGE_LANGUAGE_KEYS).join(", ")}`,
      );
    }
    if (!Object.hasOwn(COVERAGE_LANGUAGE_KEYS, key)) {
      throw new UploadError(
        "UNKNOWN_LANGUAGE",
        `unknown language key "${upload.key ?? ""}" for test-coverage; expected one of ${Object.keys(COVERAGE_LANGUAGE_KEYS).join(", ")}`,
      );
    }
    languageKey = key as CoverageLanguageKey;
  }
  const community = (upload.analyzerType ?? "").trim().toLowerCase() === "community";
  if (community && !COMMUNITY_SHORTCODE.test(analyzer)) {
    throw new UploadError(
      "INVALID_INPUT",
      `analyzer "${analyzer.slice(0, 80)}" is not a valid shortcode (letters, digits, ".", "_" and "-", at most 64)`,
    );
  }
  const sbomStandard = kind === "SBOM" ? checkSbomKey(upload.key) : null;
  const config = readUploadedConfig(upload.configToml);
  const lockfilePaths = readLockfilePaths(upload.lockfilePaths);
  const goModules = readGoModules(upload.goModules, { kind, languageKey });
  const workDir = upload.workDir?.trim() || null;
  const repositoryRoot = upload.repositoryRoot?.trim() || null;
  const placement = reportPlacement(workDir, repositoryRoot);
  if (typeof placement === "string") throw new UploadError("INVALID_INPUT", placement);
  return {
    commitOid: commitOid.toLowerCase(),
    branch,
    pullRequestNumber,
    baseBranch,
    mergeBaseOid: mergeBaseOid?.toLowerCase() ?? null,
    ancestorOids,
    renamesBaseOid,
    kind,
    analyzer,
    languageKey,
    community,
    sbomStandard,
    config,
    lockfilePaths,
    goModules,
    workDir,
    repositoryRoot,
    placement,
  };
}

/** The most ancestors an upload may list: `assay upload` sends 100. */
export const MAX_ANCESTOR_OIDS = 1000;

/**
 * The upload's `ancestorOids` checked (docs/ingestion.md "Where a run stands in the history"):
 * commit ids, nearest first, neither the commit itself nor one twice, at most
 * {@link MAX_ANCESTOR_OIDS}; lower-cased. Null when the upload sends none; an empty list is the
 * root commit's (it has no ancestor). Throws INVALID_INPUT naming the entry.
 */
function readAncestorOids(list: readonly string[] | null | undefined, commitOid: string): string[] | null {
  if (list === null || list === undefined) return null;
  if (list.length > MAX_ANCESTOR_OIDS) {
    throw new UploadError(
      "INVALID_INPUT",
      `ancestorOids lists ${list.length} commits; at most ${MAX_ANCESTOR_OIDS} (the nearest first) are read`,
    );
  }
  const seen = new Set<string>();
  for (const [index, entry] of list.entries()) {
    const oid = entry.trim().toLowerCase();
    if (!COMMIT_PATTERN.test(oid)) {
      throw new UploadError(
        "INVALID_INPUT",
        `ancestorOids[${index}] must be a git commit id of 7 to 64 hexadecimal characters, got "${entry.slice(0, 80)}"`,
      );
    }
    if (oid === commitOid.toLowerCase()) {
      throw new UploadError(
        "INVALID_INPUT",
        `ancestorOids[${index}] is the commit itself (${oid}): list its ancestors only, the parent first`,
      );
    }
    if (seen.has(oid)) {
      throw new UploadError(
        "INVALID_INPUT",
        `ancestorOids lists ${oid} twice: a first-parent history names each commit once`,
      );
    }
    seen.add(oid);
  }
  return [...seen];
}

/**
 * The upload's `renamesBaseOid` checked (docs/ingestion.md "Renamed files"): a commit id other
 * than the commit itself, sent with a CHANGES upload; lower-cased, as the runs' commits are.
 * Null when the upload sends none. Throws INVALID_INPUT naming the problem.
 */
function readRenamesBaseOid(
  value: string | null | undefined,
  kind: ArtifactKind,
  commitOid: string,
): string | null {
  const oid = value?.trim().toLowerCase() || null;
  if (oid === null) return null;
  if (!COMMIT_PATTERN.test(oid)) {
    throw new UploadError(
      "INVALID_INPUT",
      `renamesBaseOid must be a git commit id of 7 to 64 hexadecimal characters, got "${oid.slice(0, 80)}"`,
    );
  }
  if (kind !== "CHANGES") {
    throw new UploadError(
      "INVALID_INPUT",
      "renamesBaseOid is the commit a diff of renamed files was made against: send it with analyzer changes",
    );
  }
  if (oid === commitOid.toLowerCase()) {
    throw new UploadError(
      "INVALID_INPUT",
      `renamesBaseOid is the commit itself (${oid}): a diff renames files against an earlier commit`,
    );
  }
  return oid;
}

/** The upload's configuration read (null when it sends none, or only blanks); INVALID_CONFIG when it cannot be. */
function readUploadedConfig(text: string | null | undefined): RepositoryConfig | null {
  if (text === null || text === undefined || text.trim() === "") return null;
  try {
    return readRepositoryConfig(text);
  } catch (error) {
    if (error instanceof RepositoryConfigError) throw new UploadError("INVALID_CONFIG", error.message);
    throw error;
  }
}

/** A report the intake accepted, with what it learnt reading it. */
interface ValidReport {
  /** SHA-256 of the text (after decompression). */
  sha256: Buffer;
  /** The format's name, recorded on the artifact ("SARIF 2.1.0", "LCOV"...). */
  format: string;
  /** The text's size in bytes. */
  reportBytes: number;
  warnings: string[];
}

/**
 * Validates the whole report in its format, streaming it through the decompressor with the size
 * cap. A report that is not valid in its format is refused as WRONG_FORMAT when it looks like
 * another kind of report (its head sniffed, src/formats/sniff.ts), else INVALID_REPORT with the
 * parser's message. Throws {@link UploadError}.
 */
async function validateReport(
  bytes: Buffer,
  upload: ArtifactUpload,
  checked: CheckedUpload,
  config: Config,
): Promise<ValidReport> {
  const hash = createHash("sha256");
  let reportBytes = 0;
  async function* counted(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) {
      reportBytes += chunk.length;
      yield chunk;
    }
  }
  const text = () => counted(sha256Of(textChunks(bytes, upload.compression, config.artifactMaxBytes), hash));
  let format: string;
  let warnings: string[] = [];
  try {
    if (checked.kind === "SARIF") {
      // Read apart from `text()`, which counts and hashes what it reads.
      const { placement } = checked;
      const workingDirectories = await findWorkingDirectories(
        () => textChunks(bytes, upload.compression, config.artifactMaxBytes),
        placement.root,
      );
      const summary = await validateSarif(text(), placement, workingDirectories, checked.analyzer);
      warnings = sarifPlacementWarnings(summary, placement.root, rootField(placement));
      format = FINDINGS_FORMAT_NAMES[summary.format];
    } else if (checked.kind === "COVERAGE") {
      const decoded = await collectDecodedText(text());
      const report = validateCoverage(
        decoded.text,
        checked.languageKey as string,
        checked.placement,
        checked.goModules,
      );
      format = COVERAGE_FORMAT_NAMES[report.format];
      const latin1 = latin1Warning(decoded.latin1Lines);
      warnings = [
        ...coveragePlacementWarnings(report, checked.placement.root, rootField(checked.placement)),
        ...(latin1 === null ? [] : [latin1]),
      ];
    } else if (checked.kind === "SBOM") {
      ({ format, warnings } = await validateSbom(text(), checked.sbomStandard, checked.placement));
    } else {
      const changes = await collectText(text());
      validateChanges(changes, upload.workDir);
      if (checked.renamesBaseOid !== null && parseRenamedFiles(changes, upload.workDir).size === 0) {
        throw new UploadError(
          "INVALID_REPORT",
          'the changes are sent for their renamed files (renamesBaseOid) but name none: send a diff of git diff --find-renames, whose "rename from" and "rename to" lines name them',
        );
      }
      format = changesFormatName(changes);
    }
  } catch (error) {
    const problem = invalidReportMessage(error);
    if (problem === undefined) throw error;
    const head = await reportHead(bytes, upload.compression, config.artifactMaxBytes, SNIFF_HEAD_BYTES).catch(
      () => "",
    );
    // ShellCheck's diff output is a unified diff, but under ShellCheck it was meant as findings.
    const notRead = error instanceof ShellcheckFormatError && error.problem === "NOT_READ";
    const wrong = notRead ? undefined : wrongFormatMessage(checked.kind, sniffFormat(head));
    throw new UploadError(wrong === undefined ? "INVALID_REPORT" : "WRONG_FORMAT", wrong ?? problem);
  }
  return { sha256: hash.digest(), format, reportBytes, warnings };
}

function unknownAnalyzer(shortcode: string): UploadError {
  return new UploadError(
    "UNKNOWN_ANALYZER",
    `analyzer "${shortcode.slice(0, 80)}" is not in the catalog; a community analyzer's upload needs analyzerType "community"`,
  );
}

/**
 * The analyzer an upload names: the catalog's, or for a community upload a COMMUNITY analyzer
 * made on first use. Throws UNKNOWN_ANALYZER otherwise.
 */
async function analyzerOf(tx: Kysely<Database>, checked: CheckedUpload): Promise<AnalyzerRow> {
  const found = await findAnalyzerByShortcode(tx, checked.analyzer);
  if (found) return found;
  if (!checked.community) throw unknownAnalyzer(checked.analyzer);
  await insertAnalyzerIfAbsent(tx, {
    key: catalogKey(`analyzer:${checked.analyzer}`),
    shortcode: checked.analyzer,
    name: checked.analyzer,
    description: `Community analyzer ${checked.analyzer}, reported as SARIF.`,
    type: "COMMUNITY",
  });
  const inserted = await findAnalyzerByShortcode(tx, checked.analyzer);
  if (!inserted) throw new Error(`the analyzer "${checked.analyzer}" was not stored`);
  return inserted;
}

/** Validates, stores and queues one upload; throws {@link UploadError} for anything the uploader can fix. */
export async function acceptUpload(
  db: Kysely<Database>,
  config: Config,
  logger: Logger,
  repository: RepositoryRow,
  upload: ArtifactUpload,
): Promise<UploadAccepted> {
  const checked = checkUpload(repository, upload);
  // A catalog analyzer is checked before the (possibly long) validation, so a typo is answered at once.
  if (checked.kind === "SARIF" && !checked.community) {
    const known = await findAnalyzerByShortcode(db, checked.analyzer);
    if (!known) throw unknownAnalyzer(checked.analyzer);
  }
  // An empty report is refused before decoding; ShellCheck's -f quiet is said as such.
  const quiet =
    checked.kind === "SARIF" && upload.data.length === 0 ? emptyReportRefusal(checked.analyzer) : null;
  if (quiet !== null) throw new UploadError("INVALID_REPORT", `the report is not read: ${quiet}`);
  const bytes = decodeUploadData(upload.data, upload.compression);
  const report = await validateReport(bytes, upload, checked, config);
  const stored = await storedForm(bytes, upload.compression);

  const accepted = await db.transaction().execute(async (tx) => {
    // FOR NO KEY UPDATE serialises uploads to one repository without blocking what references it:
    // processing holds a run's lock while it inserts rows whose foreign key takes KEY SHARE on
    // this row, and this transaction may then wait for that run (FOR UPDATE made the two deadlock).
    const locked = await lockRepositoryNoKeyUpdate(tx, repository.id);
    if (!locked) throw new UploadError("INVALID_DSN", "the repository no longer exists");
    const account = await findAccountById(tx, locked.account_id);
    const analyzer = checked.kind === "CHANGES" ? null : await analyzerOf(tx, checked);
    const opened = await openRun(tx, locked, account, {
      commitOid: checked.commitOid,
      branch: checked.branch,
      pullRequestNumber: checked.pullRequestNumber,
      baseBranch: checked.baseBranch,
      mergeBaseOid: checked.mergeBaseOid,
      ancestorOids: checked.ancestorOids,
      timeoutSeconds: config.artifactTimeoutSeconds,
      config: checked.config?.json ?? null,
    });
    const { run } = opened;
    // The run before its check (docs/ingestion.md "Lock order"): processing holds the run's lock
    // and then writes its check, so reopening the check first and then waiting for the run (the
    // artifact's foreign key) deadlocked with it.
    await lockRunNoKeyUpdate(tx, run.id);
    const configWarnings = checked.config
      ? await adoptUploadedConfig(
          tx,
          locked,
          opened,
          checked.config,
          checked.kind === "SARIF" ? checked.analyzer : null,
        )
      : [];
    if (checked.lockfilePaths !== null) await adoptLockfilePaths(tx, run, checked.lockfilePaths);

    const duplicate = await findDuplicateArtifact(tx, {
      runId: run.id,
      analyzer: checked.analyzer,
      languageKey: checked.languageKey,
      sha256: report.sha256,
      renamesBaseOid: checked.renamesBaseOid,
      ...(checked.repositoryRoot === null
        ? {}
        : { placed: { workDir: checked.workDir, repositoryRoot: checked.repositoryRoot } }),
    });
    if (duplicate) {
      return { run, login: account.login, artifactKey: duplicate.key, duplicate: true, configWarnings };
    }

    const check = analyzer ? await openCheck(tx, run, analyzer) : null;
    const artifact = await insertArtifact(tx, {
      key: newRowKey(),
      repository_id: locked.id,
      run_id: run.id,
      check_id: check?.id ?? null,
      kind: checked.kind,
      analyzer: checked.analyzer,
      analyzer_type: upload.analyzerType?.trim() || null,
      language_key: checked.languageKey,
      reporter: upload.reporter.trim().slice(0, 100) || "unknown",
      reporter_version: upload.reporterVersion?.trim().slice(0, 100) || null,
      work_dir: checked.workDir,
      repository_root: checked.repositoryRoot,
      renames_base_oid: checked.renamesBaseOid,
      go_modules: checked.goModules === null ? null : JSON.stringify(checked.goModules),
      compression: stored.compression,
      stored_bytes: stored.bytes.length,
      report_bytes: report.reportBytes,
      format: report.format,
      content_sha256: report.sha256,
      uploaded_by: upload.uploadedBy,
    });
    await storeArtifactBytes(tx, artifact.id, stored.bytes);
    await enqueueJob(tx, {
      kind: PROCESS_JOB_KIND,
      payload: { artifactId: artifact.id },
      dedupeKey: `${PROCESS_JOB_KIND}:${artifact.id}`,
    });
    // A finished run that gets a new artifact is PENDING again until it is processed.
    const settled = await settleRun(tx, run.id, check?.id ?? null);
    return {
      run: settled,
      login: account.login,
      artifactKey: artifact.key,
      duplicate: false,
      configWarnings,
    };
  });

  logger.info(
    {
      repository: repository.key,
      run: accepted.run.key,
      artifact: accepted.artifactKey,
      analyzer: checked.analyzer,
      bytes: bytes.length,
      duplicate: accepted.duplicate,
    },
    "artifact accepted",
  );
  // The contract's sentence stays first, unchanged: clients of the contract's CLI may match it.
  const uploaded = `Artifact successfully uploaded for repository ${accepted.login}/${repository.name} on commit ${checked.commitOid}.`;
  const warnings = [...report.warnings, ...accepted.configWarnings];
  return {
    message: [uploaded, ...warnings].join(" "),
    warnings,
    artifactKey: accepted.artifactKey,
    runKey: accepted.run.key,
    runUid: accepted.run.run_uid,
    duplicate: accepted.duplicate,
  };
}
