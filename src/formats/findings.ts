import { readBanditJson } from "./bandit/reader.ts";
import { readCheckstyleXml } from "./checkstyle/reader.ts";
import { readCppcheckXml } from "./cppcheck/reader.ts";
import { readGccJson } from "./gcc/reader.ts";
import { readGoVetJson } from "./govet/reader.ts";
import { type PythonToolJson, pythonToolOfFirstMember } from "./json-tools.ts";
import { readPylintJson } from "./pylint/reader.ts";
import { readSarif, type SarifChunk } from "./sarif/reader.ts";
import type { SarifEvent } from "./sarif/types.ts";
import { readShellcheckJson } from "./shellcheck/reader.ts";
import { SNIFF_HEAD_BYTES, xmlRootElement } from "./sniff.ts";

/**
 * The reports an analyzer's findings arrive in: SARIF 2.1.0, cppcheck's XML (cppcheck before
 * 2.16 writes no SARIF), `go vet -json`'s output (vet writes no SARIF) and GCC's JSON diagnostics
 * (GCC before 13 writes no SARIF), checkstyle XML (ShellCheck, Checkstyle, ESLint's formatter,
 * phpcs and other linters), ShellCheck's JSON, and Python's linters' JSON: pylint's list of
 * messages and Bandit's report. All are read into the SARIF reader's events, so
 * everything after the reader is one path. Which one a report is follows from its head: `<` is
 * XML, checkstyle's when its root element is `<checkstyle>`, else cppcheck's (whose reader names
 * the root it did not expect); `#` the go command's package line that starts vet's output; `[` a
 * list, ShellCheck's json when its first item begins with `"file"`, pylint's with `"type"`, else
 * GCC's; `{` whose first member is `"comments"` ShellCheck's json1, one of the keys Bandit sorts first
 * (src/formats/json-tools.ts) Bandit's; anything else is read as SARIF (whose reader names
 * the problem when it is not JSON either).
 */

export type FindingsFormat =
  | "sarif"
  | "cppcheck-xml"
  | "go-vet-json"
  | "gcc-json"
  | "checkstyle-xml"
  | "shellcheck-json1"
  | "shellcheck-json"
  | PythonToolJson;

/** The name recorded on the artifact (`Artifact.format`) for each format. */
export const FINDINGS_FORMAT_NAMES: Readonly<Record<FindingsFormat, string>> = {
  sarif: "SARIF 2.1.0",
  "cppcheck-xml": "cppcheck XML 2",
  "go-vet-json": "go vet JSON",
  "gcc-json": "GCC JSON",
  "checkstyle-xml": "checkstyle XML",
  "shellcheck-json1": "ShellCheck json1",
  "shellcheck-json": "ShellCheck JSON",
  "pylint-json": "pylint JSON",
  "bandit-json": "Bandit JSON",
};

export interface FindingsReadOptions {
  /** The directory the tool ran in, which absolute paths are made relative to. */
  workDir: string | null;
  /** SARIF only: the directory each run's tool ran in, in `workDir` (`readSarif`'s option). */
  workingDirectories?: ReadonlyMap<number, string>;
  /**
   * The repository-relative directory the report was made in, when not the root
   * (src/formats/report-placement.ts): relative paths are read from it.
   */
  directory?: string | null;
  /** Told the report's format once it is known, before the first event. */
  onFormat?: (format: FindingsFormat) => void;
}

/**
 * The format of a report whose text begins with `head`, or null while the head is too short to
 * tell (`complete`: the head is all there is, or as much as is looked at, so a guess is made).
 */
export function findingsFormatOf(head: string, complete: boolean): FindingsFormat | null {
  const text = head.replace(/^\uFEFF/, "").trimStart();
  const first = text[0];
  if (first === undefined) return complete ? "sarif" : null;
  if (first === "#") return "go-vet-json";
  if (first === "<") {
    const root = xmlRootElement(text);
    if (root === null) return complete ? "cppcheck-xml" : null;
    return root === "checkstyle" ? "checkstyle-xml" : "cppcheck-xml";
  }
  if (first === "[") {
    // GCC's diagnostics begin with "kind", ShellCheck's comments with "file", pylint's messages with "type".
    const item = /^\[\s*(?:\]|\{\s*"([^"]*)"|[^{\s])/.exec(text);
    if (item === null) return complete ? "gcc-json" : null;
    if (item[1] === "file") return "shellcheck-json";
    return item[1] === "type" ? "pylint-json" : "gcc-json";
  }
  if (first === "{") {
    const member = /^\{\s*(?:\}|"([^"\\]*)"|[^"\s])/.exec(text);
    if (member === null) return complete ? "sarif" : null;
    if (member[1] === "comments") return "shellcheck-json1";
    return pythonToolOfFirstMember(member[1] ?? "") ?? "sarif";
  }
  return "sarif";
}

async function* bytesOf(
  source: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) yield typeof chunk === "string" ? Buffer.from(chunk) : chunk;
}

/**
 * Reads `iterator` into `head` until the head tells the report's format (at most
 * {@link SNIFF_HEAD_BYTES} of text are looked at), and returns it.
 */
async function formatOfHead(
  iterator: AsyncIterator<Uint8Array>,
  head: Uint8Array[],
): Promise<FindingsFormat> {
  let text = "";
  for (;;) {
    const next = await iterator.next();
    if (next.done) return findingsFormatOf(text, true) ?? "sarif";
    head.push(next.value);
    // A character cut by the chunk's end is read as a replacement: it cannot start a member name.
    text += Buffer.from(next.value.subarray(0, SNIFF_HEAD_BYTES)).toString("utf8");
    const format = findingsFormatOf(text, text.length >= SNIFF_HEAD_BYTES);
    if (format !== null) return format;
  }
}

/** Reads a findings report of any of the formats, telling `onFormat` which it is. */
export async function* readFindings(
  source: AsyncIterable<SarifChunk> | Iterable<SarifChunk>,
  options: FindingsReadOptions,
): AsyncGenerator<SarifEvent> {
  const iterator = bytesOf(source);
  const head: Uint8Array[] = [];
  const format = await formatOfHead(iterator, head);
  async function* replayed(): AsyncGenerator<Uint8Array> {
    yield* head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  options.onFormat?.(format);
  const readerOptions = { workDir: options.workDir, directory: options.directory ?? null };
  if (format === "cppcheck-xml") yield* readCppcheckXml(replayed(), readerOptions);
  else if (format === "go-vet-json") yield* readGoVetJson(replayed(), readerOptions);
  else if (format === "gcc-json") yield* readGccJson(replayed(), readerOptions);
  else if (format === "checkstyle-xml") yield* readCheckstyleXml(replayed(), readerOptions);
  else if (format === "shellcheck-json1")
    yield* readShellcheckJson(replayed(), { ...readerOptions, form: "json1" });
  else if (format === "shellcheck-json")
    yield* readShellcheckJson(replayed(), { ...readerOptions, form: "json" });
  else if (format === "pylint-json") yield* readPylintJson(replayed(), readerOptions);
  else if (format === "bandit-json") yield* readBanditJson(replayed(), readerOptions);
  else yield* readSarif(replayed(), { ...readerOptions, workingDirectories: options.workingDirectories });
}
