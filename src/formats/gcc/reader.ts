import { createHash } from "node:crypto";
import { JSONParser, type ParsedElementInfo } from "@streamparser/json";
import { plainResult } from "../plain-result.ts";
import { locationOfPlace } from "../sarif/paths.ts";
import type { SarifChunk } from "../sarif/reader.ts";
import {
  MAX_TOOL_ERROR,
  type SarifEvent,
  type SarifLevel,
  type SarifLocation,
  type SarifResult,
  type SarifTool,
  type SarifToolError,
} from "../sarif/types.ts";
import { isRecord, JsonNesting, readTextReport, type TextReportReader } from "../text-report.ts";

/**
 * GCC's diagnostics as JSON (`-fdiagnostics-format=json`, GCC 10 to 13; GCC 13 adds SARIF), read as
 * a stream into the events the SARIF reader yields (docs/ingestion-sarif.md "GCC"), so that
 * processing, classification and the upload's checks are the same as for SARIF. Each compiler
 * invocation writes one JSON array to stderr; a build of several files writes one after another:
 *
 *   [{"kind": "warning", "message": "leak of ‘item’", "option": "-Wanalyzer-malloc-leak",
 *     "metadata": {"cwe": 401},
 *     "locations": [{"caret": {"file": "src/inventory.c", "line": 48, "column": 12}, "finish": {…}}],
 *     "children": [{"kind": "note", "message": "…", "locations": […]}],
 *     "path": [ …the analyzer's events… ]}]
 *
 * One run (the tool `gcc`, which describes no rules); one result per warning (or per warning made
 * an error by `-Werror=`), its option as the rule (`-Wanalyzer-malloc-leak`, `-Wunused-variable`);
 * `metadata.cwe` a CWE taxon; the first location's caret and finish the region; the children's
 * notes related locations; so is a note GCC writes as an item of its own right after a diagnostic
 * (GCC 12's `-Wuse-after-free` and its "call to ‘free’ here"), which belongs to that diagnostic and
 * is not a finding. An error with no option (code that does not compile), a fatal error
 * or an internal error is the tool's own error: that file was not analyzed; so is a line of text
 * between the lists (`make: *** [Makefile:3: a.o] Error 1`, when make's stderr is captured with
 * GCC's). The analyzer's `path` (the events that lead to a finding) and fix-it hints are not kept.
 *
 * Each list is one compilation (one translation unit: `gcc -c a.c b.c` writes two lists, as two
 * commands do), and a compilation that stops at an error analyzes none of its files: neither the
 * file the error is in (a header, say) nor the file being compiled, whose middle-end warnings and
 * `-fanalyzer` findings are not given. GCC 12's JSON does not name the file being compiled, and
 * has no include chain (the text output's "In file included from" is not in it); what the list
 * does say is which files its diagnostics are in, all of them files of that compilation. So an
 * error's unanalyzed places are its own file and every other repository file its list's
 * diagnostics and their notes name (`alsoUnanalyzed`): the main file is among them whenever a
 * diagnostic is in it, and when none is, the list holds no fact naming it and only the error's
 * file is kept. A file that another list of the report names, from a compilation that had no
 * error, was analyzed there and is left out. The errors are held until the report ends, so that
 * every compilation's list has been read.
 *
 * GCC prints a header's warnings once for each file that includes it, so a build's lists repeat
 * them: a warning with the same rule, message and place (file, line, column) as an earlier one is
 * yielded with `repeatOf`, the earlier one's index, and is not a finding of its own (processing
 * skips it as `REPEATED`), so one whole-build report holds what the files' reports uploaded one by
 * one hold. The notes and the analyzer's path may differ from one file to another (the callers
 * differ); the first one's are kept.
 */

/** Which rule of the format a document broke. */
export type GccFormatProblem = "NOT_GCC" | "INVALID_JSON" | "INVALID_STRUCTURE" | "INVALID_TEXT";

