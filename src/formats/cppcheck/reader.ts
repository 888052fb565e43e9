import { TextDecoder } from "node:util";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { plainResult } from "../plain-result.ts";
import { locationOfPlace } from "../sarif/paths.ts";
import type { SarifChunk } from "../sarif/reader.ts";
import type {
  SarifEvent,
  SarifLevel,
  SarifLocation,
  SarifProperties,
  SarifResult,
  SarifTool,
} from "../sarif/types.ts";

/**
 * cppcheck's XML report (`cppcheck --xml`, format version 2, the only one cppcheck 2.x writes),
 * read as a stream into the events the SARIF reader yields (docs/ingestion-sarif.md "cppcheck
 * XML"), so that processing, classification and the upload's checks are the same for both.
 *
 *   <results version="2">
 *     <cppcheck version="2.10"/>
 *     <errors>
 *       <error id="nullPointer" severity="error" msg="…" verbose="…" cwe="476" inconclusive="true">
 *         <location file="src/a.c" line="27" column="10" info="Null pointer dereference"/>
 *         <location file="src/a.c" line="24" column="12" info="Assuming that …"/>
 *         <symbol>item</symbol>
 *       </error>
 *     </errors>
 *   </results>
 *
 * One run (the tool `cppcheck`, which describes no rules: each error's `id` is its rule, filed
 * from its first finding); one result per `<error>`. The first `<location>` is where cppcheck
 * reports the error (its text output's `file:line:column`), the others are the path that led
 * there, kept as related locations with their `info`. cppcheck's severity becomes the level
 * (error → error, warning → warning, the others → note) and, as `properties.severity`, what the
 * tool-family table reads; `cwe` a CWE taxon; `inconclusive="true"` precision `low`. Paths are
 * resolved like SARIF's: relative to the directory cppcheck ran in (the upload's `workDir`).
 */

/** Which rule of the format a document broke. */
export type CppcheckFormatProblem =
  | "INVALID_XML"
  | "NOT_CPPCHECK"
  | "UNSUPPORTED_VERSION"
  | "INVALID_STRUCTURE"
  | "TRUNCATED";

