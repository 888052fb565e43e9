import type { Kysely } from "kysely";
import type { Database, IssueCategory, IssueSeverity } from "../../db/types.ts";
import { findEslintRules } from "../../formats/eslint/metadata.ts";
import { readFindings } from "../../formats/findings.ts";
import { rootField, storedPlacement } from "../../formats/report-placement.ts";
import { severityOfResult } from "../../formats/sarif/mapping.ts";
import type { SarifLocation, SarifResult, SarifTool } from "../../formats/sarif/types.ts";
import { plainMessage } from "../../formats/sarif/values.ts";
import { findWorkingDirectories } from "../../formats/sarif/working-directories.ts";
import { replaceUnstorableText } from "../../graphql/variables.ts";
import { deleteArtifactAnalyzedPaths } from "../../modules/artifacts/artifact-analyzed-path-store.ts";
import { publishArtifact } from "../../modules/artifacts/artifact-store.ts";
import { findFingerprintVersions, lockBaseCheckId } from "../../modules/checks/check-store.ts";
import {
  analyzeOccurrencesUnlessPlanned,
  deleteOccurrenceBatchOfArtifact,
  deleteOccurrencesOfIssuesOfArtifact,
} from "../../modules/checks/occurrence-write-store.ts";
import { findRunById } from "../../modules/runs/run-store.ts";
import { PRIORITY_OF_SEVERITY } from "../../modules/settings/settings-service.ts";
import {
  findUnreportedIssueCategories,
  findUnreportedIssuePriorities,
} from "../../modules/settings/settings-store.ts";
import {
  loadSuppressionRules,
  type SuppressionRules,
  suppressionOf,
} from "../../modules/settings/suppression-rules.ts";
import type { RenamedFiles } from "../changes.ts";
import {
  FINGERPRINT_VERSION,
  FingerprintSequence,
  type FingerprintVersion,
  fingerprintContext,
  fingerprintVersionOf,
} from "../fingerprint.ts";
import { applyingConfigOf, PathPatterns } from "../path-patterns.ts";
import { adoptDeferredRenames } from "../run-renames.ts";
import { outsidePathOf, placementOf, quotedResult, ToolErrors } from "../sarif-validate.ts";
import {
  type ProcessInput,
  type ProcessResult,
  type ProcessStep,
  ProcessTally,
  type PublishStep,
} from "../types.ts";
import { AlreadyReported, leaveOutAtPublication, readCheckAsStaged } from "./already-reported.ts";
import { AnalyzedFiles } from "./analyzed-files.ts";
import { findingsWorthReading } from "./finding-pages.ts";
import { compareWithBase, readBase, settleFindingStates } from "./finding-states.ts";
import { findAnalyzer, IssueCatalog, type IssueRef } from "./issue-catalog.ts";
import { OCCURRENCE_BATCH_SIZE, type OccurrenceRow, OccurrenceWriter } from "./occurrence-writer.ts";

/**
 * Turns a stored SARIF artifact into catalog issues and occurrences of its check (docs/ingestion.md
 * "Processing in steps"): the rows are written in short steps while the artifact is QUEUED, which
 * every read leaves out, then published in one transaction. The report is read as a stream;
 * memory holds the issue of each rule, one fingerprint per distinct finding (for the ordinals, and
 * the repeats' own), the batches of rows in flight and the one being filled, a batch of the
 * files the tool analyzed, and the ids of the base's findings the report lacks, up to a bound.
 */

/** Longer messages are cut here (and end with "…"), so one row stays small. */
export const MAX_TITLE_LENGTH = 4000;

/** PostgreSQL's `integer`, the type of the line and column columns. */
const MAX_INTEGER = 2_147_483_647;

/** Tuning for benchmarks and tests; production uses the defaults. */
export interface ProcessSarifOptions {
  batchSize?: number;
  /** How many base findings the report lacks may be remembered until publication. */
  rememberedMissing?: number;
  /** How many base findings may be read into memory before the report's rows are judged against them. */
  rememberedBase?: number;
  /** How many of the check's own findings may be read into memory before the report's rows are left out against them. */
  rememberedHeld?: number;
  /** Batches written at once, each in a step of its own (steps must then be transactions of their own). */
  inFlight?: number;
  /**
   * Refresh the occurrences table's statistics once the report has written at least this many
   * findings (default {@link ANALYZE_AFTER_FINDINGS}; 0 after any report), when the planner takes
   * the check for fewer than half the findings it now holds.
   */
  analyzeAfter?: number;
}

