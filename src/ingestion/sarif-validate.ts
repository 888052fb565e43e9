import { type FindingsFormat, readFindings } from "../formats/findings.ts";
import type { ReportPlacement } from "../formats/report-placement.ts";
import type { SarifLocation, SarifResult, SarifToolError } from "../formats/sarif/types.ts";
import { isUnstorableText, replaceUnstorableText } from "../graphql/variables.ts";
import type { SkipReason } from "./types.ts";

/**
 * Where a SARIF result goes (shared by the intake, which counts, and processing, which stores):
 * its primary location in the repository, or why it cannot be stored — it reports no problem
 * (`kind` `pass` or `notApplicable`), the tool reports it absent, it names no file, or its files
 * lie outside the repository.
 */

/** A location in the repository, with its repository-relative path. */
export type StoredLocation = SarifLocation & { path: string };

/** Why a result cannot be stored, known from the report alone (the repository's settings aside). */
export type UnplacedReason = Extract<
  SkipReason,
  "NOT_A_FAILURE" | "ABSENT" | "NO_LOCATION" | "OUTSIDE_REPOSITORY" | "UNSTORABLE_TEXT"
>;

/** True when a text `result` would store (rule id, message, paths, snippets, fingerprints) cannot be stored as sent. */
function holdsUnstorableText(result: SarifResult): boolean {
  const texts = [
    result.ruleId,
    result.message,
    ...Object.values(result.partialFingerprints),
    ...Object.values(result.fingerprints),
  ];
  for (const location of [...result.locations, ...result.relatedLocations]) {
    texts.push(
      location.uri ?? "",
      location.path ?? "",
      location.message ?? "",
      location.region?.snippet ?? "",
    );
  }
  return texts.some(isUnstorableText);
}

/**
 * Where `result` is stored: the first of its locations with a path in the repository, or why it
 * is not stored. A result that is no failure, or that the tool marks `baselineState: "absent"`,
 * is not stored wherever it is: the tool says there is no problem there.
 */
export function placementOf(result: SarifResult): StoredLocation | UnplacedReason {
  if (holdsUnstorableText(result)) return "UNSTORABLE_TEXT";
  if (result.kind === "pass" || result.kind === "notApplicable") return "NOT_A_FAILURE";
  if (result.baselineState === "absent") return "ABSENT";
  const location = result.locations.find((l) => l.path && !l.outsideRepository);
  if (location?.path) return { ...location, path: location.path };
  return result.locations.some((l) => l.path !== null) ? "OUTSIDE_REPOSITORY" : "NO_LOCATION";
}

/** The first path outside the repository a result names, as the report wrote it, for messages. */
export function outsidePathOf(result: SarifResult): string {
  const location = result.locations.find((l) => l.outsideRepository);
  return location?.uri ?? location?.path ?? "";
}

/** Longest part of a tool's own error message repeated in a warning. */
const TOOL_ERROR_MESSAGE_LENGTH = 200;

/** The first of some notifications, and how many there were. */
interface Counted {
  count: number;
  first: SarifToolError;
}

/**
 * The errors a tool reported about its own run, which are not findings, counted in two kinds with
 * the first of each kept for its warning: errors of its execution (a file it could not parse, a
 * rule that crashed), which say what was not analyzed, and errors about its configuration (an
 * unused `eslint-disable` directive), which do not.
 */
export class ToolErrors {
  private execution: Counted | null = null;
  private configuration: Counted | null = null;
  /** The repository paths the execution errors say went unanalyzed, in the order first named. */
  private readonly paths = new Set<string>();
  /** The first execution error that names no place in the repository, if one did. */
  private unplaced: SarifToolError | null = null;

