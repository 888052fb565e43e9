import { readBanditJson } from "./bandit/reader.ts";
import { readCheckstyleXml } from "./checkstyle/reader.ts";
import { readCppcheckXml } from "./cppcheck/reader.ts";
import { readEslintJson } from "./eslint/reader.ts";
import { readGccJson } from "./gcc/reader.ts";
import { readGoVetJson } from "./govet/reader.ts";
import { isEslintJson, type PythonToolJson, pythonToolOfFirstMember } from "./json-tools.ts";
import { readPylintJson } from "./pylint/reader.ts";
import { withOwnErrors } from "./sarif/own-errors.ts";
import { readSarif, type SarifChunk } from "./sarif/reader.ts";
import type { SarifEvent, SarifRule } from "./sarif/types.ts";
import { isShellcheckGccLine, readShellcheckGcc } from "./shellcheck/gcc-reader.ts";
import { readShellcheckJson, SHELLCHECK_OUTPUTS_READ, ShellcheckFormatError } from "./shellcheck/reader.ts";
import { SNIFF_HEAD_BYTES, xmlRootElement } from "./sniff.ts";

/**
 * The reports an analyzer's findings arrive in: SARIF 2.1.0, cppcheck's XML (cppcheck before
 * 2.16 writes no SARIF), `go vet -json`'s output (vet writes no SARIF) and GCC's JSON diagnostics
 * (GCC before 13 writes no SARIF), checkstyle XML (ShellCheck, Checkstyle, ESLint's formatter,
 * phpcs and other linters), ShellCheck's JSON and gcc lines, Python's linters' JSON (pylint's
 * list of messages and Bandit's report) and ESLint's JSON (`--format json` and
 * `json-with-metadata`). All are read into the SARIF reader's events, so
 * everything after the reader is one path. Which one a report is follows from its head: `<` is
 * XML, checkstyle's when its root element is `<checkstyle>`, else cppcheck's (whose reader names
 * the root it did not expect); `#` the go command's package line that starts vet's output; `[` a
 * list, ShellCheck's json when its first item begins with `"file"`, pylint's with `"type"`,
 * ESLint's with `"filePath"`, else GCC's; `{` whose first member is `"comments"` ShellCheck's
 * json1, `"results"` holding ESLint's files (or an empty list, then `"metadata"`) ESLint's
 * json-with-metadata, one of the keys Bandit sorts first (src/formats/json-tools.ts) Bandit's; a first line `file:line:column: level: message [SCnnnn]`
 * ShellCheck's gcc output (GCC's own text lines end with `[-Wname]`, not `[SCnnnn]`, and stay
 * refused); anything else is read as SARIF (whose reader names the problem when it is not JSON
 * either).
 *
 * Two things the head cannot tell are read from the analyzer the upload names. An empty list
 * (`[]`) is what pylint, ShellCheck's `-f json` and GCC (for one file) all write for a clean run
 * (and ESLint's `--format json` given no file to lint, with `--no-error-on-unmatched-pattern`):
 * it is that tool's when the analyzer is (`pylint`, `shellcheck`, `gcc`, `eslint`, or the
 * catalog's `python`, `shell`, `cxx`, `javascript`), otherwise an "empty JSON list" of no tool (several lists in a row are
 * GCC's). And ShellCheck's outputs that are not findings are refused naming those that are: its
 * `tty` text (told by its `In <file> line <n>:` headers and `SCnnnn (level):` marks), and, under a
 * ShellCheck analyzer, its `diff` (a patch) and `quiet` (nothing at all).
 */

export type FindingsFormat =
  | "sarif"
  | "cppcheck-xml"
  | "go-vet-json"
  | "gcc-json"
  | "checkstyle-xml"
  | "shellcheck-json1"
  | "shellcheck-json"
  | "shellcheck-gcc"
  | PythonToolJson
  | "eslint-json"
  | "empty-list";

/** ShellCheck's outputs that hold no findings to read (`-f tty`, `-f diff`, `-f quiet`). */
export type RefusedOutput = "shellcheck-tty" | "shellcheck-diff" | "shellcheck-quiet";

/** The name recorded on the artifact (`Artifact.format`) for each format. */
export const FINDINGS_FORMAT_NAMES: Readonly<Record<FindingsFormat, string>> = {
  sarif: "SARIF 2.1.0",
  "cppcheck-xml": "cppcheck XML 2",
  "go-vet-json": "go vet JSON",
  "gcc-json": "GCC JSON",
  "checkstyle-xml": "checkstyle XML",
  "shellcheck-json1": "ShellCheck json1",
  "shellcheck-json": "ShellCheck JSON",
  "shellcheck-gcc": "ShellCheck gcc",
  "pylint-json": "pylint JSON",
  "bandit-json": "Bandit JSON",
  "eslint-json": "ESLint JSON",
  "empty-list": "empty JSON list",
};