/**
 * A report of this many findings refreshes the table's statistics before the check is compared
 * with its base and published, unless they already count the check at half what it now holds
 * (`analyzeOccurrencesUnlessPlanned`: a shard into a large check). Until statistics know a
 * check, PostgreSQL takes it for as few rows as the table's average check, and a lookup of one of
 * its fingerprints (the next report's base probe, the RESOLVED copies' test) may then walk the
 * whole check through another of its indexes for every finding: quadratic in a large report
 * (docs/benchmarks.md "The base looked up by two fingerprints"). Autovacuum only analyses after a
 * tenth of the table changed, and not at once.
 */
export const ANALYZE_AFTER_FINDINGS = 1000;

/** Which issue categories and priorities the repository does not report (`isReported: false`). */
class ReportingSettings {
  constructor(
    private readonly hiddenCategories: ReadonlySet<string>,
    private readonly hiddenPriorities: ReadonlySet<string>,
  ) {}

  /** True when findings of this category and severity (the finding's own) are stored. */
  reports(category: IssueCategory, severity: IssueSeverity): boolean {
    return !this.hiddenCategories.has(category) && !this.hiddenPriorities.has(PRIORITY_OF_SEVERITY[severity]);
  }

  /** True when no finding of this category is stored, whatever its severity. */
  hides(category: IssueCategory): boolean {
    return this.hiddenCategories.has(category);
  }
}

async function loadReportingSettings(tx: Kysely<Database>, repositoryId: string): Promise<ReportingSettings> {
  const [categories, priorities] = await Promise.all([
    findUnreportedIssueCategories(tx, repositoryId),
    findUnreportedIssuePriorities(tx, repositoryId),
  ]);
  return new ReportingSettings(new Set(categories), new Set(priorities));
}

/** Text PostgreSQL can store: without NUL characters. */
function withoutNul(text: string): string {
  return text.includes("\0") ? text.replaceAll("\0", "") : text;
}

/** A message as an occurrence title: storable, at most {@link MAX_TITLE_LENGTH} characters. */
function titleText(message: string): string {
  const text = withoutNul(message);
  return text.length > MAX_TITLE_LENGTH ? `${text.slice(0, MAX_TITLE_LENGTH - 1)}…` : text;
}

function clampInteger(value: number): number {
  return Math.min(value, MAX_INTEGER);
}

/** What one processing pass shares while it reads the report. */
interface ResultContext {
  analyzer: string;
  catalog: IssueCatalog;
  suppression: SuppressionRules;
  fingerprints: FingerprintSequence;
  /** The files the run's changes renamed, new path to old (docs/ingestion.md "Renamed files"). */
  renamedFiles: RenamedFiles;
  /** The files renamed against a commit that is not the run's base yet, new path to old. */
  deferredRenames: RenamedFiles;
  /** How the check's findings are hashed (`checks.fingerprint_version`). */
  version: FingerprintVersion;
  /** How the base check's findings were hashed; the check's own version without a base. */
  baseVersion: FingerprintVersion;
}

