import { parse, TomlError } from "smol-toml";
import { CONFIG_MAX_BYTES } from "./limits.ts";

/**
 * A repository's `.deepsource.toml`, read as DeepSource documents it (docs.deepsource.com,
 * ".deepsource.toml"; docs/ingestion.md "The repository's configuration"):
 *
 *   version = 1                          # mandatory, the only version there is
 *   exclude_patterns = ["vendor/**"]     # optional, globs
 *   test_patterns = ["tests/**"]         # optional, globs
 *
 *   [[analyzers]]                        # mandatory, at least one
 *   name = "python"                      # mandatory, the analyzer's shortcode
 *   enabled = true                       # optional, true when left out
 *     [analyzers.meta]                   # optional, the analyzer's own options
 *     runtime_version = "3.x.x"
 *
 *   [[transformers]]                     # optional (`code_formatters` is its newer name)
 *   name = "black"
 *   enabled = true
 *
 * Keys DeepSource does not document are kept (an analyzer's `dependency_file_paths`, options
 * written beside `name` as older files do) and, at the top level, named so the uploader hears of
 * a typo. The text is parsed by smol-toml (TOML 1.0); the answer is the document as JSON, which is
 * what `Repository.configJson` serves.
 */

export { CONFIG_MAX_BYTES };

/** The top-level keys DeepSource documents. */
const DOCUMENTED_KEYS = new Set([
  "version",
  "analyzers",
  "transformers",
  "code_formatters",
  "exclude_patterns",
  "test_patterns",
]);

/** A configuration that cannot be accepted; the message names the problem and, when known, its line. */
export class RepositoryConfigError extends Error {
  override name = "RepositoryConfigError";
}

/** A configuration that was read. */
export interface RepositoryConfig {
  /** The document as JSON (TOML dates as ISO 8601 strings). */
  json: Record<string, unknown>;
  /** Top-level keys DeepSource does not document, in the document's order. */
  undocumentedKeys: string[];
}

/** Reads a `.deepsource.toml`; throws {@link RepositoryConfigError} naming what is wrong. */
export function readRepositoryConfig(text: string): RepositoryConfig {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > CONFIG_MAX_BYTES) {
    throw new RepositoryConfigError(
      `.deepsource.toml is ${bytes} bytes; at most ${CONFIG_MAX_BYTES} are accepted`,
    );
  }
  let document: Record<string, unknown>;
  try {
    document = parse(text, { unsafeKeyBehaviour: "throw", maxDepth: 64 });
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    throw new RepositoryConfigError(
      `.deepsource.toml is not valid TOML at line ${error.line}, column ${error.column}: ${tomlProblem(error)}`,
    );
  }
  const json = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
  checkShape(json, new Locator(text));
  return { json, undocumentedKeys: Object.keys(json).filter((key) => !DOCUMENTED_KEYS.has(key)) };
}

/**
 * The names of the analyzers a configuration (as JSON) turns on, in its order, each once: entries
 * of its `analyzers` list with a string `name` whose `enabled` is not `false`. Empty without a list.
 */
export function enabledAnalyzerNames(config: unknown): string[] {
  const analyzers = isTable(config) ? config.analyzers : undefined;
  if (!Array.isArray(analyzers)) return [];
  const names: string[] = [];
  for (const entry of analyzers) {
    if (!isTable(entry)) continue;
    const { name, enabled } = entry;
    if (typeof name === "string" && enabled !== false && !names.includes(name)) names.push(name);
  }
  return names;
}

