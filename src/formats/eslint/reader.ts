import type { ParsedElementInfo } from "@streamparser/json";
import { JsonDocumentReader } from "../json-document.ts";
import { plainResult } from "../plain-result.ts";
import { locationOfPlace } from "../sarif/paths.ts";
import type { SarifChunk } from "../sarif/reader.ts";
import {
  MAX_TOOL_ERROR,
  type SarifEvent,
  type SarifLevel,
  type SarifLocation,
  type SarifRule,
  type SarifSuppression,
  type SarifTool,
} from "../sarif/types.ts";
import { isEslintDirectiveNotice } from "../sarif/values.ts";
import { isRecord, readTextReport } from "../text-report.ts";
import { ruleOfMeta } from "./metadata.ts";

/**
 * ESLint's own JSON outputs, read as a stream into the events the SARIF reader yields
 * (docs/ingestion-sarif.md "ESLint's JSON"), so that an upload of them is processed as one of the
 * SARIF that @microsoft/eslint-formatter-sarif writes of the same run: the same findings, places
 * and fingerprints. `eslint --format json` is one list of the files ESLint linted
 * (https://eslint.org/docs/latest/use/formatters/#json):
 *
 *   [{"filePath": "/ci/app/src/orders.js",
 *     "messages": [{"ruleId": "no-var", "severity": 1, "message": "Unexpected var, use let or
 *       const instead.", "line": 4, "column": 1, "endLine": 4, "endColumn": 22}],
 *     "suppressedMessages": [], "errorCount": 0, "fatalErrorCount": 0, "warningCount": 1, …}]
 *
 * `--format json-with-metadata` is an object of the same list and the rules' `meta` after it:
 *
 *   {"results": [{"filePath": …}], "metadata": {"cwd": "/ci/app",
 *     "rulesMeta": {"no-var": {"type": "suggestion", "docs": {"description": "Require `let` or
 *       `const` instead of `var`", "url": "https://eslint.org/docs/latest/rules/no-var"}, …}}}}
 *
 * One run (the tool `ESLint`, as the SARIF formatter names it); one result per message of a rule,
 * its `severity` its level (2 error, 1 warning). ESLint counts lines and columns from 1, as SARIF
 * does, and its `endColumn` is exclusive in both. Each file is one the run lists (`listedFile`),
 * clean ones too. A message without a rule is ESLint's own: `fatal` (a file it could not parse)
 * is the tool's error naming that file unanalyzed, an unused directive an error about its
 * configuration, a warning (a file it was given but ignored) a notice that the file was not
 * linted: where the SARIF formatter's notifications put them. `suppressedMessages` (ESLint 8.8
 * and later: problems an `eslint-disable` comment silenced) are results suppressed in the source.
 * `filePath` is absolute: it is placed with the upload's `workDir`, as the SARIF formatter's
 * `file://` URIs are. The rules' `meta` comes after every result, so the run's header is yielded
 * again at the end, with the rules it describes (their `docs` and `meta.type`), unless the caller
 * read them first (`rules`, from `findEslintRules`, metadata.ts, as processing does): then the first
 * header describes them, and the metadata is not read again.
 */

/** Which rule of the format a document broke. */
export type EslintFormatProblem = "NOT_ESLINT" | "INVALID_JSON" | "INVALID_STRUCTURE" | "INVALID_TEXT";

/** ESLint JSON the reader cannot accept; the message says what is wrong and on which line. */
export class EslintFormatError extends Error {
  override name = "EslintFormatError";
  constructor(
    readonly problem: EslintFormatProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface EslintReadOptions {
  /** The directory ESLint ran in: absolute paths are made relative to it. */
  workDir: string | null;
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts): relative paths are read from it.
   */
  directory?: string | null;
  /** Also yield each file ESLint linted, and the files it ignored (the SARIF reader's option). */
  listedFiles?: boolean;
  /**
   * json-with-metadata's rules, read before its results (`findEslintRules`, metadata.ts): the run's
   * first header describes them, and `metadata.rulesMeta` is not read again. Null or absent: the
   * rules are read where the document has them, and the header comes again after the results.
   */
  rules?: readonly SarifRule[] | null;
}

/** The tool as ESLint's SARIF formatter names it, so that both are classified alike. */
const TOOL_NAME = "ESLint";
const INFORMATION_URI = "https://eslint.org";

/** The two outputs read, as a sentence's end. */
const OUTPUTS_READ =
  "ESLint's JSON outputs are read (eslint --format json src > eslint.json, or --format json-with-metadata)";

/** ESLint's severities: 1 warn, 2 error (0, off, is never reported). */
const LEVEL_OF_SEVERITY: Readonly<Record<number, SarifLevel>> = { 1: "warning", 2: "error" };

/** What the reader holds of a file's entry while reading its messages. */
interface FileEntry {
  filePath: string;
  line: number;
}

function positiveInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null;
}