/** The row `result` becomes at `location`, as a finding of `issue` with its own `severity`. */
function occurrenceOf(
  result: SarifResult,
  location: SarifLocation & { path: string },
  issue: IssueRef,
  severity: IssueSeverity,
  context: ResultContext,
): OccurrenceRow {
  const path = withoutNul(location.path);
  const region = location.region;
  const beginLine = clampInteger(region?.startLine ?? 1);
  const beginColumn = clampInteger(region?.startColumn ?? 1);
  // Links rendered as their text for the reader; the fingerprint keeps the message as written.
  const title = plainMessage(result.message) || result.rule?.shortDescription || result.ruleId;
  const identity = {
    analyzer: context.analyzer,
    ruleId: result.ruleId,
    path,
    context: fingerprintContext(result, region?.snippet, context.version),
  };
  // The finding as the base check knows it: at a renamed file's old path, hashed in the base's version.
  const formerPath = context.renamedFiles.get(path);
  const otherVersion = context.baseVersion !== context.version;
  const former =
    formerPath === undefined && !otherVersion
      ? undefined
      : {
          ...identity,
          path: formerPath ?? path,
          context: otherVersion
            ? fingerprintContext(result, region?.snippet, context.baseVersion)
            : identity.context,
        };
  const fingerprints = context.fingerprints.nextWithFormer(identity, former);
  // Its fingerprint at the old path of a rename whose commit the run may be compared with later.
  const deferredPath = context.deferredRenames.get(path);
  const deferred =
    deferredPath === undefined
      ? null
      : context.fingerprints.nextDeferred({ ...identity, path: deferredPath });
  return {
    issueId: issue.id,
    path,
    beginLine,
    beginColumn,
    endLine: clampInteger(region?.endLine ?? beginLine),
    endColumn: clampInteger(region?.endColumn ?? beginColumn),
    title: titleText(title),
    fingerprint: fingerprints.fingerprint,
    formerFingerprint: fingerprints.former,
    deferredFormerFingerprint: deferred,
    isSuppressed:
      result.isSuppressed || suppressionOf(context.suppression, { issueId: issue.id, path }) !== null,
    severity,
  };
}

/** Processes a SARIF artifact in one transaction, `input.tx`: {@link stageSarif}, then its publication. */
export async function processSarif(
  input: ProcessInput,
  options: ProcessSarifOptions = {},
): Promise<ProcessResult> {
  const publish = await stageSarif(input, (work) => work(input.tx), options);
  return publish(input.tx);
}

/**
 * Deletes the rows staged for an artifact (by an earlier attempt, or before it fails): its
 * occurrences, a batch per step, and the files it analyzed.
 */
export async function deleteStagedRows(
  artifactId: string,
  step: ProcessStep,
  batchSize = OCCURRENCE_BATCH_SIZE,
): Promise<void> {
  while ((await step((tx) => deleteOccurrenceBatchOfArtifact(tx, artifactId, batchSize))) === batchSize) {
    // Another batch may be left.
  }
  await step((tx) => deleteArtifactAnalyzedPaths(tx, artifactId));
}

/**
 * Stages a SARIF artifact's occurrences (docs/ingestion.md "Processing in steps"): deletes what an
 * earlier attempt wrote, files the rules as issues, and writes each result that belongs in the
 * repository with its fingerprint, suppression and state against the base check, a batch per
 * `step`, then reads the base check for the findings the report lacks, a page per step.
 * Statements outside the steps (the catalog, the settings) go through `input.tx`. While the
 * artifact is QUEUED no read shows these rows.
 *
 * A result whose finding another published artifact of the check already holds (the same
 * fingerprint) is not written (docs/ingestion.md "The same findings reported twice"), nor one in a
 * file the configuration's `exclude_patterns` match, the run's configuration else the
 * repository's (docs/ingestion.md "The repository's configuration"), compiled once here with its
 * `test_patterns`, which TEST_PATTERN ignore rules without a glob read.
 *
 * Answers the publication, to run in the transaction that ends processing: it leaves out the rows
 * whose finding an artifact of the check published meanwhile holds, marks the artifact PROCESSED,
 * which shows the rows to every read at once, grades the rules its results leveled, and sets the
 * states of all the check's findings against the base check (a check may hold several
 * artifacts). Its result: results `read`, `stored` and `skipped` by reason (a warning names the
 * first path outside the repository, the first excluded file and its pattern, and each artifact
 * holding findings left out as `ALREADY_REPORTED`); counts: `suppressed` among the stored, `rules`
 * met, and `introduced`, `existing` and `resolved`, the whole check's.
 */
