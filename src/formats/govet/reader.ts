import { posix } from "node:path";
import { JSONParser, type ParsedElementInfo } from "@streamparser/json";
import { plainResult } from "../plain-result.ts";
import { locationOfPlace, resolveArtifactPath } from "../sarif/paths.ts";
import type { SarifChunk } from "../sarif/reader.ts";
import {
  MAX_TOOL_ERROR,
  type SarifEvent,
  type SarifLocation,
  type SarifResult,
  type SarifTool,
  type SarifToolError,
} from "../sarif/types.ts";
import { isRecord, JsonNesting, readTextReport, type TextReportReader } from "../text-report.ts";

/**
 * What `go vet -json ./...` writes (to stderr), read as a stream into the events the SARIF reader
 * yields (docs/ingestion-sarif.md "go vet"), so that processing, classification and the upload's
 * checks are the same as for SARIF. The go command prints a line `# <package>` before each
 * package, then vet prints the package's findings as one indented JSON object:
 *
 *   # example.com/orders/internal/ledger
 *   {
 *     "example.com/orders/internal/ledger": {
 *       "printf": [
 *         { "posn": "/src/orders/internal/ledger/ledger.go:38:9", "message": "fmt.Sprintf format %d …" }
 *       ],
 *       "copylocks": { "error": "…" }
 *     }
 *   }
 *
 * A package without findings prints `{}`. A package that does not type-check prints no JSON but
 * `vet: <file>:<line>:<col>: <message>` (or the compiler's own lines): vet analyzed nothing in it,
 * so those lines, and an analyzer's `{ "error": … }`, are the tool's own errors, not findings.
 * Every analyzer built on golang.org/x/tools/go/analysis writes the same shape
 * (`go vet -vettool=…`), and newer ones add `end`, `related` and `suggested_fixes`.
 *
 * One run (the tool `go vet`, which describes no rules); one result per diagnostic, its analyzer
 * as the rule. vet has no levels: every diagnostic is a problem (`go vet` fails on it), written as
 * `warning`, and the tool-family table decides the severity. `posn` is `file:line:column` as Go's
 * `token.Position` prints it; absolute paths are made relative to the directory vet ran in (the
 * upload's `workDir`), as SARIF's are.
 */

/** Which rule of the format a document broke. */
export type GoVetFormatProblem = "NOT_GO_VET" | "INVALID_JSON" | "INVALID_STRUCTURE" | "INVALID_TEXT";

/** A `go vet -json` output the reader cannot accept; the message says what is wrong and on which line. */
export class GoVetFormatError extends Error {
  override name = "GoVetFormatError";
  constructor(
    readonly problem: GoVetFormatProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface GoVetReadOptions {
  /** The directory vet ran in: relative and absolute paths are resolved against it. */
  workDir: string | null;
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts): relative paths are read from it.
   */
  directory?: string | null;
}

/** The go command's line before each package's output: `# <import path>`, with a test variant's `[… .test]`. */
const PACKAGE_LINE = /^# (\S+)(?: \[[^\]]+\])?$/;
/** `token.Position.String()`: `file:line:column`, `file:line`, or the file alone. */
const POSITION = /^(.*?):(\d+)(?::(\d+))?$/;
/** A compiler or vet message about a place: `file:line[:column]: message`. */
const PLACED_MESSAGE = /^(.+?):(\d+)(?::(\d+))?: (.*)$/;
/** A line of text is kept up to this many characters (a tool error's message, a package line). */
const MAX_TEXT_LINE = 4096;
const TOOL: SarifTool = {
  name: "go vet",
  version: null,
  informationUri: "https://pkg.go.dev/cmd/vet",
  rules: [],
  extensions: [],
};

/** A place as Go prints it, or null when it names no file. */
function positionOf(text: string): { file: string; line: number | null; column: number | null } | null {
  if (text === "" || text === "-") return null;
  const match = POSITION.exec(text);
  if (!match) return { file: text, line: null, column: null };
  const line = Number(match[2]);
  const column = match[3] === undefined ? null : Number(match[3]);
  if (match[1] === "") return null;
  return {
    file: match[1]!,
    line: line > 0 && Number.isSafeInteger(line) ? line : null,
    column: column !== null && column > 0 && Number.isSafeInteger(column) ? column : null,
  };
}

/**
 * Reads `go vet -json` output chunk by chunk. Yields the run first; throws
 * {@link GoVetFormatError} naming the line of the first problem. Like the SARIF reader, an
 * iteration is all or nothing: a problem found late fails it after earlier results were yielded.
 */
export function readGoVetJson(
  chunks: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: GoVetReadOptions,
): AsyncGenerator<SarifEvent> {
  return readTextReport(
    chunks,
    new GoVetReader(options.workDir, options.directory ?? null),
    () => new GoVetFormatError("INVALID_TEXT", "the report is not valid UTF-8 text."),
  );
}

/** The text between JSON objects, line by line, and each package's object, streamed. */
class GoVetReader implements TextReportReader {
  readonly events: SarifEvent[] = [{ type: "run", run: { index: 0, tool: TOOL } }];
  private readonly pathContext;
  /** The line being read (1-based). */
  private line = 1;
  private mode: "text" | "json" = "text";
  /** The text line read so far (capped at {@link MAX_TEXT_LINE}). */
  private text = "";
  private lineHasText = false;
  /** The package named by the last `# <package>` line. */
  private currentPackage: string | null = null;
  private sawPackageLine = false;
  private sawObject = false;
  /** A tool error whose continuation lines may still follow. */
  private toolError: Omit<SarifToolError, "runIndex"> | null = null;
  private results = 0;
  // The JSON object being read: its parser, where it started, and a scan that finds its end.
  private parser: JSONParser | null = null;
  private objectLine = 0;
  private nesting = new JsonNesting();
  /** The depth whose member's value comes next (after a `:`), or null. */
  private valueAtDepth: number | null = null;