/** A cppcheck XML report the reader cannot accept; the message says what is wrong and on which line. */
export class CppcheckFormatError extends Error {
  override name = "CppcheckFormatError";
  constructor(
    readonly problem: CppcheckFormatProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The severities cppcheck writes (`Severity` in its sources), as levels. */
const LEVEL_OF_SEVERITY: Readonly<Record<string, SarifLevel>> = {
  error: "error",
  warning: "warning",
  style: "note",
  performance: "note",
  portability: "note",
  information: "note",
  debug: "note",
  internal: "note",
  none: "note",
};

export interface CppcheckReadOptions {
  /** The directory cppcheck ran in: relative and absolute paths are resolved against it. */
  workDir: string | null;
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts): relative paths are read from it.
   */
  directory?: string | null;
}

function propertiesOf(severity: string, inconclusive: boolean, cwe: string | null): SarifProperties {
  const strings: Record<string, string> = { severity };
  if (cwe !== null) strings.cwe = cwe;
  return {
    tags: [],
    securitySeverity: null,
    precision: inconclusive ? "low" : null,
    problemSeverity: null,
    strings,
  };
}

/** A positive integer attribute, or null when it is absent, zero (cppcheck's "unknown") or not a number. */
function positive(value: string | undefined): number | null {
  if (value === undefined || !/^\d+$/.test(value.trim())) return null;
  const number = Number(value);
  return number > 0 && Number.isSafeInteger(number) ? number : null;
}

/**
 * Reads a cppcheck XML report chunk by chunk. Yields the run before any result; throws
 * {@link CppcheckFormatError} naming the line of the first problem. Like the SARIF reader, an
 * iteration is all or nothing: a problem found late fails it after earlier results were yielded.
 */
export async function* readCppcheckXml(
  chunks: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: CppcheckReadOptions,
): AsyncGenerator<SarifEvent> {
  const parser = new SaxesParser({ position: true, xmlns: false });
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const pending: SarifEvent[] = [];
  const open: string[] = [];
  const pathContext = {
    workDir: options.workDir,
    originalUriBaseIds: {},
    workingDirectory: options.directory ?? null,
  };
  let sawRoot = false;
  let closedRoot = false;
  let atEnd = false;
  let tool: SarifTool | null = null;
  /** The result of the `<error>` being read, completed as its `<location>` children arrive. */
  let current: SarifResult | null = null;
  let results = 0;

  const fail = (problem: CppcheckFormatProblem, message: string): never => {
    throw new CppcheckFormatError(problem, `line ${parser.line}: ${message}`);
  };
  /** Yields the run once, before the first result (or at the end of a report without errors). */
  const startRun = (version: string | null = null) => {
    if (tool !== null) return;
    tool = {
      name: "cppcheck",
      version,
      informationUri: "https://cppcheck.sourceforge.io",
      rules: [],
      extensions: [],
    };
    pending.push({ type: "run", run: { index: 0, tool } });
  };
  const location = (attributes: Record<string, string>): SarifLocation => {
    const file = attributes.file ?? "";
    if (file === "") fail("INVALID_STRUCTURE", "a <location> has no file attribute.");
    const place = { file, line: positive(attributes.line), column: positive(attributes.column) };
    return locationOfPlace(place, attributes.info || null, pathContext);
  };

  parser.on("error", (error) => {
    if (atEnd && !sawRoot) fail("INVALID_XML", "the document is empty: it has no <results> element.");
    if (atEnd) fail("TRUNCATED", truncatedMessage(open));
    fail("INVALID_XML", `invalid XML: ${error.message.replace(/^(?:[^:\n]*:)?\d+:\d+: /, "")}`);
  });
  parser.on("opentag", (tag: SaxesTagPlain) => {
    const attributes = tag.attributes;
    if (!sawRoot) {
      sawRoot = true;
      if (tag.name !== "results")
        fail(
          "NOT_CPPCHECK",
          `it is XML with the root element <${tag.name.slice(0, 80)}>, and the XML findings reports read are cppcheck's (<results>, from cppcheck --xml) and checkstyle's (<checkstyle>); other tools' findings are read as SARIF 2.1.0.`,
        );
      if (attributes.version !== "2") {
        fail(
          "UNSUPPORTED_VERSION",
          attributes.version === undefined
            ? "<results> has no version attribute; cppcheck 1.x's XML version 1 is not read: run cppcheck 2 with --xml."
            : `the XML format version is "${attributes.version.slice(0, 40)}"; only version 2 (cppcheck --xml) is read.`,
        );
      }
    } else if (closedRoot) {
      fail("INVALID_XML", "content after the closing </results>.");
    } else if (tag.name === "cppcheck" && open.length === 1 && tool === null) {
      startRun(attributes.version ?? null);
    } else if (tag.name === "errors" && open.length === 1) {
      startRun();
    } else if (tag.name === "error" && open.at(-1) === "errors") {
      startRun();
      const id = attributes.id ?? "";
      if (id === "") fail("INVALID_STRUCTURE", "an <error> has no id attribute.");
      const severity = attributes.severity ?? "";
      const level = LEVEL_OF_SEVERITY[severity];
      if (level === undefined) {
        fail(
          "INVALID_STRUCTURE",
          `<error id="${id.slice(0, 80)}"> has severity "${severity.slice(0, 40)}"; cppcheck writes error, warning, style, performance, portability or information.`,
        );
      }
      const cwe = positive(attributes.cwe);
      current = plainResult({
        index: results,
        ruleId: id,
        level: level!,
        ownLevel: level!,
        properties: propertiesOf(
          severity,
          attributes.inconclusive === "true",
          cwe === null ? null : String(cwe),
        ),
        taxa: cwe === null ? [] : [{ id: String(cwe), taxonomy: "CWE" }],
        message: attributes.msg || attributes.verbose || id,
        locations: [],
      });
      results += 1;
    } else if (tag.name === "location" && current !== null && open.at(-1) === "error") {
      const found = location(attributes);
      if (current.locations.length === 0) current.locations.push(found);
      else current.relatedLocations.push(found);
    }
    open.push(tag.name);
  });
  parser.on("closetag", (tag) => {
    open.pop();
    if (tag.name === "error" && current !== null && open.at(-1) === "errors") {
      pending.push({ type: "result", result: current });
      current = null;
    }
    if (open.length === 0) {
      closedRoot = true;
      startRun();
    }
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
    yield* pending.splice(0);
  }
  parser.write(decode(decoder, new Uint8Array(), true));
  atEnd = true;
  parser.close();
  if (!sawRoot)
    throw new CppcheckFormatError("INVALID_XML", "the document is empty: it has no <results> element.");
  if (!closedRoot) throw new CppcheckFormatError("TRUNCATED", truncatedMessage(open));
  yield* pending.splice(0);
}

function decode(decoder: TextDecoder, bytes: Uint8Array, last: boolean): string {
  try {
    return decoder.decode(bytes, { stream: !last });
  } catch {
    throw new CppcheckFormatError("INVALID_XML", "the report is not valid UTF-8 text.");
  }
}

function truncatedMessage(open: readonly string[]): string {
  const inside = open.length > 1 ? ` (inside <${open.at(-1)}>)` : "";
  return `the document ends before <results> is closed${inside}: it looks truncated.`;
}
