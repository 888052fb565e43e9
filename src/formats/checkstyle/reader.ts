import { TextDecoder } from "node:util";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { plainResult } from "../plain-result.ts";
import { locationOfPlace } from "../sarif/paths.ts";
import type { SarifChunk } from "../sarif/reader.ts";
import {
  MAX_TOOL_ERROR,
  type SarifEvent,
  type SarifLevel,
  type SarifTool,
  type SarifToolError,
} from "../sarif/types.ts";
import { type CheckstyleProducer, producedRuleOf, TOOL_OF_PRODUCER } from "./producers.ts";

/**
 * The checkstyle XML report, an interchange format many linters write (Checkstyle itself,
 * ShellCheck `-f checkstyle`, ESLint's checkstyle formatter, `phpcs --report=checkstyle`,
 * ktlint, hadolint…), read as a stream into the events the SARIF reader yields
 * (docs/ingestion-checkstyle.md), so that processing, classification and the upload's checks
 * are the same as for SARIF:
 *
 *   <checkstyle version="8.36.1">
 *     <file name="src/Ledger.java">
 *       <error line="4" column="8" severity="error" message="Unused import - java.util.HashMap."
 *              source="com.puppycrawl.tools.checkstyle.checks.imports.UnusedImportsCheck"/>
 *     </file>
 *   </checkstyle>
 *
 * One result per `<error>`, at the place its `<file>` and `line`/`column` name. Which tool wrote
 * it follows from its `source` (producers.ts): each tool met gets a run of its own, named as the
 * tool-family table knows it, yielded before its first result; a report without errors is one run
 * of the tool `checkstyle-xml`. The severity becomes the level (error → error, warning → warning,
 * info → note, ignore → none) and `properties.severity`. An `<error>` whose source is the tool's
 * own failure (Checkstyle's TreeWalker, phpcs' `Internal.*`) or empty (ESLint's parse error) and
 * Checkstyle's `<exception>` are the tool's own errors: that file was not analyzed; ESLint's
 * unused `eslint-disable` directive (empty source too) is an error about its configuration.
 *
 * A DOCTYPE with an internal subset is refused: the format has none, and entities it declares
 * would be a way to make a small upload expand into a large text.
 */

/** Which rule of the format a document broke. */
export type CheckstyleFormatProblem = "INVALID_XML" | "NOT_CHECKSTYLE" | "INVALID_STRUCTURE" | "TRUNCATED";

