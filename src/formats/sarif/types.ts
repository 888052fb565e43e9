/**
 * The shapes the streaming SARIF 2.1.0 reader (reader.ts) yields: only the parts of a SARIF log
 * that ingestion uses, already validated and with artifact paths made repository-relative.
 * Spec: https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
 */

/** A result's or rule's `level` (SARIF §3.27.10). */
export type SarifLevel = "error" | "warning" | "note" | "none";

/** A result's `kind` (SARIF §3.27.9): only `fail` means a problem; `pass` and `notApplicable` say a check held. */
export type SarifKind = "fail" | "pass" | "notApplicable" | "review" | "open" | "informational";

/**
 * The parts of a rule's or result's property bag (`properties`, SARIF §3.8) that classification
 * reads. The names are conventions of the tools, not of SARIF: `tags` and the dotted names are
 * GitHub code scanning's, `category` is oxlint's and ESLint's formatter's.
 */
export interface SarifProperties {
  /** `tags`, as the tool wrote them. */
  tags: string[];
  /** `security-severity`, a CVSS-like score 0.0-10.0, when present and numeric. */
  securitySeverity: number | null;
  /** `precision` (`very-high`, `high`, `medium`, `low`). */
  precision: string | null;
  /** `problem.severity` (`error`, `warning`, `recommendation`). */
  problemSeverity: string | null;
  /** The bag's other string values by name, e.g. `category` (oxlint) or `issue_severity` (Bandit). */
  strings: Record<string, string>;
}

/**
 * A reference to a taxon (SARIF §3.52.3 `relationships[].target` of a rule, §3.27.8 `taxa` of a
 * result): the taxon's id and, when the reference names it, its taxonomy (`toolComponent.name`).
 */
export interface SarifTaxonRef {
  id: string;
  taxonomy: string | null;
}

/** A rule (`reportingDescriptor`, SARIF §3.49) of the run's tool: of its driver or of an extension. */
export interface SarifRule {
  /** The rule's stable id (`id`), e.g. `no-unused-vars` or `js/xss`. */
  id: string;
  /** Its position in its component's `rules`, which results may refer to by `ruleIndex`. */
  index: number;
  name: string | null;
  shortDescription: string | null;
  /** `fullDescription.text`, else `help.text`. */
  fullDescription: string | null;
  /** `help.markdown`, else `help.text`. */
  help: string | null;
  helpUri: string | null;
  /** `defaultConfiguration.level`; null when the rule does not say (SARIF then means `warning`). */
  defaultLevel: SarifLevel | null;
  properties: SarifProperties;
  /** The targets of the rule's `relationships` (CWE entries, for instance). */
  taxa: SarifTaxonRef[];
  /** `messageStrings`: templates a result's `message.id` refers to. */
  messageStrings: Record<string, string>;
}

/**
 * The analysis tool of one run (`tool`, SARIF §3.18-3.19): its driver's name, version and rules,
 * and the rules of its extensions (`tool.extensions`, plug-ins such as CodeQL's query packs),
 * which a result names through `rule.toolComponent`.
 */
export interface SarifTool {
  name: string;
  version: string | null;
  informationUri: string | null;
  rules: SarifRule[];
  extensions: SarifToolExtension[];
}

/** One of `tool.extensions`: a component that brings rules of its own. */
export interface SarifToolExtension {
  name: string;
  rules: SarifRule[];
}

/** One run's header, yielded before its results. */
export interface SarifRun {
  /** The run's position in `runs`. */
  index: number;
  tool: SarifTool;
}

/** A text region (SARIF §3.30); lines and columns are 1-based as in SARIF. */
export interface SarifRegion {
  startLine: number;
  startColumn: number | null;
  endLine: number;
  endColumn: number | null;
  /** `snippet.text`, when the tool included the source text. */
  snippet: string | null;
}

/** A location of a result (SARIF §3.28), with the artifact's path made repository-relative. */
export interface SarifLocation {
  /**
   * The path relative to the repository root, `/`-separated and percent-decoded; for a location
   * outside the repository, the resolved absolute (or `../`-leading) path; null when the location
   * has no artifact.
   */
  path: string | null;
  /** True when the artifact lies outside the repository root (see paths.ts). */
  outsideRepository: boolean;
  /** The artifact URI as written, and its `uriBaseId`. */
  uri: string | null;
  uriBaseId: string | null;
  /** Null when the location has no region (a finding about the whole file). */
  region: SarifRegion | null;
  /** The location's own message (mostly on related locations). */
  message: string | null;
  /** The location's `id`, which `[text](id)` links in messages refer to. */
  id: number | null;
}

/** One suppression of a result (SARIF §3.35). */
export interface SarifSuppression {
  kind: "inSource" | "external";
  status: "accepted" | "underReview" | "rejected" | null;
  justification: string | null;
}

