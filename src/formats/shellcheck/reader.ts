import { JSONParser, type ParsedElementInfo } from "@streamparser/json";
import { plainResult } from "../plain-result.ts";
import { locationOfPlace } from "../sarif/paths.ts";
import type { SarifChunk } from "../sarif/reader.ts";
import type { SarifEvent, SarifLevel, SarifTool } from "../sarif/types.ts";
import { isRecord, readTextReport, type TextReportReader } from "../text-report.ts";

/**
 * ShellCheck's JSON outputs, read as a stream into the events the SARIF reader yields
 * (docs/ingestion-checkstyle.md "ShellCheck's JSON"). ShellCheck writes no SARIF; `-f json1`
 * writes one object, `-f json` (the older form) the bare list:
 *
 *   {"comments": [{"file": "bin/deploy.sh", "line": 10, "endLine": 10, "column": 15,
 *     "endColumn": 25, "level": "error", "code": 2068, "message": "Double quote array …",
 *     "fix": null}]}
 *
 * One run (the tool `shellcheck`, which describes no rules); one result per comment, its rule
 * `SC<code>` as ShellCheck prints it, its level (error → error, warning → warning, info and style
 * → note) also kept as `properties.severity` for the tool-family rows. json1 counts a tab as one
 * column, as an editor does; plain json counts it as up to eight (to the next tab stop), so its
 * columns are not kept, only its lines. `fix` is not kept.
 */

/**
 * Which rule of the format a document broke; `NOT_READ` is one of ShellCheck's outputs that is not
 * findings (`-f tty`, `diff`, `quiet`), refused naming the outputs that are read.
 */
export type ShellcheckFormatProblem = "INVALID_JSON" | "INVALID_STRUCTURE" | "INVALID_TEXT" | "NOT_READ";

/** Which of ShellCheck's outputs a report was read as: its JSON (json1, json) or its gcc lines. */
export type ShellcheckOutput = "json" | "gcc";

/** A ShellCheck report the readers cannot accept; the message says what is wrong and where. */
export class ShellcheckFormatError extends Error {
  override name = "ShellcheckFormatError";
  constructor(
    readonly problem: ShellcheckFormatProblem,
    message: string,
    readonly output: ShellcheckOutput = "json",
  ) {
    super(message);
  }
}

/** The outputs the readers take, as a refusal names them. */
export const SHELLCHECK_OUTPUTS_READ = "`-f json1`, `-f gcc` or `-f checkstyle`";

/** The two JSON forms: `json1` (`{"comments": […]}`) and `json` (the list alone). */
export type ShellcheckJsonForm = "json1" | "json";

export interface ShellcheckReadOptions {
  /** Which of ShellCheck's two JSON outputs the report is. */
  form: ShellcheckJsonForm;
  /** The directory ShellCheck ran in: relative and absolute paths are resolved against it. */
  workDir: string | null;
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts): relative paths are read from it.
   */
  directory?: string | null;
}

/** The run's tool of every ShellCheck output (the tool-family table knows it as `shellcheck`). */
export const SHELLCHECK_TOOL: SarifTool = {
  name: "shellcheck",
  version: null,
  informationUri: "https://www.shellcheck.net",
  rules: [],
  extensions: [],
};

/** ShellCheck's levels (its `--severity`), as SARIF levels. */
const LEVEL_OF_SEVERITY: Readonly<Record<string, SarifLevel>> = {
  error: "error",
  warning: "warning",
  info: "note",
  style: "note",
};

function positiveInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null;
}

/**
 * Reads ShellCheck's json1 or json output chunk by chunk. Yields the run first; throws
 * {@link ShellcheckFormatError} naming the comment of the first problem.
 */
export function readShellcheckJson(
  chunks: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: ShellcheckReadOptions,
): AsyncGenerator<SarifEvent> {
  return readTextReport(
    chunks,
    new ShellcheckReader(options),
    () => new ShellcheckFormatError("INVALID_TEXT", "the report is not valid UTF-8 text."),
  );
}

