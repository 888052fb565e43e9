import type { ServerResponse } from "node:http";

/** JSON over HTTP, shared by the GraphQL endpoints and the server's own routes. */

export const JSON_TYPE = "application/json; charset=utf-8";

/** Sends `body` as JSON with `status` and `headers`. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": JSON_TYPE, "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** `application/json`, with no charset or UTF-8: the only request bodies the endpoints read. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [mediaType, ...parameters] = header
    .toLowerCase()
    .split(";")
    .map((part) => part.trim());
  if (mediaType !== "application/json") return false;
  const charset = parameters.find((p) => p.startsWith("charset="));
  return charset === undefined || charset === "charset=utf-8";
}

/**
 * Why `JSON.parse` refused a body, without the excerpt of it V8 quotes (`Unexpected token 'a',
 * "{"accessToken":"…"... is not valid JSON`): a request body may hold a token or a report, and an
 * error message never repeats either. The position, where V8 gives one, stays.
 */
export function jsonSyntaxReason(error: unknown): string {
  const message = error instanceof Error ? error.message : "invalid JSON";
  // V8: `Unexpected token 'a', "abc" is not valid JSON`, or `"…"... is not valid JSON` when cut.
  return message.replace(/, "[\s\S]*"(?:\.\.\.)? is not valid JSON$/, "");
}