  add(error: SarifToolError): void {
    const kind = error.configuration === true ? "configuration" : "execution";
    const known = this[kind];
    if (known === null) this[kind] = { count: 1, first: error };
    else known.count += 1;
    if (kind === "configuration") return;
    // A path PostgreSQL cannot store cannot be kept either: as if the error named no file.
    if (error.unanalyzedPath === undefined || isUnstorableText(error.unanalyzedPath)) this.unplaced ??= error;
    else this.addPath(error.unanalyzedPath);
    // The other files of what the error stopped (GCC's compilation). A path PostgreSQL cannot
    // store holds no stored finding to keep, so it is left out rather than making the check NEUTRAL.
    for (const path of error.alsoUnanalyzed ?? []) if (!isUnstorableText(path)) this.addPath(path);
  }

  private addPath(path: string): void {
    if (this.paths.size <= MAX_UNANALYZED_PATHS) this.paths.add(path);
  }

  /** Errors about code the tool could not analyze (not those about its configuration). */
  get unanalyzed(): number {
    return this.execution?.count ?? 0;
  }

  /**
   * The repository paths the tool could not analyze (files; a directory ends with `/`), when
   * every execution error named one and there are at most {@link MAX_UNANALYZED_PATHS}: the check
   * then keeps its base's findings there and is judged on the rest. Null when an error named no
   * place in the repository, or too many: what the report left out is then not known. Empty when
   * there was no execution error.
   */
  unanalyzedPaths(): string[] | null {
    if (this.unplaced !== null || this.paths.size > MAX_UNANALYZED_PATHS) return null;
    return [...this.paths];
  }

  /** How many there were, of both kinds. */
  get count(): number {
    return (this.execution?.count ?? 0) + (this.configuration?.count ?? 0);
  }

  /** The sentences for the upload's answer and the artifact's warnings: one per kind met. */
  warnings(): string[] {
    const sentences: string[] = [];
    if (this.execution !== null) {
      const { count, first } = this.execution;
      const errors =
        count === 1
          ? "1 error of its own, which is not a finding ("
          : `${count} errors of its own, which are not findings (first: `;
      sentences.push(
        `The tool reported ${errors}${quoted(first)}): what it could not analyze is not in this report.`,
      );
    }
    if (this.execution !== null) sentences.push(this.unanalyzedSentence());
    if (this.configuration !== null) {
      const { count, first } = this.configuration;
      const errors =
        count === 1
          ? "1 error about its configuration, which is not a finding ("
          : `${count} errors about its configuration, which are not findings (first: `;
      sentences.push(
        `The tool reported ${errors}${quoted(first)}): ${count === 1 ? "a notification" : "notifications"} about how it was set up or directed, not about code it could not analyze.`,
      );
    }
    return sentences;
  }

  /** What the check does about the code the tool could not analyze, naming it. */
  private unanalyzedSentence(): string {
    const paths = this.unanalyzedPaths();
    if (paths === null) {
      const why =
        this.unplaced === null
          ? `more than ${MAX_UNANALYZED_PATHS} files or directories`
          : this.unplaced === this.execution?.first
            ? "an error of its own names no file of the repository"
            : `an error of its own names no file of the repository: ${quoted(this.unplaced)}`;
      return `What the tool did not analyze is not known (${why}): the check is NEUTRAL, neither passing nor failing, and resolves nothing.`;
    }
    const shown = paths.slice(0, NAMED_UNANALYZED_PATHS).map((p) => replaceUnstorableText(p));
    const list =
      paths.length <= NAMED_UNANALYZED_PATHS
        ? shown.join(", ")
        : `${paths.length} paths, first: ${shown.join(", ")}`;
    return `Not analyzed by the tool: ${list}. The base's findings there are kept as EXISTING (not resolved), and the check is judged on the rest of the report.`;
  }
}

/** At most this many unanalyzed paths are kept on an artifact; more make its check NEUTRAL. */
export const MAX_UNANALYZED_PATHS = 1000;

/** How many unanalyzed paths a warning names. */
const NAMED_UNANALYZED_PATHS = 5;

/** A tool error's message in quotes, cut to a bounded length, and where it is. */
function quoted(error: SarifToolError): string {
  const path = error.path === null ? null : replaceUnstorableText(error.path);
  const where = path === null ? "" : ` at ${path}${error.line === null ? "" : `:${error.line}`}`;
  return `${quote(error.message)}${where}`;
}

