/**
 * How an export URL is shown in logs, CLI output and messages: scheme, host and path, with any
 * query string elided. A mirror's URL may carry a signed query (a bucket's temporary credentials),
 * which is a secret; the path is enough to tell sources apart.
 */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search === "" ? "" : "?…"}`;
  } catch {
    return "(not a URL)";
  }
}
