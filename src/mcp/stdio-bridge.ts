import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  isJSONRPCRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { MCP_PATH } from "./mcp-endpoint.ts";

/**
 * `assay mcp`: MCP over stdio for desktop assistants that start a local process, relaying every
 * message to a server's `/mcp` with the caller's token. The tools, resources and answers are the
 * server's own (no second implementation that could drift from the server's schema), and each
 * message is admitted, rate-limited and logged there like any other API request.
 */

/** JSON-RPC's code for an error of the server ("implementation-defined server error" range). */
const SERVER_ERROR = -32000;

/** Where to relay to, and with which credential. */
export interface BridgeOptions {
  /** The server's base URL, e.g. `https://assay.example.com`. */
  url: string;
  token: string;
  /** The streams to speak MCP on; the process's stdin and stdout by default. */
  stdin?: Readable;
  stdout?: Writable;
  /** Where problems are reported for the human (stderr); never stdout, which carries the protocol. */
  note(line: string): void;
}

/**
 * The `/mcp` URL of a server's base URL, keeping a path prefix (`https://host/assay` relays to
 * `https://host/assay/mcp`, as `assay upload` posts to `<url>/graphql/`).
 */
export function mcpUrl(base: string): URL {
  return new URL(`${base.replace(/\/+$/, "")}${MCP_PATH}`);
}

/** The API's code and message of a refused POST, from the error the client transport raised. */
export function describeRelayError(error: unknown): { code: string; message: string } {
  if (error instanceof StreamableHTTPError) {
    const body = error.message.slice(error.message.indexOf("{"));
    let message = error.message;
    let code: string | undefined;
    try {
      const parsed = JSON.parse(body) as {
        errors?: Array<{ message?: string; extensions?: { code?: string } }>;
      };
      message = parsed.errors?.[0]?.message ?? message;
      code = parsed.errors?.[0]?.extensions?.code;
    } catch {
      // Not the API's JSON (a proxy's page): keep the transport's words.
    }
    const byStatus: Record<number, string> = {
      401: "UNAUTHENTICATED",
      403: "FORBIDDEN",
      429: "RATE_LIMITED",
    };
    return { code: code ?? byStatus[error.code ?? 0] ?? "SERVICE_UNAVAILABLE", message };
  }
  const reason = error instanceof Error ? error.message : String(error);
  return { code: "SERVICE_UNAVAILABLE", message: `The Assay server could not be reached: ${reason}` };
}

/** JSON-RPC's answer to a line it cannot take: `code` -32700 (not JSON) or -32600 (no request). */
function lineError(code: number, message: string, id: string | number | null = null): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage;
}

/**
 * What one stdin line holds: a message to relay, or the JSON-RPC error to answer in its place.
 * Lines MCP's stdio transport could not parse got no answer, so a client waiting on one hung.
 */
export function readLine(line: string): { message: JSONRPCMessage } | { error: JSONRPCMessage } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    return { error: lineError(-32700, `Parse error: ${(error as Error).message}`) };
  }
  if (Array.isArray(parsed)) {
    return {
      error: lineError(
        -32600,
        "Invalid Request: batches are not accepted; send one JSON-RPC message per line.",
      ),
    };
  }
  const checked = JSONRPCMessageSchema.safeParse(parsed);
  if (!checked.success) {
    const id = (parsed as { id?: unknown } | null)?.id;
    const answerable = typeof id === "string" || typeof id === "number" ? id : null;
    return { error: lineError(-32600, "Invalid Request: not a JSON-RPC 2.0 message.", answerable) };
  }
  return { message: checked.data };
}

/**
 * Relays MCP between stdio and the server until stdin closes, then finishes the requests in
 * flight and writes their answers before returning. A request the server refuses (401, 429,
 * unreachable) is answered on stdio as a JSON-RPC error carrying the API's code in `data`; a line
 * that is not a JSON-RPC message is answered with JSON-RPC's own error for it.
 */
export async function runStdioBridge(options: BridgeOptions): Promise<void> {
  const remote = new StreamableHTTPClientTransport(mcpUrl(options.url), {
    requestInit: { headers: { authorization: `Bearer ${options.token}`, "user-agent": "assay-mcp-stdio" } },
  });
  const stdout = options.stdout ?? process.stdout;
  const write = (message: JSONRPCMessage) =>
    new Promise<void>((resolve) => {
      stdout.write(`${JSON.stringify(message)}\n`, () => resolve());
    });
  const writes = new Set<Promise<void>>();
  const answer = (message: JSONRPCMessage) => {
    const written = write(message).finally(() => writes.delete(written));
    writes.add(written);
  };
  remote.onmessage = answer;
  remote.onerror = (error) => options.note(`assay mcp: ${describeRelayError(error).message}`);
  await remote.start();

  // With JSON answers (the server's), a POST's promise settles once its answer was handed to
  // onmessage: waiting for every one of them is waiting for every answer.
  const inFlight = new Set<Promise<void>>();
  const relay = (message: JSONRPCMessage) => {
    const sent = remote
      .send(message)
      .catch((error: unknown) => {
        const { code, message: text } = describeRelayError(error);
        if (!isJSONRPCRequest(message)) {
          options.note(`assay mcp: ${code}: ${text}`);
          return;
        }
        answer({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: SERVER_ERROR, message: `${code}: ${text}`, data: { code } },
        });
      })
      .finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  };

  const lines = createInterface({
    input: options.stdin ?? process.stdin,
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const read = readLine(line);
    if ("error" in read) answer(read.error);
    else relay(read.message);
  }
  // stdin ended (the assistant quit, or a piped file ran out): answer what was asked, then stop.
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  await Promise.allSettled([...writes]);
  await remote.close();
}
