import { type ParsedTokenInfo, Tokenizer, TokenType } from "@streamparser/json";
import { detectCoverageFormat } from "./coverage/detect.ts";
import type { CoverageFormat } from "./coverage/types.ts";
import { isEslintJson, pythonToolJsonOf } from "./json-tools.ts";
import { isShellcheckGccLine } from "./shellcheck/gcc-reader.ts";

/**
 * Tells which kind of report a text is from its first bytes, so that an upload sent with the wrong
 * analyzer can be told what it sent ("this looks like an LCOV coverage report, not SARIF") instead
 * of the parser's complaint about its first byte. A guess from the head only: it never validates,
 * and a text it names still has to parse as that format. Pure: no I/O.
 */

/** How much of a report the sniffer looks at. */
export const SNIFF_HEAD_BYTES = 64 * 1024;

/** What a report looks like. */
export type SniffedFormat =
  | "sarif"
  | "cppcheck-xml"
  | "go-vet-json"
  | "gcc-json"
  | "checkstyle-xml"
  | "shellcheck-json1"
  | "shellcheck-json"
  | "shellcheck-gcc"
  | "pylint-json"
  | "bandit-json"
  | "eslint-json"
  | "lcov"
  | "cobertura"
  | "clover"
  | "jacoco"
  | "go-cover"
  | "cyclonedx-json"
  | "cyclonedx-xml"
  | "spdx-json"
  | "spdx-tag-value"
  | "unified-diff"
  | "line-ranges"
  | "json"
  | "xml"
  | "empty"
  | "unknown";

/** What an upload of that format is meant for: the analyzer family that reads it. */
export type FormatFamily = "findings" | "coverage" | "sbom" | "changes" | "other";

/** A sniffed format, with its family and how a sentence names it. */
export interface Sniffed {
  format: SniffedFormat;
  family: FormatFamily;
  /** With its article: "an LCOV coverage report", "a CycloneDX SBOM (JSON)". */
  description: string;
}

const DESCRIPTIONS: Record<SniffedFormat, [FormatFamily, string]> = {
  sarif: ["findings", "a SARIF log"],
  "cppcheck-xml": ["findings", "a cppcheck XML report"],
  "go-vet-json": ["findings", "go vet's JSON output"],
  "gcc-json": ["findings", "GCC's JSON diagnostics"],
  "checkstyle-xml": ["findings", "a checkstyle XML report"],
  "shellcheck-json1": ["findings", "ShellCheck's json1 output"],
  "shellcheck-json": ["findings", "ShellCheck's JSON output"],
  "shellcheck-gcc": ["findings", "ShellCheck's gcc output"],
  "pylint-json": ["findings", "pylint's JSON output"],
  "bandit-json": ["findings", "a Bandit JSON report"],
  "eslint-json": ["findings", "ESLint's JSON output"],
  lcov: ["coverage", "an LCOV coverage report"],
  cobertura: ["coverage", "a Cobertura coverage report"],
  clover: ["coverage", "a Clover coverage report"],
  jacoco: ["coverage", "a JaCoCo coverage report"],
  "go-cover": ["coverage", "a Go cover profile"],
  "cyclonedx-json": ["sbom", "a CycloneDX SBOM (JSON)"],
  "cyclonedx-xml": ["sbom", "a CycloneDX SBOM (XML)"],
  "spdx-json": ["sbom", "an SPDX SBOM (JSON)"],
  "spdx-tag-value": ["sbom", "an SPDX SBOM (tag-value)"],
  "unified-diff": ["changes", "a unified diff"],
  "line-ranges": ["changes", "changed line ranges (JSON)"],
  json: ["other", "JSON of an unknown kind"],
  xml: ["other", "XML of an unknown kind"],
  empty: ["other", "an empty text"],
  unknown: ["other", "text of an unknown kind"],
};

const COVERAGE: Record<CoverageFormat, SniffedFormat> = {
  lcov: "lcov",
  cobertura: "cobertura",
  clover: "clover",
  jacoco: "jacoco",
  go: "go-cover",
};

/** A top-level JSON member as the head shows it: a scalar's value, or the kind of container. */
type TopLevelValue = string | number | boolean | null | { container: "object" | "array" };

/** The format of a report whose text begins with `head` (at most {@link SNIFF_HEAD_BYTES} are read). */
export function sniffFormat(head: string): Sniffed {
  const format = sniffedFormatOf(head.slice(0, SNIFF_HEAD_BYTES).replace(/^\uFEFF/, ""));
  const [family, description] = DESCRIPTIONS[format];
  return { format, family, description };
}