/** A checkstyle XML report the reader cannot accept; the message says what is wrong and on which line. */
export class CheckstyleFormatError extends Error {
  override name = "CheckstyleFormatError";
  constructor(
    readonly problem: CheckstyleFormatProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The severities of the format (Checkstyle's SeverityLevel), as levels. */
const LEVEL_OF_SEVERITY: Readonly<Record<string, SarifLevel>> = {
  error: "error",
  warning: "warning",
  info: "note",
  ignore: "none",
};

/** ESLint's message for a directive that silences nothing (`reportUnusedDisableDirectives`). */
const UNUSED_DIRECTIVE = /^Unused eslint-(?:disable|enable) directive/;

export interface CheckstyleReadOptions {
  /** The directory the tool ran in: relative and absolute paths are resolved against it. */
  workDir: string | null;
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts): relative paths are read from it.
   */
  directory?: string | null;
}

/** A positive integer attribute, or null when it is absent, zero or not a number. */
function positive(value: string | undefined): number | null {
  if (value === undefined || !/^\d+$/.test(value.trim())) return null;
  const number = Number(value);
  return number > 0 && Number.isSafeInteger(number) ? number : null;
}

/** The events of one report: runs opened as their tools are met. */
class CheckstyleEvents {
  readonly pending: SarifEvent[] = [];
  private readonly runs = new Map<CheckstyleProducer, number>();
  private results = 0;

  /** The run of `producer`, yielded the first time it is asked for. */
  runOf(producer: CheckstyleProducer, version: string | null): number {
    const known = this.runs.get(producer);
    if (known !== undefined) return known;
    const index = this.runs.size;
    const { name, informationUri } = TOOL_OF_PRODUCER[producer];
    // Only Checkstyle and phpcs write their own version as the root's; ESLint and ShellCheck write the format's.
    const ownVersion = producer === "checkstyle" || producer === "phpcs" ? version : null;
    const tool: SarifTool = { name, version: ownVersion, informationUri, rules: [], extensions: [] };
    this.runs.set(producer, index);
    this.pending.push({ type: "run", run: { index, tool } });
    return index;
  }

  get hasRun(): boolean {
    return this.runs.size > 0;
  }

  nextResultIndex(): number {
    return this.results++;
  }
}

/**
 * Reads a checkstyle XML report chunk by chunk. Throws {@link CheckstyleFormatError} naming the
 * line of the first problem. Like the SARIF reader, an iteration is all or nothing: a problem
 * found late fails it after earlier results were yielded.
 */
export async function* readCheckstyleXml(
  chunks: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: CheckstyleReadOptions,
): AsyncGenerator<SarifEvent> {
  const parser = new SaxesParser({ position: true, xmlns: false });
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const events = new CheckstyleEvents();
  const open: string[] = [];
  const pathContext = {
    workDir: options.workDir,
    originalUriBaseIds: {},
    workingDirectory: options.directory ?? null,
  };
  let version: string | null = null;
  let sawRoot = false;
  let closedRoot = false;
  let atEnd = false;
  let file: string | null = null;
  /** The text of a Checkstyle `<exception>` being read, or null outside one. */
  let exception: string | null = null;

  const fail = (problem: CheckstyleFormatProblem, message: string): never => {
    throw new CheckstyleFormatError(problem, `line ${parser.line}: ${message}`);
  };
  /** The producer of the report's last rule, whose run a tool error of no source is filed in. */
  let lastProducer: CheckstyleProducer | null = null;
  const toolError = (
    producer: CheckstyleProducer | null,
    message: string,
    line: number | null,
    configuration = false,
  ) => {
    // A tool error of no known producer opens no run of its own (its run index is not read).
    const runIndex = producer === null ? 0 : events.runOf(producer, version);
    const where = file === null ? null : locationOfPlace({ file, line, column: null }, null, pathContext);
    const error: SarifToolError = {
      runIndex,
      message: message.slice(0, MAX_TOOL_ERROR),
      path: where === null ? null : where.outsideRepository ? where.uri : where.path,
      line,
    };
    if (configuration) error.configuration = true;
    // The file the tool failed on was not analyzed (docs/ingestion.md "Status").
    else if (where !== null && !where.outsideRepository && where.path) error.unanalyzedPath = where.path;
    events.pending.push({ type: "toolError", error });
  };
  const onError = (attributes: Record<string, string>) => {
    if (file === null) fail("INVALID_STRUCTURE", "an <error> is outside a <file>.");
    const severity = (attributes.severity ?? "").trim().toLowerCase();
    const level = LEVEL_OF_SEVERITY[severity];
    if (level === undefined) {
      fail(
        "INVALID_STRUCTURE",
        `an <error> in "${file!.slice(0, 200)}" has severity "${(attributes.severity ?? "").slice(0, 40)}"; the format's severities are error, warning, info and ignore.`,
      );
    }
    const message = attributes.message ?? "";
    const line = positive(attributes.line);
    const source = (attributes.source ?? "").trim();
    const produced = producedRuleOf(source);
    if (produced.ruleId === null) {
      // No source: ESLint's problem of no rule, a parse error or an unused directive (about its configuration).
      const unnamed = source === "";
      const configuration = unnamed && UNUSED_DIRECTIVE.test(message);
      toolError(unnamed ? lastProducer : produced.producer, message || source, line, configuration);
      return;
    }
    lastProducer = produced.producer;
    const runIndex = events.runOf(produced.producer, version);
    const place = { file: file!, line, column: positive(attributes.column) };
    const result = plainResult({
      runIndex,
      index: events.nextResultIndex(),
      ruleId: produced.ruleId,
      level: level!,
      ownLevel: level!,
      properties: { strings: { severity, ...produced.properties } },
      message: message || produced.ruleId,
      locations: [locationOfPlace(place, null, pathContext)],
    });
    events.pending.push({ type: "result", result });
  };

  parser.on("error", (error) => {
    if (atEnd && !sawRoot) fail("INVALID_XML", "the document is empty: it has no <checkstyle> element.");
    if (atEnd) fail("TRUNCATED", truncatedMessage(open));
    fail("INVALID_XML", `invalid XML: ${error.message.replace(/^(?:[^:\n]*:)?\d+:\d+: /, "")}`);
  });
  parser.on("doctype", (doctype) => {
    if (doctype.includes("[")) {
      fail(
        "INVALID_XML",
        "the document declares a DOCTYPE with an internal subset (entities); a checkstyle report has none, and they are not read.",
      );
    }
  });
  parser.on("opentag", (tag: SaxesTagPlain) => {
    const attributes = tag.attributes;
    if (!sawRoot) {
      sawRoot = true;
      if (tag.name !== "checkstyle") {
        fail(
          "NOT_CHECKSTYLE",
          `it is XML with the root element <${tag.name.slice(0, 80)}>, not a checkstyle report (<checkstyle>).`,
        );
      }
      version = attributes.version?.slice(0, 80) || null;
    } else if (closedRoot) {
      fail("INVALID_XML", "content after the closing </checkstyle>.");
    } else if (tag.name === "file" && open.length === 1) {
      file = attributes.name ?? "";
      if (file.trim() === "") fail("INVALID_STRUCTURE", "a <file> has no name attribute.");
    } else if (tag.name === "error" && open.length === 2 && open[1] === "file") {
      onError(attributes);
    } else if (tag.name === "error") {
      fail("INVALID_STRUCTURE", "an <error> is outside a <file>.");
    } else if (tag.name === "exception" && (open.at(-1) === "file" || open.length === 1)) {
      // Inside the <file> it could not read, or on its own under the root.
      exception = "";
    }
    open.push(tag.name);
  });
  const onText = (text: string) => {
    if (exception !== null && exception.length < MAX_TOOL_ERROR) exception += text;
  };
  parser.on("text", onText);
  parser.on("cdata", onText);
  parser.on("closetag", (tag) => {
    open.pop();
    if (tag.name === "exception" && exception !== null) {
      // Checkstyle could not parse the file (its stack trace): the file was not analyzed.
      toolError("checkstyle", exception.trim() || "an exception", null);
      exception = null;
    }
    if (tag.name === "file" && open.length === 1) file = null;
    if (open.length === 0) closedRoot = true;
  });

  // The decoder drops a leading byte order mark; whitespace before the XML declaration (which a
  // shell redirect may add) is dropped too, so the declaration still comes first.
  let started = false;
  for await (const chunk of chunks) {
    let text = decode(decoder, typeof chunk === "string" ? Buffer.from(chunk) : chunk, false);
    if (!started) {
      text = text.trimStart();
      started = text !== "";
    }
    parser.write(text);
    yield* events.pending.splice(0);
  }
  parser.write(decode(decoder, new Uint8Array(), true));
  atEnd = true;
  parser.close();
  if (!sawRoot)
    throw new CheckstyleFormatError("INVALID_XML", "the document is empty: it has no <checkstyle> element.");
  if (!closedRoot) throw new CheckstyleFormatError("TRUNCATED", truncatedMessage(open));
  if (!events.hasRun) events.runOf("other", version);
  yield* events.pending.splice(0);
}

function decode(decoder: TextDecoder, bytes: Uint8Array, last: boolean): string {
  try {
    return decoder.decode(bytes, { stream: !last });
  } catch {
    throw new CheckstyleFormatError("INVALID_XML", "the report is not valid UTF-8 text.");
  }
}

function truncatedMessage(open: readonly string[]): string {
  const inside = open.length > 1 ? ` (inside <${open.at(-1)}>)` : "";
  return `the document ends before <checkstyle> is closed${inside}: it looks truncated.`;
}
