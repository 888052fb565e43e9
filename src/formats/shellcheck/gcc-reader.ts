import { plainResult } from "../plain-result.ts";
import { locationOfPlace } from "../sarif/paths.ts";
import type { SarifChunk } from "../sarif/reader.ts";
import type { SarifEvent, SarifLevel } from "../sarif/types.ts";
import { readTextReport, type TextReportReader } from "../text-report.ts";
import { SHELLCHECK_TOOL, ShellcheckFormatError, type ShellcheckReadOptions } from "./reader.ts";
import { SHELLCHECK_STYLE_CODES } from "./style-codes.ts";

/**
 * ShellCheck's gcc output (`shellcheck -f gcc`), the form CI annotations read, one comment a line
 * (docs/ingestion-checkstyle.md "ShellCheck's gcc output"):
 *
 *   bin/deploy.sh:10:15: error: Double quote array expansions to avoid re-splitting elements. [SC2068]
 *
 * read into the same events as its json1 (reader.ts): the same run, the rule `SC<code>`, the same
 * place (gcc and json1 both count a tab as one column) and message. Its levels are error, warning
 * and note; a note is ShellCheck's info or style, told apart by the code (style-codes.ts), so
 * `properties.severity` and the tool-family rows are json1's. The line has no end: a finding is
 * its starting point. ShellCheck writes a line per comment and nothing else to stdout (a file it
 * cannot read goes to stderr), so a line of another form is refused.
 */

/** `file:line:column: level: message [SCcode]`; the file may hold colons, the message brackets. */
const COMMENT_LINE = /^(.+?):(\d+):(\d+): (error|warning|note): (.*) \[SC(\d+)\]$/;

const LEVEL_OF_GCC: Readonly<Record<string, SarifLevel>> = {
  error: "error",
  warning: "warning",
  note: "note",
};

/** Whether `line` is one comment of ShellCheck's gcc output (the findings dispatcher tells the format by it). */
export function isShellcheckGccLine(line: string): boolean {
  return COMMENT_LINE.test(line.replace(/\r$/, ""));
}

/** A line quoted in an error is kept up to this many characters. */
const MAX_QUOTED = 120;
/** A comment's line is a path and a sentence: a longer one is not ShellCheck's, and is not held. */
const MAX_LINE = 64 * 1024;

/**
 * Reads ShellCheck's gcc output chunk by chunk. Yields the run first; throws
 * {@link ShellcheckFormatError} naming the first line that is not a comment.
 */
export function readShellcheckGcc(
  chunks: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: Omit<ShellcheckReadOptions, "form">,
): AsyncGenerator<SarifEvent> {
  return readTextReport(
    chunks,
    new ShellcheckGccReader(options),
    () => new ShellcheckFormatError("INVALID_TEXT", "the report is not valid UTF-8 text.", "gcc"),
  );
}

class ShellcheckGccReader implements TextReportReader {
  readonly events: SarifEvent[] = [{ type: "run", run: { index: 0, tool: SHELLCHECK_TOOL } }];
  private readonly pathContext;
  private pending = "";
  private lineNumber = 0;
  private results = 0;

  constructor(options: Omit<ShellcheckReadOptions, "form">) {
    this.pathContext = {
      workDir: options.workDir,
      originalUriBaseIds: {},
      workingDirectory: options.directory ?? null,
    };
  }

  feed(text: string): void {
    if (text === "") return;
    const lines = (this.pending + text).split("\n");
    this.pending = lines.pop()!;
    for (const line of lines) this.onLine(line);
    if (this.pending.length > MAX_LINE) {
      throw new ShellcheckFormatError(
        "INVALID_STRUCTURE",
        `line ${this.lineNumber + 1}: longer than ${MAX_LINE} characters, not a comment of ShellCheck's gcc output.`,
        "gcc",
      );
    }
  }

  end(): void {
    if (this.pending !== "") this.onLine(this.pending);
    this.pending = "";
  }

  private onLine(raw: string): void {
    this.lineNumber += 1;
    const line = raw.replace(/\r$/, "").replace(/^\uFEFF/, "");
    if (line.trim() === "") return;
    const match = COMMENT_LINE.exec(line);
    if (match === null) {
      const quoted = line.length > MAX_QUOTED ? `${line.slice(0, MAX_QUOTED)}…` : line;
      throw new ShellcheckFormatError(
        "INVALID_STRUCTURE",
        `line ${this.lineNumber}: "${quoted}" is not a comment of ShellCheck's gcc output (file:line:column: level: message [SCnnnn]).`,
        "gcc",
      );
    }
    const [, file, lineText, columnText, gccLevel, message, codeText] = match;
    const code = Number(codeText);
    const level = LEVEL_OF_GCC[gccLevel!]!;
    // ShellCheck's own level, as json1 writes it: a note is an info or a style comment.
    const severity = level !== "note" ? gccLevel! : SHELLCHECK_STYLE_CODES.has(code) ? "style" : "info";
    const startLine = Number(lineText);
    const column = Number(columnText);
    const place = {
      file: file!,
      line: startLine > 0 ? startLine : null,
      column: column > 0 ? column : null,
    };
    const ruleId = `SC${code}`;
    const result = plainResult({
      index: this.results,
      ruleId,
      level,
      ownLevel: level,
      properties: { strings: { severity } },
      message: message || ruleId,
      locations: [locationOfPlace(place, null, this.pathContext)],
    });
    this.results += 1;
    this.events.push({ type: "result", result });
  }
}