function sniffedFormatOf(text: string): SniffedFormat {
  const start = text.trimStart();
  if (start === "") return "empty";
  if (start.startsWith("{") || start.startsWith("[")) return jsonFormatOf(start);
  const coverage = detectCoverageFormat(start);
  if (coverage !== null) return COVERAGE[coverage];
  if (start.startsWith("<")) {
    const root = xmlRootElement(start);
    if (root === "bom") return "cyclonedx-xml";
    if (root === "checkstyle") return "checkstyle-xml";
    return root === "results" ? "cppcheck-xml" : "xml";
  }
  if (/^SPDXVersion:\s*SPDX-/m.test(start.slice(0, 4096))) return "spdx-tag-value";
  if (looksLikeGoVet(start)) return "go-vet-json";
  if (isShellcheckGccLine(start.split("\n", 1)[0] ?? "")) return "shellcheck-gcc";
  if (looksLikeDiff(start)) return "unified-diff";
  return "unknown";
}

/**
 * `go vet -json`'s output: the go command's `# <package>` line, then the package's JSON object
 * (`{` alone, or `{}`) or vet's `vet: …` error on the next line.
 */
function looksLikeGoVet(text: string): boolean {
  return /^# \S+(?: \[[^\]]+\])?\r?\n(?:\{|vet: )/.test(text);
}

/** Which JSON document this is, by its top-level members. */
function jsonFormatOf(text: string): SniffedFormat {
  // GCC's -fdiagnostics-format=json: a list of diagnostics, each an object whose first member is its kind.
  if (/^\[\s*(?:\]|\{\s*"kind"\s*:\s*")/.test(text)) return "gcc-json";
  // ShellCheck's -f json: a list of comments, each beginning with its file.
  if (/^\[\s*\{\s*"file"\s*:/.test(text)) return "shellcheck-json";
  if (isEslintJson(text)) return "eslint-json";
  const pythonTool = pythonToolJsonOf(text);
  if (pythonTool !== null) return pythonTool;
  const members = topLevelMembers(text);
  if (members === null) return "json";
  const schema = members.get("$schema");
  const schemaText = typeof schema === "string" ? schema.toLowerCase() : "";
  if (members.get("bomFormat") === "CycloneDX" || schemaText.includes("cyclonedx")) return "cyclonedx-json";
  const spdx = members.get("spdxVersion");
  if (typeof spdx === "string" && spdx.startsWith("SPDX-")) return "spdx-json";
  if (schemaText.includes("sarif") || isContainer(members.get("runs"), "array")) return "sarif";
  if (isContainer(members.get("comments"), "array")) return "shellcheck-json1";
  // coverage.py's JSON report has `files` too, after its `meta`: no line ranges.
  if (isContainer(members.get("files"), "object") && !members.has("meta")) return "line-ranges";
  return "json";
}

function isContainer(value: TopLevelValue | undefined, kind: "object" | "array"): boolean {
  return typeof value === "object" && value !== null && value.container === kind;
}

/**
 * The members of a top-level JSON object, as far as `text` shows them (a head cut anywhere, or
 * a document invalid further on, gives the members before that point); null when the document
 * is not an object.
 */
function topLevelMembers(text: string): Map<string, TopLevelValue> | null {
  const members = new Map<string, TopLevelValue>();
  const tokenizer = new Tokenizer();
  let depth = 0;
  let isObject: boolean | null = null;
  let key: string | null = null;
  let expectingValue = false;
  tokenizer.onToken = (token: ParsedTokenInfo) => {
    if (isObject === null) isObject = token.token === TokenType.LEFT_BRACE;
    if (token.token === TokenType.LEFT_BRACE || token.token === TokenType.LEFT_BRACKET) {
      if (depth === 1 && expectingValue && key !== null) {
        members.set(key, { container: token.token === TokenType.LEFT_BRACE ? "object" : "array" });
        expectingValue = false;
      }
      depth += 1;
    } else if (token.token === TokenType.RIGHT_BRACE || token.token === TokenType.RIGHT_BRACKET) {
      depth -= 1;
    } else if (depth === 1 && token.token === TokenType.COLON) {
      expectingValue = true;
    } else if (depth === 1 && expectingValue && key !== null) {
      members.set(key, token.value as string | number | boolean | null);
      expectingValue = false;
    } else if (depth === 1 && token.token === TokenType.STRING) {
      key = String(token.value);
    }
  };
  try {
    tokenizer.write(text);
  } catch {
    // The head ends mid-token or the document is invalid further on: what was read is enough.
  }
  return isObject === true ? members : null;
}

/**
 * The name of the first element, after the XML declaration, processing instructions, comments and
 * a DOCTYPE (with its internal subset); null when `text` ends before it.
 */
export function xmlRootElement(text: string): string | null {
  const rest = text.replace(
    /^(?:\s*(?:<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^[>]*\[[\s\S]*?\]\s*>|<![^>]*>))*\s*/,
    "",
  );
  // The name must be seen to end: a head cut inside it does not tell it.
  return /^<([A-Za-z_][\w.:-]*)(?=[\s/>])/.exec(rest)?.[1] ?? null;
}

/** A unified diff: `git diff` output, or `---`/`+++` file headers followed by a hunk. */
function looksLikeDiff(text: string): boolean {
  const firstLine = text.split(/\r?\n/, 1)[0] ?? "";
  if (/^(diff --git |diff -|Index: )/.test(firstLine)) return true;
  return /^--- .*\r?\n\+\+\+ .*\r?\n@@ /m.test(text);
}
