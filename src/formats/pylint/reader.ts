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
  type SarifTool,
} from "../sarif/types.ts";
import { isRecord, readTextReport } from "../text-report.ts";

/**
 * pylint's JSON outputs, read as a stream into the events the SARIF reader yields
 * (docs/ingestion-python.md), so that processing, classification and the upload's checks are the
 * same as for SARIF. pylint writes no SARIF. `--output-format=json` (every pylint since 2) is one
 * list of messages:
 *
 *   [{"type": "warning", "module": "shop.orders", "obj": "describe", "line": 48, "column": 4,
 *     "endLine": 48, "endColumn": 10, "path": "shop/orders.py", "symbol": "unused-variable",
 *     "message": "Unused variable 'unused'", "message-id": "W0612"}]
 *
 * `--output-format=json2` (pylint 3 and later) is an object of the same messages, each with its
 * id as `messageId` (and `confidence` and `absolutePath` besides), and the run's `statistics`:
 *
 *   {"messages": [{"type": "warning", "symbol": "unused-variable", "message": "…",
 *     "messageId": "W0612", "confidence": "UNDEFINED", "module": "shop.orders", …}],
 *    "statistics": {"messageTypeCount": {…}, "modulesLinted": 6, "score": 3.33}}
 *
 * One run (the tool `pylint`); one result per message, its message id as the rule (`W0612`), the
 * rule named by its symbol (`unused-variable`). The message's type is its level: `error` →
 * error, `warning` → warning, `convention`, `refactor` and `informational` → note; the
 * tool-family table gives the category. A `fatal` message (F0001 a file it cannot find, F0002 an
 * internal error, F0010 a parse error) and `syntax-error` (E0001, a file that does not parse) say
 * that pylint analyzed nothing of that file: they are the tool's own errors, not findings. pylint
 * counts columns from 0 (Python's `col_offset`), SARIF from 1; `endColumn` is exclusive in both.
 * `path` is relative to the directory pylint ran in (the upload's `workDir`).
 */

/** Which rule of the format a document broke. */
export type PylintFormatProblem = "NOT_PYLINT" | "INVALID_JSON" | "INVALID_STRUCTURE" | "INVALID_TEXT";

/** pylint JSON the reader cannot accept; the message says what is wrong and on which line. */
export class PylintFormatError extends Error {
  override name = "PylintFormatError";
  constructor(
    readonly problem: PylintFormatProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface PylintReadOptions {
  /** The directory pylint ran in: relative and absolute paths are resolved against it. */
  workDir: string | null;
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts): relative paths are read from it.
   */
  directory?: string | null;
}

const TOOL: SarifTool = {
  name: "pylint",
  version: null,
  informationUri: "https://pylint.readthedocs.io/",
  rules: [],
  extensions: [],
};

/** The message types that are findings, with their level. */
const LEVEL_OF_TYPE: Readonly<Record<string, SarifLevel>> = {
  error: "error",
  warning: "warning",
  convention: "note",
  refactor: "note",
  informational: "note",
  info: "note",
};

/** Messages saying pylint could not analyze a file: it does not parse. */
const NOT_ANALYZED_IDS = new Set(["E0001"]);

function nonNegativeInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** What each of pylint's outputs names a message's id by. */
const ID_MEMBER = { array: "message-id", object: "messageId" } as const;

/** The two outputs read, as a sentence's end. */
const OUTPUTS_READ =
  "pylint's JSON outputs are read (pylint --output-format=json src > pylint.json, or json2 from pylint 3 on)";

/** A document that is neither pylint's list nor its json2 object. */
function notPylint(line: number): PylintFormatError {
  return new PylintFormatError(
    "NOT_PYLINT",
    `line ${line}: it is neither a JSON list of messages nor an object of them: ${OUTPUTS_READ}.`,
  );
}

/**
 * Reads pylint's JSON output chunk by chunk. Yields the run first; throws
 * {@link PylintFormatError} naming the line of the first problem. Like the SARIF reader, an
 * iteration is all or nothing: a problem found late fails it after earlier results were yielded.
 */
export function readPylintJson(
  chunks: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: PylintReadOptions,
): AsyncGenerator<SarifEvent> {
  return readTextReport(
    chunks,
    new PylintReader(options.workDir, options.directory ?? null),
    () => new PylintFormatError("INVALID_TEXT", "the report is not valid UTF-8 text."),
  );
}

class PylintReader extends JsonDocumentReader {
  private readonly pathContext;
  private results = 0;
  private messages = 0;
  /** The output being read, once the document's top level is known: the list (`json`) or json2's object. */
  private output: "array" | "object" = "array";
  /** Each rule met, described once from its first message. */
  private readonly rules = new Map<string, SarifRule>();