  constructor(workDir: string | null, directory: string | null) {
    this.pathContext = { workDir, originalUriBaseIds: {}, workingDirectory: directory };
  }

  feed(chunk: string): void {
    let jsonFrom = 0;
    for (let i = 0; i < chunk.length; i++) {
      const char = chunk[i]!;
      if (this.mode === "text") {
        if (char === "{" && !this.lineHasText) {
          this.startObject();
          jsonFrom = i;
          this.scan(char);
          continue;
        }
        if (char === "\n") {
          this.endTextLine();
          this.line += 1;
        } else {
          if (this.text.length < MAX_TEXT_LINE) this.text += char;
          if (char !== " " && char !== "\t" && char !== "\r") this.lineHasText = true;
        }
        continue;
      }
      if (char === "\n") {
        // Written line by line, so that the parser's complaint is about the line being read.
        this.write(chunk.slice(jsonFrom, i + 1));
        jsonFrom = i + 1;
        this.line += 1;
        continue;
      }
      this.scan(char);
      if (!this.nesting.open) {
        this.write(chunk.slice(jsonFrom, i + 1));
        this.endObject();
      }
    }
    if (this.mode === "json") this.write(chunk.slice(jsonFrom));
  }

  end(): void {
    if (this.mode === "json") {
      throw new GoVetFormatError(
        "INVALID_JSON",
        `line ${this.line}: the JSON object that starts on line ${this.objectLine} is not closed: the report looks truncated.`,
      );
    }
    this.endTextLine();
    this.flushToolError();
    if (!this.sawObject) {
      throw new GoVetFormatError(
        "NOT_GO_VET",
        "it has no JSON object: go vet -json writes a `# <package>` line and then a JSON object for each package it analyzes, to stderr (go vet -json ./... 2> vet.json). vet's text output, which names no analyzer, is not read.",
      );
    }
  }

  private startObject(): void {
    this.flushToolError();
    this.mode = "json";
    this.sawObject = true;
    this.objectLine = this.line;
    this.nesting = new JsonNesting();
    this.valueAtDepth = null;
    const parser = new JSONParser({ paths: ["$.*.*.*"], keepStack: false });
    parser.onValue = (info) => this.onDiagnostic(info);
    this.parser = parser;
  }

  private endObject(): void {
    try {
      if (!this.parser!.isEnded) this.parser!.end();
    } catch (error) {
      if (error instanceof GoVetFormatError) throw error;
      throw this.invalidJson();
    }
    this.parser = null;
    this.mode = "text";
    this.text = "";
    this.lineHasText = true; // the rest of the closing line is not a package line
  }

  private write(text: string): void {
    if (text === "") return;
    try {
      this.parser!.write(text);
    } catch (error) {
      if (error instanceof GoVetFormatError) throw error;
      throw this.invalidJson();
    }
  }

  private invalidJson(): GoVetFormatError {
    return new GoVetFormatError(
      "INVALID_JSON",
      `line ${this.line}: the JSON object that starts on line ${this.objectLine} is not valid JSON.`,
    );
  }

  /**
   * Follows the object's structure character by character: where it ends (its depth back at 0),
   * and that a package's value is an object and an analyzer's an array or an object, which the
   * parser, emitting only the diagnostics, does not see.
   */
  private scan(char: string): void {
    const read = this.nesting.step(char);
    if (read === null) return;
    if (this.valueAtDepth !== null) {
      const at = this.valueAtDepth;
      this.valueAtDepth = null;
      if (at === 1 && read !== "{") this.structure("a package's value is not an object of analyzers.");
      if (at === 2 && read !== "[" && read !== "{")
        this.structure("an analyzer's value is neither a list of diagnostics nor an error.");
    }
    if (read === ":") this.valueAtDepth = this.nesting.depth;
  }

  private structure(message: string): never {
    throw new GoVetFormatError("INVALID_STRUCTURE", `line ${this.line}: ${message}`);
  }