/** One result (SARIF §3.27), in stream order, after the header of the run it belongs to. */
export interface SarifResult {
  runIndex: number;
  /** The result's position in its run's `results`. */
  index: number;
  ruleId: string;
  /** The driver's rule the result refers to; null when the driver does not describe it. */
  rule: SarifRule | null;
  /** The result's level, else the rule's default level, else `warning` (`none` when `kind` is not `fail`). */
  level: SarifLevel;
  /** The result's own `level`; null when it wrote none (then `level` is inferred). */
  ownLevel: SarifLevel | null;
  /** `kind`, `fail` when absent. */
  kind: SarifKind;
  /** The result's own property bag (empty values when it has none). */
  properties: SarifProperties;
  /** The result's `taxa`. */
  taxa: SarifTaxonRef[];
  /** `message.text`, or the rule's message string the message names, with arguments filled in. */
  message: string;
  locations: SarifLocation[];
  relatedLocations: SarifLocation[];
  suppressions: SarifSuppression[];
  /** True when some suppression is accepted (or has no status) and none is under review. */
  isSuppressed: boolean;
  baselineState: "new" | "unchanged" | "updated" | "absent" | null;
  partialFingerprints: Record<string, string>;
  fingerprints: Record<string, string>;
  /**
   * Set when the report gave this very diagnostic before (its `index` here): GCC prints a header's
   * warning again for every file that includes it (docs/ingestion-sarif.md "GCC"). Such a result
   * is not a finding of its own.
   */
  repeatOf?: number;
}

/**
 * A problem the tool reported about its own run (SARIF §3.58, an `invocation`'s
 * `toolExecutionNotifications` or `toolConfigurationNotifications`) at level `error`: a file it
 * could not parse (ESLint's "Parsing error"), a rule that crashed. Not a finding: what it names
 * was not analyzed.
 */
/** A tool error's message is kept up to this many characters, whatever format it came in. */
export const MAX_TOOL_ERROR = 2000;

export interface SarifToolError {
  runIndex: number;
  message: string;
  /** The first location's path as resolved for results (null when it names none). */
  path: string | null;
  line: number | null;
  /**
   * True for a notification about the tool's configuration rather than its execution (an
   * invocation's `toolConfigurationNotifications`, SARIF §3.20, such as ESLint's unused
   * `eslint-disable` directive): it does not say that something went unanalyzed. Absent otherwise.
   */
  configuration?: true;
  /**
   * What the error says went unanalyzed, as a repository path, when it names a place in the
   * repository: the file (a file ESLint could not parse, a file GCC could not compile), or a
   * directory written with a trailing `/` (`./` for the root) when the tool's unit is a directory
   * (a Go package that does not type-check). Absent when the error names no place, or one outside
   * the repository: the report cannot then say what it left out.
   */
  unanalyzedPath?: string;
  /**
   * Further repository files the error left unanalyzed besides `unanalyzedPath`, when the report
   * says which: for GCC, the other files its failed compilation's list names (the translation
   * unit's main file among them when a diagnostic is in it), docs/ingestion-sarif.md "GCC".
   */
  alsoUnanalyzed?: string[];
}

/**
 * A repository file a run lists among its `artifacts` (SARIF §3.14.15) as one its tool looked at:
 * an entry with no `roles`, or with the role `analysisTarget` or `resultFile` (§3.24.6), that is
 * not nested in another artifact (no `parentIndex`). ESLint's formatter lists every file ESLint
 * was given, those it linted and found nothing in among them, but also those it could not parse
 * or ignored, which a notification of the run names (docs/ingestion-sarif.md "Files a run lists").
 */
export interface SarifListedFile {
  runIndex: number;
  path: string;
}

/**
 * A notification of the run below level `error` that names a repository file and is not about
 * the tool's configuration (ESLint's "File ignored because no matching configuration was
 * supplied."): what the tool said of that file is not a finding, so listing it does not say the
 * tool analyzed it.
 */
export interface SarifToolNotice {
  runIndex: number;
  path: string;
}

/**
 * What the reader yields: each run's header, then that run's results one by one; the tool's own
 * errors wherever they come in the document. With the option `listedFiles`, also the files each
 * run lists and the notices below `error` that name a file, wherever they come.
 */
export type SarifEvent =
  | { type: "run"; run: SarifRun }
  | { type: "result"; result: SarifResult }
  | { type: "toolError"; error: SarifToolError }
  | { type: "listedFile"; file: SarifListedFile }
  | { type: "toolNotice"; notice: SarifToolNotice };

/** Which rule of the format a document broke. */
export type SarifFormatProblem =
  | "INVALID_JSON"
  | "UNSUPPORTED_VERSION"
  | "MISSING_VERSION"
  | "MISSING_RUNS"
  | "MISSING_TOOL"
  | "MISSING_RULE"
  | "INVALID_STRUCTURE";

/** A SARIF document the reader cannot accept; the message says what is wrong and where. */
export class SarifFormatError extends Error {
  override name = "SarifFormatError";
  constructor(
    readonly problem: SarifFormatProblem,
    message: string,
  ) {
    super(message);
  }
}