  constructor(workDir: string | null, directory: string | null) {
    super({
      // json2's messages one by one: "$.*" would hold its whole list as one value.
      paths: (topLevel) => (topLevel === "object" ? ["$.messages.*"] : ["$.*"]),
      onItem: (info, line) => this.onMessage(info, line),
      invalid: (line, truncated) =>
        new PylintFormatError(
          "INVALID_JSON",
          truncated
            ? `line ${line}: the ${this.output === "array" ? "list of messages" : "report"} is not closed: the report looks truncated.`
            : `line ${line}: not valid JSON.`,
        ),
      onTopLevel: (kind, line) => {
        if (kind === "scalar") throw notPylint(line);
        this.output = kind;
      },
      owns: (error) => error instanceof PylintFormatError,
    });
    this.pathContext = { workDir, originalUriBaseIds: {}, workingDirectory: directory };
    this.events.push({ type: "run", run: { index: 0, tool: TOOL } });
  }

  private structure(line: number, message: string): never {
    throw new PylintFormatError("INVALID_STRUCTURE", `line ${line}: ${message}`);
  }

  override end(): void {
    super.end();
    this.checkMessagesList();
  }

  /** json2's object, told by its first member `messages`, must hold them as a list. */
  private checkMessagesList(): void {
    if (this.output === "object" && this.members.get("messages") !== "array") {
      throw new PylintFormatError(
        "INVALID_STRUCTURE",
        `line ${this.line}: the report's "messages" is not a list; ${OUTPUTS_READ}.`,
      );
    }
  }

  /** One message: a finding, or pylint's own error about a file. */
  private onMessage(info: ParsedElementInfo, line: number): void {
    this.checkMessagesList();
    const message = info.value;
    const idMember = ID_MEMBER[this.output];
    const id = isRecord(message) ? message[idMember] : undefined;
    if (typeof id !== "string" || id === "") {
      if (this.messages === 0) {
        throw new PylintFormatError(
          "NOT_PYLINT",
          this.output === "array"
            ? `line ${line}: it is a JSON list whose items are not pylint's messages (objects with a "message-id"); ${OUTPUTS_READ}.`
            : `line ${line}: its "messages" are not pylint's (objects with a "messageId"); ${OUTPUTS_READ}.`,
        );
      }
      this.structure(
        line,
        isRecord(message) ? `a message has no "${idMember}".` : "a message is not an object.",
      );
    }
    this.messages += 1;
    const record = message as Record<string, unknown>;
    const { type, path, symbol, message: text } = record;
    const where = `message ${id.slice(0, 20)}`;
    if (typeof type !== "string") this.structure(line, `${where} has no "type".`);
    if (typeof text !== "string") this.structure(line, `${where} has no "message".`);
    if (typeof path !== "string") this.structure(line, `${where} has no "path".`);
    const level = LEVEL_OF_TYPE[type];
    if (level === undefined && type !== "fatal") {
      this.structure(line, `${where} has the type "${type.slice(0, 40)}", which pylint does not write.`);
    }
    const start = nonNegativeInteger(record.line);
    if (level === undefined || NOT_ANALYZED_IDS.has(id)) {
      const resolved = locationOfPlace({ file: path, line: null, column: null }, null, this.pathContext);
      this.events.push({
        type: "toolError",
        error: {
          runIndex: 0,
          message: `${text} (${id}${typeof symbol === "string" ? ` ${symbol}` : ""})`.slice(
            0,
            MAX_TOOL_ERROR,
          ),
          path: path === "" ? null : resolved.outsideRepository ? path : resolved.path,
          line: start !== null && start > 0 ? start : null,
          // The module pylint could not read was not analyzed (docs/ingestion.md "Status").
          ...(path !== "" && !resolved.outsideRepository && resolved.path
            ? { unanalyzedPath: resolved.path }
            : {}),
        },
      });
      return;
    }
    const column = nonNegativeInteger(record.column);
    const endLine = nonNegativeInteger(record.endLine);
    const endColumn = nonNegativeInteger(record.endColumn);
    const location = locationOfPlace(
      {
        file: path,
        line: start !== null && start > 0 ? start : null,
        column: column === null ? null : column + 1,
        end: endLine === null ? null : { line: endLine, column: endColumn === null ? null : endColumn + 1 },
      },
      null,
      this.pathContext,
    );
    const strings: Record<string, string> = { type };
    if (typeof record.obj === "string" && record.obj !== "") strings.obj = record.obj;
    const result = plainResult({
      index: this.results,
      ruleId: id,
      rule: this.ruleOf(id, typeof symbol === "string" ? symbol : null, type, level),
      level,
      ownLevel: level,
      properties: { strings },
      message: text,
      locations: path === "" ? [] : [location],
    });
    this.results += 1;
    this.events.push({ type: "result", result });
  }

  /** The rule of a message id: named by its symbol, its level fixed by its type. */
  private ruleOf(id: string, symbol: string | null, type: string, level: SarifLevel): SarifRule {
    const known = this.rules.get(id);
    if (known !== undefined) return known;
    const strings: Record<string, string> = { type };
    if (symbol !== null) strings.symbol = symbol;
    const rule = plainRule({
      id,
      name: symbol,
      shortDescription: symbol === null ? null : `${symbol} (${id})`,
      helpUri:
        symbol === null || !/^[a-z][a-z0-9-]*$/.test(symbol)
          ? null
          : `https://pylint.readthedocs.io/en/latest/user_guide/messages/${type}/${symbol}.html`,
      defaultLevel: level,
      strings,
    });
    this.rules.set(id, rule);
    return rule;
  }
}
