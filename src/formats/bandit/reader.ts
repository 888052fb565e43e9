import type { ParsedElementInfo } from "@streamparser/json";
import { JsonDocumentReader } from "../json-document.ts";
import { plainResult, plainRule } from "../plain-result.ts";
import { locationOfPlace } from "../sarif/paths.ts";
import type { SarifChunk } from "../sarif/reader.ts";
import {
  MAX_TOOL_ERROR,
  type SarifEvent,
  type SarifLevel,
  type SarifRule,
  type SarifTaxonRef,
  type SarifTool,
} from "../sarif/types.ts";
import { isRecord, readTextReport } from "../text-report.ts";

/**
 * Bandit's JSON report (`bandit -r src -f json`), read as a stream into the events the SARIF
 * reader yields (docs/ingestion-python.md), so that processing, classification and the upload's
 * checks are the same as for SARIF. Bandit writes SARIF itself from 1.7.8 on (read as SARIF, with
 * the same classification); Debian 12's Bandit 1.6.2 writes JSON, whose keys are sorted:
 *
 *   {"errors": [{"filename": "shop/legacy.py", "reason": "syntax error while parsing AST from file"}],
 *    "generated_at": "…", "metrics": {…per file…},
 *    "results": [{"filename": "shop/orders.py", "line_number": 33, "line_range": [33],
 *      "col_offset": 4, "end_col_offset": 60, "test_id": "B602", "test_name": "subprocess_popen_with_shell_equals_true",
 *      "issue_severity": "HIGH", "issue_confidence": "HIGH", "issue_cwe": {"id": 78, "link": "…"},
 *      "issue_text": "…", "more_info": "https://bandit.readthedocs.io/…", "code": "…"}]}
 *
 * One run (the tool `bandit`); one result per issue, its test id as the rule (`B602`), named by
 * the test's name. The severity is the level as Bandit's SARIF writes it (HIGH → error, MEDIUM →
 * warning, LOW → note); the confidence is kept as `issue_confidence` as there; `issue_cwe` (Bandit
 * 1.7.5 and later) is a CWE taxon. `errors` are the files Bandit could not analyze (a syntax
 * error): the tool's own errors, not findings. The region starts at `line_number` (and
 * `col_offset`, counted from 0, where given) and ends on the last line of `line_range` (at
 * `end_col_offset`, exclusive). `filename` is relative to the directory Bandit ran in (the
 * upload's `workDir`) or absolute. `metrics` and the code snippets are not kept.
 */

/** Which rule of the format a document broke. */
export type BanditFormatProblem = "NOT_BANDIT" | "INVALID_JSON" | "INVALID_STRUCTURE" | "INVALID_TEXT";

/** Bandit JSON the reader cannot accept; the message says what is wrong and on which line. */
export class BanditFormatError extends Error {
  override name = "BanditFormatError";
  constructor(
    readonly problem: BanditFormatProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface BanditReadOptions {
  /** The directory Bandit ran in: relative and absolute paths are resolved against it. */
  workDir: string | null;
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts): relative paths are read from it.
   */
  directory?: string | null;
}

const TOOL: SarifTool = {
  name: "bandit",
  version: null,
  informationUri: "https://bandit.readthedocs.io/",
  rules: [],
  extensions: [],
};

/** Bandit's severities, as its SARIF writer gives them levels. */
const LEVEL_OF_SEVERITY: Readonly<Record<string, SarifLevel>> = {
  HIGH: "error",
  MEDIUM: "warning",
  LOW: "note",
  UNDEFINED: "none",
};

function nonNegativeInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** An issue's `issue_cwe` (Bandit 1.7.5 and later) as a CWE taxon. */
function cweOf(issue: Record<string, unknown>): SarifTaxonRef[] {
  const id = isRecord(issue.issue_cwe) ? nonNegativeInteger(issue.issue_cwe.id) : null;
  return id === null || id === 0 ? [] : [{ id: String(id), taxonomy: "CWE" }];
}

function noResults(): BanditFormatError {
  return new BanditFormatError(
    "NOT_BANDIT",
    'it has no "results" list: Bandit\'s JSON report is an object with "results" and "errors" lists (bandit -r src -f json -o bandit.json).',
  );
}

/**
 * Reads Bandit's JSON report chunk by chunk. Yields the run first; throws
 * {@link BanditFormatError} naming the line of the first problem. Like the SARIF reader, an
 * iteration is all or nothing: a problem found late fails it after earlier results were yielded.
 */
export function readBanditJson(
  chunks: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: BanditReadOptions,
): AsyncGenerator<SarifEvent> {
  return readTextReport(
    chunks,
    new BanditReader(options.workDir, options.directory ?? null),
    () => new BanditFormatError("INVALID_TEXT", "the report is not valid UTF-8 text."),
  );
}

class BanditReader extends JsonDocumentReader {
  private readonly pathContext;
  private results = 0;
  /** Each test met, described once from its first issue. */
  private readonly rules = new Map<string, SarifRule>();