/**
 * The list format of each analyzer shortcode whose tool writes an empty list for a clean run:
 * the community shortcodes of the tools, and the catalog's analyzers of their languages (of the
 * list formats read, each is the only one of its language).
 */
const EMPTY_LIST_OF_ANALYZER: Readonly<Record<string, FindingsFormat>> = {
  pylint: "pylint-json",
  python: "pylint-json",
  shellcheck: "shellcheck-json",
  shell: "shellcheck-json",
  gcc: "gcc-json",
  cxx: "gcc-json",
  eslint: "eslint-json",
  javascript: "eslint-json",
};

/** Whether an upload under `analyzer` is ShellCheck's (its community shortcode, or the catalog's shell analyzer). */
function isShellcheckAnalyzer(analyzer: string | null | undefined): boolean {
  return analyzer === "shellcheck" || analyzer === "shell";
}

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
  /**
   * The shortcode of the analyzer the report was uploaded under: what tells an empty list's
   * tool, and ShellCheck's `diff` and `quiet` outputs (which the text alone does not).
   */
  analyzer?: string | null;
  /** Told the report's format once it is known, before the first event. */
  onFormat?: (format: FindingsFormat) => void;
  /** SARIF only: also yield the files each run lists (`readSarif`'s option). */
  listedFiles?: boolean;
  /**
   * ESLint's json-with-metadata only: its rules, read before its results (`findEslintRules`,
   * readEslintJson's `rules`).
   */
  eslintRules?: readonly SarifRule[] | null;
}

/**
 * The format of a report whose text begins with `head`, or null while the head is too short to
 * tell (`complete`: the head is all there is, or as much as is looked at, so a guess is made).
 * `analyzer` is the shortcode the report was uploaded under, when known.
 */
export function findingsFormatOf(
  head: string,
  complete: boolean,
  analyzer: string | null = null,
): FindingsFormat | RefusedOutput | null {
  const text = head.replace(/^\uFEFF/, "").trimStart();
  const first = text[0];
  if (first === undefined) {
    if (!complete) return null;
    return isShellcheckAnalyzer(analyzer) ? "shellcheck-quiet" : "sarif";
  }
  if (first === "#") return "go-vet-json";
  if (first === "<") {
    const root = xmlRootElement(text);
    if (root === null) return complete ? "cppcheck-xml" : null;
    return root === "checkstyle" ? "checkstyle-xml" : "cppcheck-xml";
  }
  if (first === "[") return listFormatOf(text, complete, analyzer);
  if (first === "{") {
    const member = /^\{\s*(?:\}|"([^"\\]*)"|[^"\s])/.exec(text);
    if (member === null) return complete ? "sarif" : null;
    if (member[1] === "comments") return "shellcheck-json1";
    if (member[1] === "results") {
      // ESLint's json-with-metadata or Bandit's report: what the list holds tells.
      if (isEslintJson(text)) return "eslint-json";
      if (!complete && text.length < RESULTS_HEAD_CHARACTERS) return null;
    }
    return pythonToolOfFirstMember(member[1] ?? "") ?? "sarif";
  }
  return textFormatOf(text, complete, analyzer);
}

/**
 * How much of a report whose first member is `results` is looked at before it is taken for
 * Bandit's: enough to see, in ESLint's json-with-metadata, the first file's `filePath` or the
 * `metadata` after an empty list.
 */
const RESULTS_HEAD_CHARACTERS = 256;

/**
 * A report that begins with `[`: GCC's lists, ShellCheck's json, pylint's messages, ESLint's
 * linted files, or an empty list.
 */
function listFormatOf(text: string, complete: boolean, analyzer: string | null): FindingsFormat | null {
  // GCC's diagnostics begin with "kind", ShellCheck's comments with "file", pylint's messages
  // with "type", ESLint's files with "filePath".
  const item = /^\[\s*(?:(\])|\{\s*"([^"]*)"|[^{\s])/.exec(text);
  if (item === null) return complete ? "gcc-json" : null;
  if (item[1] === "]") {
    // An empty list: another list after it is GCC's next file; alone, it is no tool's in particular.
    const rest = text.slice(item[0].length).trimStart();
    if (rest !== "") return "gcc-json";
    if (!complete) return null;
    return EMPTY_LIST_OF_ANALYZER[analyzer ?? ""] ?? "empty-list";
  }
  if (item[2] === "file") return "shellcheck-json";
  if (item[2] === "filePath") return "eslint-json";
  return item[2] === "type" ? "pylint-json" : "gcc-json";
}

/** ShellCheck's `tty` output: a header per line with comments, each comment marked `SCnnnn (level):`. */
const SHELLCHECK_TTY_HEADER = /^In .+ line \d+:\r?$/;
const SHELLCHECK_TTY_MARK = /\bSC\d+ \((?:error|warning|info|style)\): /;
/** A unified diff's first hunk, as ShellCheck's `diff` output begins. */
const UNIFIED_DIFF = /^--- .*\r?\n\+\+\+ .*\r?\n@@ /;

