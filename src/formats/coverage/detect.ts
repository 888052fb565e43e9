import type { CoverageFormat } from "./types.ts";

const HEAD_LENGTH = 64 * 1024;
const LCOV_KEY = /^(TN|SF|VER):/;
const GO_MODE = /^mode:\s*(set|count|atomic)\s*$/;

/**
 * Recognises a report's format from its first 64 KiB, or answers null when it is none of them.
 * Go profiles start with `mode:`; LCOV with a `TN:`, `SF:` or `VER:` line; XML reports by their
 * root element: `<report>` is JaCoCo, and `<coverage>` is Clover when it has a `clover` or
 * `generated` attribute or a `<project>` child, Cobertura when it has Cobertura's rate or count
 * attributes or a `<packages>`/`<sources>` child.
 */
export function detectCoverageFormat(text: string): CoverageFormat | null {
  const head = text.slice(0, HEAD_LENGTH).replace(/^\uFEFF/, "");
  const firstLine = head.trimStart().split(/\r?\n/, 1)[0]?.trim() ?? "";
  if (GO_MODE.test(firstLine)) return "go";
  if (LCOV_KEY.test(firstLine)) return "lcov";
  if (firstLine.startsWith("<")) return detectXml(head);
  return null;
}

function detectXml(head: string): CoverageFormat | null {
  const root = firstElement(head);
  if (root === null) return null;
  if (root.name === "report") return "jacoco";
  if (root.name !== "coverage") return null;
  if (/\s(clover|generated)\s*=/.test(root.tag)) return "clover";
  if (/\s(line-rate|lines-valid|branch-rate)\s*=/.test(root.tag)) return "cobertura";
  const rest = head.slice(root.end);
  const child = firstElement(rest);
  if (child?.name === "project") return "clover";
  if (child?.name === "sources" || child?.name === "packages") return "cobertura";
  return null;
}

/** The first start tag, skipping the XML declaration, comments, processing instructions and DOCTYPE. */
function firstElement(text: string): { name: string; tag: string; end: number } | null {
  let at = 0;
  for (;;) {
    const open = text.indexOf("<", at);
    if (open < 0) return null;
    if (text.startsWith("<!--", open)) {
      const close = text.indexOf("-->", open);
      if (close < 0) return null;
      at = close + 3;
      continue;
    }
    if (text.startsWith("<?", open) || text.startsWith("<!", open)) {
      const close = text.indexOf(">", open);
      if (close < 0) return null;
      at = close + 1;
      continue;
    }
    const match = /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(open, open + 200));
    if (match === null) return null;
    const close = text.indexOf(">", open);
    const end = close < 0 ? text.length : close + 1;
    return { name: match[1]!, tag: text.slice(open, end), end };
  }
}