  /** A value three levels down: a diagnostic in an analyzer's list, or an analyzer's error. */
  private onDiagnostic(info: ParsedElementInfo): void {
    const packageId = String(info.stack[1]?.key ?? "");
    const analyzer = String(info.stack[2]?.key ?? "");
    const where = `analyzer "${analyzer.slice(0, 80)}" of package "${packageId.slice(0, 200)}"`;
    if (!Array.isArray(info.parent)) {
      if (info.key !== "error" || typeof info.value !== "string")
        this.structure(`${where} has neither a list of diagnostics nor an "error".`);
      this.events.push({
        type: "toolError",
        error: { runIndex: 0, message: `${analyzer}: ${info.value as string}`, path: null, line: null },
      });
      return;
    }
    const diagnostic = info.value;
    if (!isRecord(diagnostic)) this.structure(`a diagnostic of ${where} is not an object.`);
    const { posn, message } = diagnostic as Record<string, unknown>;
    if (typeof posn !== "string") this.structure(`a diagnostic of ${where} has no "posn".`);
    if (typeof message !== "string") this.structure(`a diagnostic of ${where} has no "message".`);
    this.events.push({
      type: "result",
      result: this.resultOf(analyzer, diagnostic as Record<string, unknown>),
    });
  }

  private resultOf(analyzer: string, diagnostic: Record<string, unknown>): SarifResult {
    const strings: Record<string, string> = {};
    if (typeof diagnostic.category === "string" && diagnostic.category !== "")
      strings.diagnosticCategory = diagnostic.category;
    const related = Array.isArray(diagnostic.related) ? diagnostic.related.filter(isRecord) : [];
    const location = this.locationOf(diagnostic.posn as string, diagnostic.end, null);
    const result = plainResult({
      index: this.results,
      ruleId: analyzer,
      level: "warning",
      ownLevel: null,
      properties: { strings },
      message: diagnostic.message as string,
      locations: location === null ? [] : [location],
      relatedLocations: related.flatMap((item) => {
        if (typeof item.posn !== "string") return [];
        const place = this.locationOf(
          item.posn,
          item.end,
          typeof item.message === "string" ? item.message : null,
        );
        return place === null ? [] : [place];
      }),
    });
    this.results += 1;
    return result;
  }

  private locationOf(posn: string, end: unknown, message: string | null): SarifLocation | null {
    const start = positionOf(posn);
    if (start === null) return null;
    // `end`, where newer analyzers give it, closes the region when it is in the same file.
    const stop = typeof end === "string" ? positionOf(end) : null;
    return locationOfPlace(
      { ...start, end: stop !== null && stop.file === start.file ? stop : null },
      message,
      this.pathContext,
    );
  }

  /** A line of text between the objects: a package line, a tool error, or its continuation. */
  private endTextLine(): void {
    const text = this.text.replace(/\r$/, "");
    const hadText = this.lineHasText;
    this.text = "";
    this.lineHasText = false;
    if (!hadText || text.trim() === "") return;
    if (!this.sawPackageLine && !this.sawObject) {
      const first = PACKAGE_LINE.exec(text);
      if (!first) {
        throw new GoVetFormatError(
          "NOT_GO_VET",
          `line ${this.line}: it does not start with a line "# <package>" as go vet -json's output does (go vet -json ./... 2> vet.json).`,
        );
      }
    }
    const packageLine = PACKAGE_LINE.exec(text);
    if (packageLine) {
      this.flushToolError();
      this.sawPackageLine = true;
      this.currentPackage = packageLine[1]!;
      return;
    }
    if ((text.startsWith(" ") || text.startsWith("\t")) && this.toolError !== null) {
      if (this.toolError.message.length < MAX_TOOL_ERROR)
        this.toolError.message = `${this.toolError.message}\n${text.trim()}`.slice(0, MAX_TOOL_ERROR);
      return;
    }
    this.flushToolError();
    // What vet or the go command said instead of analyzing a package (`vet: file:line:col:
    // message`, the go command's `file:line:col: message`), or another line of theirs.
    const bare = text.trim().replace(/^vet: /, "");
    const placed = PLACED_MESSAGE.exec(bare);
    let path: string | null = null;
    let line: number | null = null;
    // A package that does not type-check goes unanalyzed whole: its directory, not the one file.
    let unanalyzedPath: string | undefined;
    if (placed) {
      const resolved = resolveArtifactPath(placed[1]!, undefined, this.pathContext);
      path = resolved.outsideRepository ? placed[1]! : resolved.path;
      if (!resolved.outsideRepository && resolved.path) unanalyzedPath = `${posix.dirname(resolved.path)}/`;
      line = Number(placed[2]);
    }
    const message = placed ? placed[4]! : bare;
    const inPackage = this.currentPackage === null ? "" : ` (package ${this.currentPackage})`;
    this.toolError = { message: `${message}${inPackage}`.slice(0, MAX_TOOL_ERROR), path, line };
    if (unanalyzedPath !== undefined) this.toolError.unanalyzedPath = unanalyzedPath;
  }

  private flushToolError(): void {
    if (this.toolError === null) return;
    this.events.push({ type: "toolError", error: { runIndex: 0, ...this.toolError } });
    this.toolError = null;
  }
}