/** The parser's complaint without its code excerpt: `invalid value`. */
function tomlProblem(error: TomlError): string {
  const first = error.message.split("\n")[0] ?? "";
  return first.replace(/^Invalid TOML document:\s*/, "") || "unreadable";
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value as the message quotes it. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (isTable(value)) return "a table";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Finds where a key or an array-of-tables entry was written, for messages about the shape. */
class Locator {
  private readonly lines: string[];
  constructor(text: string) {
    this.lines = text.split(/\r?\n/);
  }

  /** ` (line N)` for a top-level `key = ...` written before any table header; "" otherwise. */
  ofKey(key: string): string {
    const pattern = new RegExp(`^\\s*("?)${escaped(key)}\\1\\s*=`);
    for (const [index, line] of this.lines.entries()) {
      if (/^\s*\[/.test(line)) return "";
      if (pattern.test(line)) return ` (line ${index + 1})`;
    }
    return "";
  }

  /** ` (line N)`: the header `[[table]]` of entry `index`, when every entry was written with one. */
  ofEntry(table: string, index: number, count: number): string {
    const pattern = new RegExp(`^\\s*\\[\\[\\s*("?)${escaped(table)}\\1\\s*\\]\\]`);
    const headers = this.lines.flatMap((line, at) => (pattern.test(line) ? [at + 1] : []));
    return headers.length === count && headers[index] !== undefined ? ` (line ${headers[index]})` : "";
  }
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Throws {@link RepositoryConfigError} for the first way `config` departs from the documented shape. */
function checkShape(config: Record<string, unknown>, where: Locator): void {
  const fail = (message: string): never => {
    throw new RepositoryConfigError(`.deepsource.toml: ${message}`);
  };
  if (!("version" in config)) fail("version is missing: the file must say version = 1");
  if (config.version !== 1) fail(`version must be 1, got ${shown(config.version)}${where.ofKey("version")}`);
  if (!("analyzers" in config)) {
    fail('analyzers is missing: add an [[analyzers]] entry with name = "<shortcode>" for each analyzer');
  }
  checkEntries(config, "analyzers", true, where, fail);
  checkEntries(config, "transformers", false, where, fail);
  checkEntries(config, "code_formatters", false, where, fail);
  for (const key of ["exclude_patterns", "test_patterns"]) {
    if (!(key in config)) continue;
    const patterns = config[key];
    if (!Array.isArray(patterns)) fail(`${key} must be an array of glob patterns${where.ofKey(key)}`);
    const bad = (patterns as unknown[]).findIndex((pattern) => typeof pattern !== "string");
    if (bad >= 0) {
      fail(
        `${key}[${bad}] must be a glob pattern (a string), got ${shown((patterns as unknown[])[bad])}${where.ofKey(key)}`,
      );
    }
  }
}

/** Checks an array of tables whose entries have a `name` and an optional `enabled` (and `meta`). */
function checkEntries(
  config: Record<string, unknown>,
  table: string,
  required: boolean,
  where: Locator,
  fail: (message: string) => never,
): void {
  if (!(table in config)) return;
  const entries = config[table];
  if (!Array.isArray(entries)) {
    fail(
      `${table} must be an array of tables ([[${table}]] entries), got ${shown(entries)}${where.ofKey(table)}`,
    );
  }
  const list = entries as unknown[];
  if (required && list.length === 0) fail(`${table} is empty: list at least one [[${table}]] entry`);
  for (const [index, entry] of list.entries()) {
    const at = where.ofEntry(table, index, list.length);
    if (!isTable(entry)) fail(`${table}[${index}] must be a table, got ${shown(entry)}${at}`);
    const { name, enabled, meta } = entry as Record<string, unknown>;
    if (name === undefined)
      fail(`${table}[${index}] has no name: each entry needs name = "<shortcode>"${at}`);
    if (typeof name !== "string" || name.trim() === "") {
      fail(`${table}[${index}].name must be a shortcode (a non-empty string), got ${shown(name)}${at}`);
    }
    if (enabled !== undefined && typeof enabled !== "boolean") {
      fail(`${table}[${index}].enabled must be true or false, got ${shown(enabled)}${at}`);
    }
    if (table === "analyzers" && meta !== undefined && !isTable(meta)) {
      fail(`${table}[${index}].meta must be a table ([analyzers.meta]), got ${shown(meta)}${at}`);
    }
  }
}