export async function stageSarif(
  input: ProcessInput,
  step: ProcessStep,
  options: ProcessSarifOptions = {},
): Promise<PublishStep> {
  const { tx, artifact, repository, run, check } = input;
  if (check === null) throw new Error(`The SARIF artifact ${artifact.key} has no check.`);
  const batchSize = options.batchSize ?? OCCURRENCE_BATCH_SIZE;
  await deleteStagedRows(artifact.id, step, batchSize);
  const analyzer = await findAnalyzer(tx, artifact.analyzer);
  const catalog = new IssueCatalog(tx, analyzer, repository.account_id);
  const reporting = await loadReportingSettings(tx, repository.id);
  const tools = new Map<number, SarifTool>();
  const config = applyingConfigOf(run, repository);
  const exclude = PathPatterns.of(config.config, "exclude_patterns");
  const tests = PathPatterns.of(config.config, "test_patterns");
  // The check's findings are hashed as its others were; the base's version names their former ones.
  const versions = await findFingerprintVersions(
    tx,
    input.baseCheckId === null ? [check.id] : [check.id, input.baseCheckId],
  );
  const version = fingerprintVersionOf(versions.get(String(check.id)) ?? FINGERPRINT_VERSION);
  const renames = input.renamedFiles
    ? await input.renamedFiles()
    : { files: new Map(), deferred: new Map(), warning: null };
  const context: ResultContext = {
    analyzer: artifact.analyzer,
    catalog,
    suppression: await loadSuppressionRules(
      tx,
      repository.id,
      run.created_at,
      (path) => tests.matching(path) !== null,
    ),
    fingerprints: new FingerprintSequence(),
    renamedFiles: renames.files,
    deferredRenames: renames.deferred,
    version,
    baseVersion: fingerprintVersionOf(
      (input.baseCheckId === null ? undefined : versions.get(String(input.baseCheckId))) ?? version,
    ),
  };
  // Both read before any row is written: every row is judged against these readings, which the
  // publication compares with the check's and the base's artifacts then.
  const worthReading = findingsWorthReading(artifact.report_bytes);
  const staged = await readCheckAsStaged(step, check.id, artifact.id, {
    pageSize: batchSize,
    remembered: options.rememberedHeld,
    worthReading,
  });
  // The base's findings a report lacks are looked for only when its check showed none (they
  // become its RESOLVED copies): that takes a reading of the whole base anyway.
  const base = await readBase(step, input.baseCheckId, {
    pageSize: batchSize,
    remembered: options.rememberedBase,
    worthReading: staged.holds > 0 ? worthReading : undefined,
  });
  const target = {
    checkId: check.id,
    artifactId: artifact.id,
    baseCheckId: input.baseCheckId,
    checkHoldsFindings: staged.held === null,
  };
  const reported = new AlreadyReported();
  const writer = new OccurrenceWriter(step, target, {
    batchSize,
    reported,
    maxInFlight: options.inFlight,
    base: base.findings,
    held: staged.held,
  });
  const tally = new ProcessTally();
  let firstExcluded: { path: string; pattern: string } | null = null;
  let suppressed = 0;
  let firstOutside: string | null = null;
  let firstNoLocation: string | null = null;
  const placement = storedPlacement(artifact.work_dir, artifact.repository_root);
  const toolErrors = new ToolErrors();
  // The files the report gave a finding in, whatever becomes of it, or lists: what the tool analyzed.
  const analyzed = new AnalyzedFiles(artifact.id, batchSize);
  try {
    // The stored report is read again: a run's working directory may come after its results, and
    // so do the rules ESLint's json-with-metadata describes, which classify their findings.
    const workingDirectories = await findWorkingDirectories(input.text, placement.root);
    const eslintRules = await findEslintRules(input.text);
    const readOptions = {
      workDir: placement.root,
      directory: placement.directory,
      workingDirectories,
      eslintRules,
      analyzer: artifact.analyzer,
      listedFiles: true,
    };
    for await (const event of readFindings(input.text(), readOptions)) {
      if (event.type === "run") {
        tools.set(event.run.index, event.run.tool);
        await catalog.describe(event.run.tool);
        continue;
      }
      if (event.type === "toolError") {
        toolErrors.add(event.error);
        analyzed.nameUnanalyzed(event.error);
        continue;
      }
      if (event.type === "toolNotice") {
        analyzed.name(event.notice.path);
        continue;
      }
      if (event.type === "listedFile") {
        if (analyzed.add(event.file.path)) await analyzed.write(step);
        continue;
      }
      const result = event.result;
      if (result.repeatOf !== undefined) {
        tally.skip("REPEATED");
        continue;
      }
      const location = placementOf(result);
      if (typeof location === "string") {
        tally.skip(location);
        if (location === "OUTSIDE_REPOSITORY") firstOutside ??= outsidePathOf(result);
        if (location === "NO_LOCATION") firstNoLocation ??= quotedResult(result);
        continue;
      }
      if (analyzed.add(location.path)) await analyzed.write(step);
      const pattern = exclude.isEmpty ? null : exclude.matching(location.path);
      if (pattern !== null) {
        tally.skip("EXCLUDED");
        firstExcluded ??= { path: location.path, pattern };
        continue;
      }
      // A result always follows its run's header, which set its tool.
      const tool = tools.get(result.runIndex)!;
      // Known rules need no query: the common path stays synchronous.
      const issue = catalog.known(result.ruleId) ?? (await catalog.issueFor(result, tool));
      catalog.observe(result);
      const severity = severityOfResult(tool, result);
      // A rule graded by its findings' levels may change category at publication: its findings are
      // kept while any category it can end in is reported, and judged again then.
      const categories = catalog.possibleCategories(result.ruleId, issue.category);
      if (!categories.some((category) => reporting.reports(category, severity))) {
        tally.skip("NOT_REPORTED");
        continue;
      }
      const row = occurrenceOf(result, location, issue, severity, context);
      tally.store();
      if (row.isSuppressed) suppressed += 1;
      if (writer.add(row)) await writer.send();
    }
    await writer.finish();
    await analyzed.write(step);
  } catch (error) {
    // A statement still in flight must end before the caller rolls the transaction back.
    await writer.settle();
    throw error;
  }
  if (tally.stored >= (options.analyzeAfter ?? ANALYZE_AFTER_FINDINGS))
    await step((tx) => analyzeOccurrencesUnlessPlanned(tx, check.id, staged.holds + tally.stored));
  const comparison = await compareWithBase(
    step,
    artifact.id,
    base,
    (fingerprint) => context.fingerprints.has(fingerprint),
    { pageSize: batchSize, remembered: options.rememberedMissing, checkHeld: staged.holds > 0 },
  );
  if (firstOutside !== null)
    tally.warn(
      outsideWarning(
        tally.skipped.OUTSIDE_REPOSITORY ?? 0,
        firstOutside,
        placement.root,
        rootField(placement),
      ),
    );
  if (tally.skipped.NO_LOCATION)
    tally.warn(noLocationWarning(tally.skipped.NO_LOCATION, firstNoLocation ?? "?"));
  if (tally.skipped.REPEATED) tally.warn(repeatedWarning(tally.skipped.REPEATED));
  if (firstExcluded !== null) {
    tally.warn(excludedWarning(tally.skipped.EXCLUDED ?? 0, firstExcluded, config.whose));
  }
  const refusedWarning = refusedPatternsWarning(exclude, "exclude", config.whose);
  if (refusedWarning !== null) tally.warn(refusedWarning);
  const testsWarning = testPatternsWarning(context.suppression.rulesOnTestPatterns, tests, config.whose);
  if (testsWarning !== null) tally.warn(testsWarning);
  for (const warning of toolErrors.warnings()) tally.warn(warning);
  if (renames.warning !== null) tally.warn(renames.warning);
  return async (publishTx) => {
    const leftOut = reported.with(await leaveOutAtPublication(publishTx, check.id, artifact.id, staged));
    const shownFirst = await publishArtifact(publishTx, artifact.id);
    const graded = await catalog.gradeByObservedLevels(publishTx);
    const unreported = await deleteOccurrencesOfIssuesOfArtifact(
      publishTx,
      artifact.id,
      [...graded].filter(([, category]) => reporting.hides(category)).map(([issueId]) => issueId),
    );
    // The check's base check may not be the one staging read: a rebase (run-rebase.ts) gave the
    // run another base run, a late run's check came in between it and the check walked back to,
    // or a late artifact left it NEUTRAL or failed (docs/ingestion.md "Where a run stands in the
    // history"). The states written against the old one are then all set again. It is held until
    // this commits: a settlement leaving it inconclusive waits, then finds this check among the
    // checks compared with it (docs/ingestion.md "Lock order").
    const { base_run_id: baseRunId, base_oid: baseOid } = await findRunById(publishTx, run.id);
    let baseCheckId = input.baseCheckId;
    if (baseRunId !== null) baseCheckId = await lockBaseCheckId(publishTx, baseRunId, check.analyzer_id);
    else if (run.base_run_id !== null) baseCheckId = null;
    const rebased = String(baseCheckId) !== String(input.baseCheckId);
    // Rows staged after a rebase compared the run with the commit of a rename deferred them.
    if (rebased && renames.deferred.size > 0)
      await adoptDeferredRenames(publishTx, { id: run.id, base_oid: baseOid });
    const unanalyzedPaths = toolErrors.unanalyzedPaths();
    await analyzed.publish(publishTx);
    const { carried, ...states } = await settleFindingStates(
      publishTx,
      check.id,
      baseCheckId,
      rebased ? undefined : comparison,
      { artifactId: artifact.id, unanalyzedPaths, shownFirst },
    );
    const final = tally.copy();
    final.unstore("ALREADY_REPORTED", leftOut.findings);
    final.unstore("NOT_REPORTED", unreported.findings);
    for (const warning of leftOut.warnings()) final.warn(warning);
    return final.result(
      {
        suppressed: suppressed - leftOut.suppressed - unreported.suppressed,
        rules: catalog.size,
        ...(toolErrors.unanalyzed > 0 ? { unanalyzed: toolErrors.unanalyzed } : {}),
        ...states,
        ...(carried > 0 ? { carried } : {}),
      },
      unanalyzedPaths ?? undefined,
    );
  };
}