/** GCC JSON the reader cannot accept; the message says what is wrong and on which line. */
export class GccFormatError extends Error {
  override name = "GccFormatError";
  constructor(
    readonly problem: GccFormatProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface GccReadOptions {
  /** The directory GCC ran in: relative and absolute paths are resolved against it. */
  workDir: string | null;
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts): relative paths are read from it.
   */
  directory?: string | null;
}

const TOOL: SarifTool = {
  name: "gcc",
  version: null,
  informationUri: "https://gcc.gnu.org/onlinedocs/gcc/Diagnostic-Message-Formatting-Options.html",
  rules: [],
  extensions: [],
};

/** One compilation's list as read: the repository files its diagnostics name, and its errors. */
interface CompilationList {
  files: Set<string>;
  errors: SarifToolError[];
}

/** The kinds of diagnostic that are findings, with their level. */
const LEVEL_OF_KIND: Readonly<Record<string, SarifLevel>> = { warning: "warning", note: "note" };

function positiveInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null;
}

/**
 * Reads GCC's JSON diagnostics chunk by chunk. Yields the run first; throws
 * {@link GccFormatError} naming the line of the first problem. Like the SARIF reader, an
 * iteration is all or nothing: a problem found late fails it after earlier results were yielded.
 */
export function readGccJson(
  chunks: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: GccReadOptions,
): AsyncGenerator<SarifEvent> {
  return readTextReport(
    chunks,
    new GccReader(options.workDir, options.directory ?? null),
    () => new GccFormatError("INVALID_TEXT", "the report is not valid UTF-8 text."),
  );
}

/** The arrays one after another, each diagnostic streamed out of them. */
class GccReader implements TextReportReader {
  readonly events: SarifEvent[] = [{ type: "run", run: { index: 0, tool: TOOL } }];
  private readonly pathContext;
  private readonly parser: JSONParser;
  private line = 1;
  private results = 0;
  /** Diagnostics read, findings and the tool's own errors. */
  private diagnostics = 0;
  private arrays = 0;
  /** The text beside the parser: where each list starts and ends. */
  private readonly nesting = new JsonNesting();
  /** The line of text being read between two lists, or null inside or before a list. */
  private textLine: string | null = null;
  /** Each distinct warning's identity (a hash of its rule, message and place), with its index. */
  private readonly distinct = new Map<string, number>();
  /** The list being read: the repository files its diagnostics name, and its errors. */
  private list: CompilationList = { files: new Set(), errors: [] };
  /**
   * The list's last finding, held until the next item or the list's end: GCC writes the note of
   * some warnings (`-Wuse-after-free`'s "call to 'free' here") as an item of its own after it,
   * which belongs to it.
   */
  private lastResult: SarifResult | null = null;
  /** Whether the list's last item was a diagnostic a note may follow (a finding or an error). */
  private noteMayFollow = false;
  /** Repository files named by a list without an error: a compilation of the build analyzed them. */
  private readonly compiled = new Set<string>();
  /** The tool's errors in the order read, each failed list's with the files it names, until the end. */
  private readonly held: CompilationList[] = [];

  constructor(workDir: string | null, directory: string | null) {
    this.pathContext = { workDir, originalUriBaseIds: {}, workingDirectory: directory };
    this.parser = new JSONParser({ paths: ["$.*"], keepStack: false, separator: "" });
    this.parser.onValue = (info) => this.onDiagnostic(info);
  }

