/**
 * Which tool's own JSON a report is, from its first members (pure; shared by the findings reader's
 * dispatch and the format sniffer): ESLint's list of linted files (see {@link isEslintJson}),
 * pylint's list of messages, whose first member is `type` (`pylint --output-format=json`), or
 * Bandit's report, whose keys Bandit sorts (`errors`, `generated_at`, `metrics`, `results`;
 * `bandit -f json`), none of which a SARIF log starts with. pylint 3's `json2` (an object whose
 * first member is `messages`) counts as pylint's too.
 */

export type PythonToolJson = "pylint-json" | "bandit-json";

/** The keys Bandit writes first (it sorts them; which ones it writes depends on its version). */
const BANDIT_FIRST_MEMBERS = new Set(["errors", "generated_at", "metrics", "results"]);

/**
 * The tool whose JSON object begins with the member `name`, or null: Bandit's report, or pylint
 * 3's json2 (`messages`).
 */
export function pythonToolOfFirstMember(name: string): PythonToolJson | null {
  if (name === "messages") return "pylint-json";
  return BANDIT_FIRST_MEMBERS.has(name) ? "bandit-json" : null;
}

/** The tool whose JSON `head` (the report's start) is, or null. */
export function pythonToolJsonOf(head: string): PythonToolJson | null {
  const text = head.replace(/^\uFEFF/, "");
  if (/^\s*\[\s*\{\s*"type"\s*:\s*"/.test(text)) return "pylint-json";
  const member = /^\s*\{\s*"([^"\\]*)"\s*:/.exec(text);
  return member === null ? null : pythonToolOfFirstMember(member[1] ?? "");
}

/**
 * ESLint's JSON outputs: `--format json`, a list of linted files each beginning with its
 * `filePath`; `--format json-with-metadata`, an object of that list under `results` (then its
 * `metadata`), which no Bandit report is (Bandit's `results` are objects beginning with `code`, or
 * an empty list, and it sorts `errors`, `generated_at` and `metrics` before them).
 */
const ESLINT_JSON = /^\s*(?:\[|\{\s*"results"\s*:\s*\[)\s*\{\s*"filePath"\s*:/;
const ESLINT_JSON_WITH_METADATA_EMPTY = /^\s*\{\s*"results"\s*:\s*\[\s*\]\s*,\s*"metadata"\s*:/;

/** Whether `head` (the report's start) is ESLint's JSON, as far as it shows. */
export function isEslintJson(head: string): boolean {
  const text = head.replace(/^\uFEFF/, "");
  return ESLINT_JSON.test(text) || ESLINT_JSON_WITH_METADATA_EMPTY.test(text);
}