/** The tool's words in quotes, cut to a bounded length. */
function quote(words: string): string {
  // They are quoted in text Assay stores: what PostgreSQL cannot store is replaced.
  const text = replaceUnstorableText(words);
  const cut =
    text.length > TOOL_ERROR_MESSAGE_LENGTH ? `${text.slice(0, TOOL_ERROR_MESSAGE_LENGTH - 1)}…` : text;
  return `"${cut}"`;
}

/**
 * A result quoted for a warning about results not stored, as a tool error is: its message, cut to
 * a bounded length, and its rule (`"Cppcheck cannot find all the include files …" of rule
 * missingIncludeSystem`).
 */
export function quotedResult(result: Pick<SarifResult, "message" | "ruleId">): string {
  return `${quote(result.message)} of rule ${quote(result.ruleId).slice(1, -1)}`;
}

/** What a valid SARIF report holds, counted while it was checked. */
export interface SarifSummary {
  /** The report's format: SARIF, or cppcheck's XML read as SARIF (src/formats/findings.ts). */
  format: FindingsFormat;
  runs: number;
  results: number;
  /** Rules the runs' drivers describe (a rule described by two runs counts twice). */
  rules: number;
  /** Results that have a place in the repository (before the repository's own settings). */
  placed: number;
  /** The other results, by reason. */
  unplaced: Partial<Record<UnplacedReason, number>>;
  /** The first path outside the repository, as written, when a result had one. */
  firstOutside: string | null;
  /** The first result that names no file, quoted ({@link quotedResult}), when there was one. */
  firstNoLocation: string | null;
  /** The tool's errors about its own run. */
  toolErrors: ToolErrors;
}

/**
 * Reads a whole findings report (SARIF, or cppcheck's XML) with the streaming reader (bounded
 * memory) so the upload intake can refuse a bad one before storing it, and counts where its
 * results would go with the upload's placement (src/formats/report-placement.ts) and the runs' `workingDirectories`
 * (`findWorkingDirectories`); `analyzer` is the shortcode it was uploaded under (readFindings'
 * option). Throws the reader's `SarifFormatError` or `CppcheckFormatError` unchanged; its message
 * names the problem and where it is.
 */
export async function validateSarif(
  text: AsyncIterable<Uint8Array>,
  placement: ReportPlacement,
  workingDirectories?: ReadonlyMap<number, string>,
  analyzer: string | null = null,
): Promise<SarifSummary> {
  const summary: SarifSummary = {
    format: "sarif",
    runs: 0,
    results: 0,
    rules: 0,
    placed: 0,
    unplaced: {},
    firstOutside: null,
    firstNoLocation: null,
    toolErrors: new ToolErrors(),
  };
  const onFormat = (format: FindingsFormat) => {
    summary.format = format;
  };
  const options = {
    workDir: placement.root,
    directory: placement.directory,
    workingDirectories,
    analyzer,
    onFormat,
  };
  for await (const event of readFindings(text, options)) {
    if (event.type === "run") {
      // A run's header may come again with the rules described after its results (ESLint's
      // json-with-metadata): runs are numbered from 0, and each header brings rules of its own.
      summary.runs = Math.max(summary.runs, event.run.index + 1);
      summary.rules += event.run.tool.rules.length;
      for (const extension of event.run.tool.extensions) summary.rules += extension.rules.length;
      continue;
    }
    if (event.type === "toolError") {
      summary.toolErrors.add(event.error);
      continue;
    }
    // Files the runs list are not asked for (`listedFiles`): they say nothing the intake counts.
    if (event.type !== "result") continue;
    summary.results += 1;
    const placement = placementOf(event.result);
    if (typeof placement !== "string") {
      summary.placed += 1;
      continue;
    }
    summary.unplaced[placement] = (summary.unplaced[placement] ?? 0) + 1;
    if (placement === "OUTSIDE_REPOSITORY") summary.firstOutside ??= outsidePathOf(event.result);
    if (placement === "NO_LOCATION") summary.firstNoLocation ??= quotedResult(event.result);
  }
  return summary;
}