  feed(chunk: string): void {
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const char = chunk[i]!;
      if (this.textLine !== null) {
        // A line of text between the lists (a build tool's own message): the tool's error.
        if (char === "\n") {
          this.endTextLine();
          this.line += 1;
        } else if (this.textLine.length < MAX_TOOL_ERROR) {
          this.textLine += char;
        }
        from = i + 1;
        continue;
      }
      if (char === "\n") {
        // Written line by line, so that the parser's complaint is about the line being read.
        this.write(chunk.slice(from, i + 1));
        from = i + 1;
        this.line += 1;
        continue;
      }
      if (!this.nesting.open && char !== "[" && char !== " " && char !== "\t" && char !== "\r") {
        this.write(chunk.slice(from, i));
        this.textLine = char;
        continue;
      }
      const stepped = this.nesting.step(char);
      if (stepped === "[" && this.nesting.depth === 1) this.arrays += 1;
      if (!this.nesting.open) {
        // A list ends: the parser gets it whole, and what follows may be text.
        this.write(chunk.slice(from, i + 1));
        from = i + 1;
        if (stepped === "]") this.endList();
      }
    }
    if (this.textLine === null) this.write(chunk.slice(from));
  }

  /** Text between the lists, kept as the tool's own error; there must be a list somewhere. */
  private endTextLine(): void {
    const text = (this.textLine ?? "").replace(/\r$/, "").trim();
    this.textLine = null;
    if (text === "") return;
    const error = { runIndex: 0, message: text, path: null, line: null };
    this.held.push({ files: new Set(), errors: [error] });
  }

  /** A compilation's list is read: its files were analyzed, or its errors wait for the end. */
  private endList(): void {
    this.releaseLastResult();
    this.noteMayFollow = false;
    const { files, errors } = this.list;
    if (errors.length === 0) for (const file of files) this.compiled.add(file);
    else this.held.push(this.list);
    this.list = { files: new Set(), errors: [] };
  }

  /**
   * The tool's errors, in the order read; the first of a failed compilation's also names the
   * other files its list names that no compilation without an error named.
   */
  private releaseErrors(): void {
    for (const { files, errors } of this.held) {
      const own = new Set(errors.map((error) => error.unanalyzedPath));
      const others = [...files].filter((file) => !own.has(file) && !this.compiled.has(file));
      const first = errors[0];
      if (first !== undefined && others.length > 0) first.alsoUnanalyzed = others;
      for (const error of errors) this.events.push({ type: "toolError", error });
    }
    this.held.length = 0;
  }

  end(): void {
    if (this.textLine !== null) this.endTextLine();
    if (this.nesting.open) {
      throw new GccFormatError(
        "INVALID_JSON",
        `line ${this.line}: the text ends inside a list of diagnostics: the report looks truncated.`,
      );
    }
    if (this.arrays === 0) {
      throw new GccFormatError(
        "NOT_GCC",
        "it has no list of diagnostics: GCC writes a JSON list for each file it compiles (gcc -fdiagnostics-format=json … 2> gcc.json).",
      );
    }
    this.releaseLastResult();
    this.releaseErrors();
  }

  private releaseLastResult(): void {
    if (this.lastResult !== null) this.events.push({ type: "result", result: this.lastResult });
    this.lastResult = null;
  }

  private write(text: string): void {
    if (text === "") return;
    try {
      this.parser.write(text);
    } catch (error) {
      if (error instanceof GccFormatError) throw error;
      throw new GccFormatError("INVALID_JSON", `line ${this.line}: not valid JSON.`);
    }
  }

  private structure(message: string): never {
    throw new GccFormatError("INVALID_STRUCTURE", `line ${this.line}: ${message}`);
  }

  /** One diagnostic of a list: a finding, or the compiler's own error. */
  private onDiagnostic(info: ParsedElementInfo): void {
    const diagnostic = info.value;
    const kind = isRecord(diagnostic) ? diagnostic.kind : undefined;
    if (typeof kind !== "string" || kind === "") {
      if (this.diagnostics === 0) {
        // The first item already is not GCC's: say what was expected rather than what is wrong.
        throw new GccFormatError(
          "NOT_GCC",
          `line ${this.line}: it is a JSON list whose items are not GCC's diagnostics (objects with a "kind"); the only list read as findings is GCC's (-fdiagnostics-format=json), other tools' findings are read as SARIF 2.1.0.`,
        );
      }
      this.structure(isRecord(diagnostic) ? 'a diagnostic has no "kind".' : "a diagnostic is not an object.");
    }
    this.diagnostics += 1;
    const { message, option } = diagnostic as Record<string, unknown>;
    if (typeof message !== "string") this.structure(`a diagnostic (${kind.slice(0, 40)}) has no "message".`);
    const record = diagnostic as Record<string, unknown>;
    const locations = this.locationsOf(record.locations, null);
    const children = (Array.isArray(record.children) ? record.children : []).filter(isRecord);
    const notes = children.flatMap((child) =>
      this.locationsOf(child.locations, typeof child.message === "string" ? child.message : null),
    );
    for (const place of [...locations, ...notes])
      if (!place.outsideRepository && place.path) this.list.files.add(place.path);
    if (kind === "note" && option === undefined && this.noteMayFollow) {
      // The note of the item before it: a place related to that finding (or to an error), not a
      // finding of its own.
      this.lastResult?.relatedLocations.push(...this.locationsOf(record.locations, message), ...notes);
      return;
    }
    this.releaseLastResult();
    this.noteMayFollow = true;
    const named = typeof option === "string" && option.startsWith("-W") ? option : null;
    const level = kind === "error" && named !== null ? "error" : LEVEL_OF_KIND[kind];
    if (level === undefined) {
      // Code that does not compile, a fatal or internal error: the file was not analyzed.
      const first = locations[0];
      const error: SarifToolError = {
        runIndex: 0,
        message: message.slice(0, MAX_TOOL_ERROR),
        path: first === undefined ? null : first.outsideRepository ? first.uri : first.path,
        line: first?.region?.startLine ?? null,
      };
      if (first !== undefined && !first.outsideRepository && first.path) error.unanalyzedPath = first.path;
      this.list.errors.push(error);
      return;
    }
    const cwe = isRecord(record.metadata) ? positiveInteger(record.metadata.cwe) : null;
    const result = plainResult({
      index: this.results,
      // `-Werror=unused-variable` is the warning `-Wunused-variable` made an error.
      ruleId: named === null ? kind : named.replace(/^-Werror=/, "-W"),
      level,
      ownLevel: level,
      taxa: cwe === null ? [] : [{ id: String(cwe), taxonomy: "CWE" }],
      message,
      locations: locations.slice(0, 1),
      relatedLocations: [...locations.slice(1), ...notes],
    });
    const repeatOf = this.firstOf(result);
    if (repeatOf !== null) result.repeatOf = repeatOf;
    this.results += 1;
    this.lastResult = result;
  }

  /**
   * The index of an earlier result with the same rule, message and place as `result`, or null
   * (then `result` is remembered as the first). The place is the resolved path, so a header reached
   * through two include paths (`src/../include/a.h`, `include/a.h`) is one place; the level is not
   * part of it, as in the fingerprint (a warning made an error in one file only stays one finding).
   */
  private firstOf(result: SarifResult): number | null {
    const first = result.locations[0];
    const place =
      first === undefined
        ? null
        : [first.path ?? first.uri, first.region?.startLine, first.region?.startColumn];
    // A hash, not the text: the memory for each distinct warning stays small whatever its message.
    const identity = createHash("sha256")
      .update(JSON.stringify([result.ruleId, result.message, place]))
      .digest("base64");
    const earlier = this.distinct.get(identity);
    if (earlier !== undefined) return earlier;
    this.distinct.set(identity, result.index);
    return null;
  }

  /** A diagnostic's `locations`: each caret (where GCC points, as its text output does) to its finish. */
  private locationsOf(raw: unknown, message: string | null): SarifLocation[] {
    if (!Array.isArray(raw)) return [];
    return raw.filter(isRecord).flatMap((location) => {
      const caret = isRecord(location.caret) ? location.caret : null;
      const file = caret !== null && typeof caret.file === "string" ? caret.file : "";
      if (caret === null || file === "") return [];
      const finish = isRecord(location.finish) && location.finish.file === file ? location.finish : null;
      // A location's label is what GCC prints under that place (an argument's type).
      const label = typeof location.label === "string" && location.label !== "" ? location.label : null;
      const place = {
        file,
        line: positiveInteger(caret.line),
        column: positiveInteger(caret.column),
        end:
          finish === null
            ? null
            : { line: positiveInteger(finish.line), column: positiveInteger(finish.column) },
      };
      return [locationOfPlace(place, message ?? label, this.pathContext)];
    });
  }
}