class ShellcheckReader implements TextReportReader {
  readonly events: SarifEvent[] = [{ type: "run", run: { index: 0, tool: SHELLCHECK_TOOL } }];
  private readonly pathContext;
  private readonly parser: JSONParser;
  private readonly form: ShellcheckJsonForm;
  private results = 0;
  private sawList = false;
  private ended = false;

  constructor(options: ShellcheckReadOptions) {
    this.form = options.form;
    this.pathContext = {
      workDir: options.workDir,
      originalUriBaseIds: {},
      workingDirectory: options.directory ?? null,
    };
    // Each comment is handed over alone; with keepStack off, the list does not keep them.
    const paths = options.form === "json1" ? ["$.comments.*", "$.comments", "$"] : ["$.*", "$"];
    this.parser = new JSONParser({ paths, keepStack: false });
    this.parser.onValue = (info) => this.onValue(info);
    this.parser.onEnd = () => {
      this.ended = true;
    };
  }

  feed(text: string): void {
    if (text === "") return;
    try {
      this.parser.write(text);
    } catch (error) {
      if (error instanceof ShellcheckFormatError) throw error;
      throw new ShellcheckFormatError(
        "INVALID_JSON",
        `not valid JSON after comment ${this.results}${this.ended ? " (text after the document)" : ""}.`,
      );
    }
  }

  end(): void {
    if (!this.ended) {
      throw new ShellcheckFormatError(
        "INVALID_JSON",
        `the text ends after comment ${this.results}, inside the document: the report looks truncated.`,
      );
    }
    if (!this.sawList) {
      throw new ShellcheckFormatError(
        "INVALID_STRUCTURE",
        'the document has no list of comments: shellcheck -f json1 writes {"comments": […]}.',
      );
    }
  }

  private structure(message: string): never {
    throw new ShellcheckFormatError("INVALID_STRUCTURE", `comment ${this.results + 1}: ${message}`);
  }

  private onValue(info: ParsedElementInfo): void {
    const depth = info.stack.length;
    if (this.form === "json1" && depth === 0) return;
    if (depth === (this.form === "json1" ? 1 : 0)) {
      // The list itself (emptied as its comments were handed over), or what stands in its place.
      if (!Array.isArray(info.value)) {
        throw new ShellcheckFormatError(
          "INVALID_STRUCTURE",
          this.form === "json1" ? '"comments" is not a list.' : "the document is not a list of comments.",
        );
      }
      this.sawList = true;
      return;
    }
    this.onComment(info.value);
  }

  private onComment(comment: unknown): void {
    if (!isRecord(comment)) this.structure("it is not an object.");
    const { file, line, level, code, message } = comment as Record<string, unknown>;
    if (typeof file !== "string" || file === "") this.structure('it has no "file".');
    const startLine = positiveInteger(line);
    if (startLine === null) this.structure('it has no "line".');
    const severity = typeof level === "string" ? level : "";
    const sarifLevel = LEVEL_OF_SEVERITY[severity];
    if (sarifLevel === undefined)
      this.structure(`its level "${severity.slice(0, 40)}" is not error, warning, info or style.`);
    if (typeof code !== "number" || !Number.isSafeInteger(code)) this.structure('it has no numeric "code".');
    if (typeof message !== "string") this.structure('it has no "message".');
    const record = comment as Record<string, unknown>;
    // Plain json counts a tab as up to eight columns: its columns would point elsewhere.
    const columns = this.form === "json1";
    const place = {
      file: file as string,
      line: startLine,
      column: columns ? positiveInteger(record.column) : null,
      end: {
        line: positiveInteger(record.endLine),
        column: columns ? positiveInteger(record.endColumn) : null,
      },
    };
    const ruleId = `SC${code as number}`;
    const result = plainResult({
      index: this.results,
      ruleId,
      level: sarifLevel!,
      ownLevel: sarifLevel!,
      properties: { strings: { severity } },
      message: (message as string) || ruleId,
      locations: [locationOfPlace(place, null, this.pathContext)],
    });
    this.results += 1;
    this.events.push({ type: "result", result });
  }
}