/** The sentence telling the uploader that results were left out for their paths, and what to do. */
function outsideWarning(
  count: number,
  example: string,
  workDir: string | null,
  field: "workDir" | "repositoryRoot",
): string {
  const what = `${count} result(s) lie outside the repository and were not stored (first: ${example})`;
  return workDir === null
    ? `${what}; absolute paths are made relative to the upload's workDir, and this upload gave none.`
    : `${what}; paths are made relative to the upload's ${field} "${workDir}".`;
}

/** The sentence telling the uploader that results in excluded files were left out, and why. */
function excludedWarning(
  count: number,
  first: { path: string; pattern: string },
  whose: "run" | "repository",
): string {
  return `${count} result(s) lie in files the ${whose}'s .deepsource.toml excludes (exclude_patterns) and were not stored (first: ${withoutNul(first.path)}, excluded by ${JSON.stringify(first.pattern)}).`;
}

/** The sentence naming patterns the matcher cannot read (they match nothing), or null. */
function refusedPatternsWarning(
  patterns: PathPatterns,
  kind: "exclude" | "test",
  whose: "run" | "repository",
): string | null {
  const first = patterns.refused[0];
  if (first === undefined) return null;
  const pattern = replaceUnstorableText(first.pattern.slice(0, 200));
  const effect = kind === "exclude" ? "which exclude nothing" : "which name no test file";
  return `The ${whose}'s .deepsource.toml has ${patterns.refused.length} ${kind} pattern(s) Assay cannot read, ${effect} (first: ${JSON.stringify(pattern)}, which ${first.problem}).`;
}

/**
 * The sentence telling the uploader that TEST_PATTERN ignore rules found no test_patterns to read,
 * or could not read some, or null when no rule reads them or all were read.
 */
function testPatternsWarning(rules: number, tests: PathPatterns, whose: "run" | "repository"): string | null {
  if (rules === 0) return null;
  if (tests.isEmpty && tests.refused.length === 0) {
    return `${rules} TEST_PATTERN ignore rule(s) ignore their issue in test files, but the ${whose}'s .deepsource.toml names none (no test_patterns), so they ignored nothing.`;
  }
  return refusedPatternsWarning(tests, "test", whose);
}

/** The sentence telling the uploader that diagnostics the report repeats were counted once. */
function repeatedWarning(count: number): string {
  return `${count} diagnostic(s) repeat one given earlier in the report (the same rule, message, file, line and column, as GCC prints a header's warning for each file that includes it) and were counted once.`;
}

/** The sentence telling the uploader that results without a file were left out, quoting the first. */
function noLocationWarning(count: number, first: string): string {
  return `${count} result(s) name no file (no location, or only logical ones) and were not stored (first: ${first}).`;
}
