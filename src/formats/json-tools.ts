/**
 * Which tool's own JSON a report is, from its first members (pure; shared by the findings reader's
 * dispatch and the format sniffer): pylint's list of messages, whose first member is `type`
 * (`pylint --output-format=json`), or Bandit's report, whose keys Bandit sorts (`errors`,
 * `generated_at`, `metrics`, `results`; `bandit -f json`), none of which a SARIF log starts with.
 * pylint 3's `json2` (an object whose first member is `messages`) counts as pylint's, so that its
 * reader can say that it is not read.
 */

export type PythonToolJson = "pylint-json" | "bandit-json";

/** The tool whose JSON `head` (the report's start) is, or null. */
export function pythonToolJsonOf(head: string): PythonToolJson | null {
  const text = head.replace(/^\uFEFF/, "");
  if (/^\s*(?:\[\s*\{\s*"type"\s*:\s*"|\{\s*"messages"\s*:)/.test(text)) return "pylint-json";
  if (/^\s*\{\s*"(?:errors|generated_at|metrics|results)"\s*:/.test(text)) return "bandit-json";
  return null;
}