  constructor(workDir: string | null, directory: string | null) {
    super({
      paths: ["$.results.*", "$.errors.*"],
      onItem: (info, line) => this.onItem(info, line),
      invalid: (line, truncated) =>
        new BanditFormatError(
          "INVALID_JSON",
          truncated
            ? `line ${line}: the report's object is not closed: the report looks truncated.`
            : `line ${line}: not valid JSON.`,
        ),
      onTopLevel: (kind) => {
        if (kind !== "object") throw noResults();
      },
      owns: (error) => error instanceof BanditFormatError,
    });
    this.pathContext = { workDir, originalUriBaseIds: {}, workingDirectory: directory };
    this.events.push({ type: "run", run: { index: 0, tool: TOOL } });
  }

  override end(): void {
    super.end();
    if (this.members.get("results") !== "array") throw noResults();
    const errors = this.members.get("errors");
    if (errors !== undefined && errors !== "array") this.structure(this.line, '"errors" is not a list.');
  }

  private structure(line: number, message: string): never {
    throw new BanditFormatError("INVALID_STRUCTURE", `line ${line}: ${message}`);
  }

  private onItem(info: ParsedElementInfo, line: number): void {
    if (!Array.isArray(info.parent)) return;
    const list = info.stack[1]?.key;
    if (!isRecord(info.value)) this.structure(line, `an item of "${String(list)}" is not an object.`);
    if (list === "errors") this.onError(info.value, line);
    else this.onIssue(info.value, line);
  }

  /** A file Bandit could not analyze. */
  private onError(error: Record<string, unknown>, line: number): void {
    const { filename, reason } = error;
    if (typeof filename !== "string") this.structure(line, 'an error has no "filename".');
    const resolved = locationOfPlace({ file: filename, line: null, column: null }, null, this.pathContext);
    const why = typeof reason === "string" && reason !== "" ? reason : "Bandit could not analyze this file";
    this.events.push({
      type: "toolError",
      error: {
        runIndex: 0,
        message: why.slice(0, MAX_TOOL_ERROR),
        path: filename === "" ? null : resolved.outsideRepository ? filename : resolved.path,
        line: null,
        // The file Bandit skipped was not analyzed (docs/ingestion.md "Status").
        ...(filename !== "" && !resolved.outsideRepository && resolved.path
          ? { unanalyzedPath: resolved.path }
          : {}),
      },
    });
  }

  private onIssue(issue: Record<string, unknown>, line: number): void {
    const { filename, test_id: testId, issue_text: text, issue_severity: severity } = issue;
    if (typeof testId !== "string" || testId === "") this.structure(line, 'an issue has no "test_id".');
    const where = `issue ${testId.slice(0, 20)}`;
    if (typeof filename !== "string") this.structure(line, `${where} has no "filename".`);
    if (typeof text !== "string") this.structure(line, `${where} has no "issue_text".`);
    const level = typeof severity === "string" ? LEVEL_OF_SEVERITY[severity.toUpperCase()] : undefined;
    if (level === undefined) this.structure(line, `${where} has no "issue_severity" of LOW, MEDIUM or HIGH.`);
    const start = nonNegativeInteger(issue.line_number);
    const range = Array.isArray(issue.line_range) ? issue.line_range.map(nonNegativeInteger) : [];
    const last = range.at(-1) ?? null;
    const column = nonNegativeInteger(issue.col_offset);
    const endColumn = nonNegativeInteger(issue.end_col_offset);
    const location = locationOfPlace(
      {
        file: filename,
        line: start !== null && start > 0 ? start : null,
        column: column === null ? null : column + 1,
        end: last === null ? null : { line: last, column: endColumn === null ? null : endColumn + 1 },
      },
      null,
      this.pathContext,
    );
    const strings: Record<string, string> = { issue_severity: (severity as string).toUpperCase() };
    if (typeof issue.issue_confidence === "string")
      strings.issue_confidence = issue.issue_confidence.toUpperCase();
    const result = plainResult({
      index: this.results,
      ruleId: testId,
      rule: this.ruleOf(testId, issue),
      level,
      ownLevel: level,
      properties: { strings },
      taxa: cweOf(issue),
      message: text,
      locations: filename === "" ? [] : [location],
    });
    this.results += 1;
    this.events.push({ type: "result", result });
  }

  /**
   * The rule of a test id, named by the test (`B602 subprocess_popen_with_shell_equals_true`);
   * its level is left to its issues, as one test reports several severities.
   */
  private ruleOf(id: string, issue: Record<string, unknown>): SarifRule {
    const known = this.rules.get(id);
    if (known !== undefined) return known;
    const name = typeof issue.test_name === "string" && issue.test_name !== "" ? issue.test_name : null;
    const rule = plainRule({
      id,
      name,
      shortDescription: name === null ? null : `${name} (${id})`,
      helpUri:
        typeof issue.more_info === "string" && /^https?:\/\//.test(issue.more_info) ? issue.more_info : null,
      taxa: cweOf(issue),
    });
    this.rules.set(id, rule);
    return rule;
  }
}