function stringOf(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/**
 * Reads ESLint's JSON output chunk by chunk. Yields the run first; throws
 * {@link EslintFormatError} naming the line of the first problem. Like the SARIF reader, an
 * iteration is all or nothing: a problem found late fails it after earlier results were yielded.
 */
export function readEslintJson(
  chunks: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: EslintReadOptions,
): AsyncGenerator<SarifEvent> {
  return readTextReport(
    chunks,
    new EslintReader(options),
    () => new EslintFormatError("INVALID_TEXT", "the report is not valid UTF-8 text."),
  );
}

class EslintReader extends JsonDocumentReader {
  private readonly pathContext;
  private readonly listedFiles: boolean;
  private results = 0;
  private files = 0;
  /** The output being read, once the document's top level is known: `json`'s list or json-with-metadata's object. */
  private output: "array" | "object" = "array";
  /** The rules json-with-metadata describes, by id. */
  private readonly rules: SarifRule[] = [];
  /** Whether the rules were read before the results (the `rules` option). */
  private readonly rulesFirst: boolean;

  constructor(options: EslintReadOptions) {
    super({
      // Files one by one, and each rule's meta: "$.results" would hold the whole list as one value.
      paths: (topLevel) => {
        if (topLevel !== "object") return ["$.*"];
        return this.rulesFirst ? ["$.results.*"] : ["$.results.*", "$.metadata.rulesMeta.*"];
      },
      onItem: (info, line) => this.onItem(info, line),
      invalid: (line, truncated) =>
        new EslintFormatError(
          "INVALID_JSON",
          truncated
            ? `line ${line}: the ${this.output === "array" ? "list of files" : "report"} is not closed: the report looks truncated.`
            : `line ${line}: not valid JSON.`,
        ),
      onTopLevel: (kind, line) => {
        if (kind === "scalar") throw this.notEslint(line);
        this.output = kind;
      },
      owns: (error) => error instanceof EslintFormatError,
    });
    this.pathContext = {
      workDir: options.workDir,
      originalUriBaseIds: {},
      workingDirectory: options.directory ?? null,
    };
    this.listedFiles = options.listedFiles === true;
    this.rulesFirst = options.rules !== undefined && options.rules !== null;
    if (options.rules) this.rules.push(...options.rules);
    this.events.push({ type: "run", run: { index: 0, tool: this.tool() } });
  }

  /** The tool with the rules described so far (a copy: an event yielded is not changed after). */
  private tool(): SarifTool {
    return {
      name: TOOL_NAME,
      version: null,
      informationUri: INFORMATION_URI,
      rules: [...this.rules],
      extensions: [],
    };
  }

  private notEslint(line: number): EslintFormatError {
    return new EslintFormatError(
      "NOT_ESLINT",
      `line ${line}: it is neither a JSON list of linted files nor an object of them: ${OUTPUTS_READ}.`,
    );
  }

  private structure(line: number, message: string): never {
    throw new EslintFormatError("INVALID_STRUCTURE", `line ${line}: ${message}`);
  }

  override end(): void {
    super.end();
    this.checkResultsList();
    // The rules' meta came after the results: the run's header again, describing them.
    if (!this.rulesFirst && this.rules.length > 0)
      this.events.push({ type: "run", run: { index: 0, tool: this.tool() } });
  }

  /** json-with-metadata's object must hold its files as a list under `results`. */
  private checkResultsList(): void {
    if (this.output === "object" && this.members.get("results") !== "array") {
      throw new EslintFormatError(
        "NOT_ESLINT",
        `line ${this.line}: the report's "results" is not a list of linted files; ${OUTPUTS_READ}.`,
      );
    }
  }

  private onItem(info: ParsedElementInfo, line: number): void {
    if (typeof info.key === "string") this.onRuleMeta(info.key, info.value);
    else this.onFile(info.value, line);
  }

  /** One linted file: its findings, its suppressed ones, and ESLint's own messages about it. */
  private onFile(value: unknown, line: number): void {
    this.checkResultsList();
    const filePath = isRecord(value) ? value.filePath : undefined;
    if (typeof filePath !== "string" || filePath === "") {
      if (this.files === 0) {
        throw new EslintFormatError(
          "NOT_ESLINT",
          `line ${line}: its items are not ESLint's linted files (objects with a "filePath"); ${OUTPUTS_READ}.`,
        );
      }
      this.structure(line, isRecord(value) ? `a file has no "filePath".` : "a file is not an object.");
    }
    this.files += 1;
    const entry = value as Record<string, unknown>;
    const { messages, suppressedMessages } = entry;
    const where = `the file ${filePath.slice(0, 200)}`;
    if (!Array.isArray(messages)) this.structure(line, `${where} has no list of "messages".`);
    if (suppressedMessages !== undefined && !Array.isArray(suppressedMessages)) {
      this.structure(line, `${where} has "suppressedMessages" that are not a list.`);
    }
    const file: FileEntry = { filePath, line };
    if (this.listedFiles) {
      const listed = locationOfPlace({ file: filePath, line: null, column: null }, null, this.pathContext);
      if (!listed.outsideRepository && listed.path) {
        this.events.push({ type: "listedFile", file: { runIndex: 0, path: listed.path } });
      }
    }
    for (const message of messages) this.onMessage(file, message, false);
    for (const message of suppressedMessages ?? []) this.onMessage(file, message, true);
  }

  /** One message of a file: a finding, or ESLint's own word about the file. */
  private onMessage(file: FileEntry, message: unknown, suppressed: boolean): void {
    const where = `a message in ${file.filePath.slice(0, 200)}`;
    if (!isRecord(message)) this.structure(file.line, `${where} is not an object.`);
    const { ruleId, severity, message: text } = message;
    const level = typeof severity === "number" ? LEVEL_OF_SEVERITY[severity] : undefined;
    if (level === undefined) this.structure(file.line, `${where} has no "severity" 1 or 2.`);
    if (typeof text !== "string") this.structure(file.line, `${where} has no "message".`);
    const start = positiveInteger(message.line);
    const endLine = positiveInteger(message.endLine);
    const location = locationOfPlace(
      {
        file: file.filePath,
        line: start,
        column: positiveInteger(message.column),
        end: endLine === null ? null : { line: endLine, column: positiveInteger(message.endColumn) },
      },
      null,
      this.pathContext,
    );
    if (ruleId === null || ruleId === undefined) {
      if (!suppressed) this.onOwnMessage(location, text, level, message.fatal === true);
      return;
    }
    if (typeof ruleId !== "string" || ruleId === "")
      this.structure(file.line, `${where} has a "ruleId" that is not a rule's name.`);
    const result = plainResult({
      index: this.results,
      ruleId,
      level,
      ownLevel: level,
      message: text,
      locations: [location],
    });
    if (suppressed) {
      result.suppressions = suppressionsOf(message.suppressions);
      result.isSuppressed = true;
    }
    this.results += 1;
    this.events.push({ type: "result", result });
  }

  /**
   * A message of no rule, as the SARIF formatter files it among its notifications (values.ts
   * `toolErrorOf`, `toolNoticeOf`): an error is the tool's own, about its configuration when it is
   * about a directive, else naming the file unanalyzed; a warning not about a directive (a file
   * ESLint was given but ignored) says the file was not linted.
   */
  private onOwnMessage(location: SarifLocation, text: string, level: SarifLevel, fatal: boolean): void {
    // The repository file the message is about, if it names one.
    const file = !location.outsideRepository && location.path ? location.path : null;
    const directive = !fatal && isEslintDirectiveNotice(text);
    if (level === "error") {
      this.events.push({
        type: "toolError",
        error: {
          runIndex: 0,
          message: (text || "(no message)").slice(0, MAX_TOOL_ERROR),
          path: location.outsideRepository ? location.uri : location.path,
          line: location.region?.startLine ?? null,
          ...(directive ? { configuration: true as const } : file !== null ? { unanalyzedPath: file } : {}),
        },
      });
      return;
    }
    if (!directive && file !== null && this.listedFiles) {
      this.events.push({ type: "toolNotice", notice: { runIndex: 0, path: file } });
    }
  }

  /** One rule's `meta` (json-with-metadata): its description, help page and type. */
  private onRuleMeta(id: string, meta: unknown): void {
    if (isRecord(meta)) this.rules.push(ruleOfMeta(id, meta, this.rules.length));
  }
}

/**
 * ESLint's suppressions of a message (`{"kind": "directive", "justification": "…"}`): a
 * directive is a comment in the source; any other kind (a suppressions file) is external.
 */
function suppressionsOf(value: unknown): SarifSuppression[] {
  const suppressions = Array.isArray(value) ? value.filter(isRecord) : [];
  if (suppressions.length === 0) return [{ kind: "inSource", status: null, justification: null }];
  return suppressions.map((suppression) => ({
    kind: suppression.kind === "directive" ? "inSource" : "external",
    status: null,
    justification: stringOf(suppression.justification),
  }));
}