/** A report of text lines: ShellCheck's gcc output, or one of its outputs that is not read. */
function textFormatOf(
  text: string,
  complete: boolean,
  analyzer: string | null,
): FindingsFormat | RefusedOutput | null {
  const newline = text.indexOf("\n");
  // The first line must be seen whole.
  if (newline < 0 && !complete) return null;
  const firstLine = newline < 0 ? text : text.slice(0, newline);
  if (isShellcheckGccLine(firstLine)) return "shellcheck-gcc";
  if (SHELLCHECK_TTY_HEADER.test(firstLine)) {
    if (SHELLCHECK_TTY_MARK.test(text)) return "shellcheck-tty";
    if (!complete) return null;
  }
  if (isShellcheckAnalyzer(analyzer) && text.startsWith("--- ")) {
    if (UNIFIED_DIFF.test(text)) return "shellcheck-diff";
    if (!complete && text.split("\n").length < 4) return null;
  }
  return "sarif";
}

/** Why each of ShellCheck's outputs that hold no findings is not read. */
const REFUSALS: Readonly<Record<RefusedOutput, string>> = {
  "shellcheck-tty": `this is ShellCheck's tty output (-f tty), written for people to read, which is not read: upload its ${SHELLCHECK_OUTPUTS_READ} output instead.`,
  "shellcheck-diff": `this is a patch (ShellCheck's -f diff writes its suggested fixes as one), not findings: upload ShellCheck's ${SHELLCHECK_OUTPUTS_READ} output instead.`,
  "shellcheck-quiet": `the report is empty (ShellCheck's -f quiet writes nothing; only its exit status says whether it found anything): upload its ${SHELLCHECK_OUTPUTS_READ} output instead.`,
};

/**
 * Why an empty report uploaded under `analyzer` is not read, when its tool is known to write
 * nothing on purpose (ShellCheck's `-f quiet`); null otherwise.
 */
export function emptyReportRefusal(analyzer: string): string | null {
  return isShellcheckAnalyzer(analyzer.trim().toLowerCase()) ? REFUSALS["shellcheck-quiet"] : null;
}

function isRefused(format: FindingsFormat | RefusedOutput): format is RefusedOutput {
  return format in REFUSALS;
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
  analyzer: string | null,
): Promise<FindingsFormat | RefusedOutput> {
  let text = "";
  for (;;) {
    const next = await iterator.next();
    if (next.done) return findingsFormatOf(text, true, analyzer) ?? "sarif";
    head.push(next.value);
    // A character cut by the chunk's end is read as a replacement: it cannot start a member name.
    text += Buffer.from(next.value.subarray(0, SNIFF_HEAD_BYTES)).toString("utf8");
    const format = findingsFormatOf(text, text.length >= SNIFF_HEAD_BYTES, analyzer);
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
  const format = await formatOfHead(iterator, head, options.analyzer?.trim().toLowerCase() || null);
  if (isRefused(format)) throw new ShellcheckFormatError("NOT_READ", REFUSALS[format]);
  async function* replayed(): AsyncGenerator<Uint8Array> {
    yield* head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  options.onFormat?.(format);
  const readerOptions = { workDir: options.workDir, directory: options.directory ?? null };
  if (format === "cppcheck-xml") yield* readCppcheckXml(replayed(), readerOptions);
  else if (format === "go-vet-json") yield* readGoVetJson(replayed(), readerOptions);
  // An empty list of no tool in particular: GCC's reader reads lists, and yields only its run.
  else if (format === "gcc-json" || format === "empty-list") yield* readGccJson(replayed(), readerOptions);
  else if (format === "checkstyle-xml") yield* readCheckstyleXml(replayed(), readerOptions);
  else if (format === "shellcheck-json1")
    yield* readShellcheckJson(replayed(), { ...readerOptions, form: "json1" });
  else if (format === "shellcheck-json")
    yield* readShellcheckJson(replayed(), { ...readerOptions, form: "json" });
  else if (format === "shellcheck-gcc") yield* readShellcheckGcc(replayed(), readerOptions);
  else if (format === "pylint-json") yield* readPylintJson(replayed(), readerOptions);
  else if (format === "bandit-json") yield* readBanditJson(replayed(), readerOptions);
  else if (format === "eslint-json")
    yield* readEslintJson(replayed(), {
      ...readerOptions,
      listedFiles: options.listedFiles,
      rules: options.eslintRules,
    });
  else
    yield* withOwnErrors(
      readSarif(replayed(), {
        ...readerOptions,
        workingDirectories: options.workingDirectories,
        listedFiles: options.listedFiles,
      }),
    );
}
