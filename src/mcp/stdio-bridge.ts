import type { Readable, Writable } from "node:stream";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
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

/**
 * Relays MCP between stdio and the server until stdin closes. A request the server refuses (401,
 * 429, unreachable) is answered on stdio as a JSON-RPC error carrying the API's code in `data`.
 */
export async function runStdioBridge(options: BridgeOptions): Promise<void> {
  const remote = new StreamableHTTPClientTransport(new URL(MCP_PATH, options.url), {
    requestInit: { headers: { authorization: `Bearer ${options.token}`, "user-agent": "assay-mcp-stdio" } },
  });
  const local = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    local.onclose = () => resolve();
  });
  remote.onmessage = (message) => {
    void local.send(message);
  };
  remote.onerror = (error) => options.note(`assay mcp: ${describeRelayError(error).message}`);
  local.onmessage = (message: JSONRPCMessage) => {
    remote.send(message).catch((error: unknown) => {
      const { code, message: text } = describeRelayError(error);
      if (!isJSONRPCRequest(message)) {
        options.note(`assay mcp: ${code}: ${text}`);
        return;
      }
      void local.send({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: SERVER_ERROR, message: `${code}: ${text}`, data: { code } },
      });
    });
  };
  await remote.start();
  await local.start();
  // stdin's end (the assistant quit) closes nothing by itself in the SDK's transport.
  (options.stdin ?? process.stdin).once("end", () => void local.close());
  await closed;
  await remote.close();
}
