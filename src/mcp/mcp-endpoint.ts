import type { IncomingMessage, ServerResponse } from "node:http";
import type { Viewer } from "../graphql/context.ts";
import {
  AssayError,
  badRequest,
  ErrorCode,
  errorDocument,
  forbidden,
  internalError,
  payloadTooLarge,
  unsupportedMediaType,
} from "../graphql/errors.ts";
import { parseBearer } from "../http/bearer.ts";
import { BodyError, readBody } from "../http/body.ts";
import { type AdmissionDeps, admitAnonymous, admitUser, sendUnauthorized } from "../http/caller-admission.ts";
import type { OperationRunner, RequestAuthenticator, RequestRecord } from "../http/graphql-endpoint.ts";
import { isJsonContentType, sendJson } from "../http/json.ts";
import type { RateLimiter } from "../http/rate-limit.ts";
import type { Logger } from "../logger.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { McpDocuments } from "./resources.ts";
import type { ToolBackend } from "./tool-kit.ts";

/** The path of the MCP endpoint (Streamable HTTP transport). */
export const MCP_PATH = "/mcp";

/** The paths the MCP endpoint answers: with and without the trailing slash, as `/graphql` does. */
export const MCP_PATHS: ReadonlySet<string> = new Set([MCP_PATH, `${MCP_PATH}/`]);

/** What the MCP endpoint needs: the GraphQL endpoint's authenticator, limiter and runner. */
export interface McpEndpointDeps {
  authenticator: RequestAuthenticator;
  rateLimiter: RateLimiter;
  /** Runs the tools' operations in-process, as the caller (src/http/graphql-endpoint.ts). */
  runner: OperationRunner;
  documents: McpDocuments;
  maxBodyBytes: number;
  trustProxy: boolean;
  logger: Logger;
  metrics?: Metrics;
}

/**
 * The MCP SDK, zod and our tools' definitions, loaded on the first MCP request rather than with the
 * server: a server nobody asks over MCP keeps about 17 MB less (docs/benchmarks.md).
 */
let mcpModules:
  | Promise<{
      Transport: typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js").StreamableHTTPServerTransport;
      createServer: typeof import("./mcp-server.ts").createAssayMcpServer;
    }>
  | undefined;

function loadMcpModules() {
  mcpModules ??= Promise.all([
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("./mcp-server.ts"),
  ]).then(([transport, server]) => ({
    Transport: transport.StreamableHTTPServerTransport,
    createServer: server.createAssayMcpServer,
  }));
  // A failed load is tried again by the next request, not kept for every one after it.
  mcpModules.catch(() => {
    mcpModules = undefined;
  });
  return mcpModules;
}

/** JSON-RPC's answer to a body that is not JSON (MCP messages are JSON-RPC 2.0). */
function parseErrorBody(message: string): unknown {
  return { jsonrpc: "2.0", error: { code: -32700, message: `Parse error: ${message}` }, id: null };
}

/** JSON-RPC's answer to a body that is JSON but no request it can take (-32600 Invalid Request). */
function invalidRequestBody(message: string): unknown {
  return { jsonrpc: "2.0", error: { code: -32600, message: `Invalid Request: ${message}` }, id: null };
}

/** The tools' backend for one request: the caller's operations, run in-process. */
function inProcessBackend(deps: McpEndpointDeps, viewer: Viewer, requestId: string): ToolBackend {
  return {
    run: (query, variables) => deps.runner(viewer, requestId, query, variables),
    unexpected(error) {
      deps.logger.error({ requestId, err: error }, "MCP tool failed");
      return internalError(requestId).message;
    },
  };
}

/**
 * True when the request may go on as far as its `Origin` goes: none sent (what non-browser
 * clients do), or the origin of the host it was sent to. The Streamable HTTP transport's spec
 * requires servers to check it: a page on another origin that rebinds a DNS name to this server
 * would otherwise reach it from the user's browser.
 */
function isOwnOrigin(req: IncomingMessage, trustProxy: boolean): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  const forwarded = trustProxy ? req.headers["x-forwarded-host"] : undefined;
  const own = [req.headers.host, ...(typeof forwarded === "string" ? forwarded.split(",") : [])];
  return own.some((candidate) => candidate !== undefined && candidate.trim().toLowerCase() === host);
}

/** `method` (and the tool's name) of a JSON-RPC request body, for the request's log line. */
function describeMessage(body: unknown): string | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  if (typeof method !== "string") return undefined;
  const name = method === "tools/call" && typeof params?.name === "string" ? ` ${params.name}` : "";
  return `mcp ${method}${name}`.slice(0, 100);
}

/**
 * Builds the handler of {@link MCP_PATH}: MCP over the Streamable HTTP transport, stateless (every
 * POST carries one JSON-RPC message and is answered with JSON; no session, no server-sent
 * stream), so any instance behind a load balancer can answer any request. A request is admitted
 * exactly as a GraphQL request is: the same bearer credentials, 401 and per-user rate limit (one
 * MCP request counts as one API request).
 */
export function createMcpEndpoint(deps: McpEndpointDeps) {
  const admission: AdmissionDeps = {
    rateLimiter: deps.rateLimiter,
    trustProxy: deps.trustProxy,
    metrics: deps.metrics,
  };

  return async function handleMcp(
    req: IncomingMessage,
    res: ServerResponse,
    record: RequestRecord,
  ): Promise<void> {
    if (req.method !== "POST") {
      // Stateless: there is no stream to open with GET and no session to end with DELETE. The
      // transport's spec lets a server answer 405 to both; clients then stay on POST.
      const error = new AssayError(
        `Method ${req.method} is not allowed; MCP requests are sent with POST.`,
        ErrorCode.METHOD_NOT_ALLOWED,
      );
      return sendJson(res, 405, errorDocument(error), { allow: "POST" });
    }
    if (!isOwnOrigin(req, deps.trustProxy)) {
      const error = forbidden(
        `Origin ${String(req.headers.origin).slice(0, 200)} is not this server's: /mcp answers requests from its own origin or without an Origin header.`,
      );
      return sendJson(res, 403, errorDocument(error));
    }
    const identity = await deps.authenticator.authenticate(parseBearer(req.headers.authorization));
    if (typeof identity === "string") {
      if (!(await admitAnonymous(req, res, admission))) return;
      return sendUnauthorized(res, identity);
    }
    record.userId = identity.userId;
    const headers = await admitUser(identity, res, admission);
    if (!headers) return;

    if (!isJsonContentType(req.headers["content-type"])) {
      return sendJson(res, 415, errorDocument(unsupportedMediaType(req.headers["content-type"])), headers);
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, deps.maxBodyBytes));
    } catch (error) {
      if (error instanceof BodyError && error.reason === "aborted") {
        res.destroy();
        return;
      }
      if (error instanceof BodyError) {
        return sendJson(res, 413, errorDocument(payloadTooLarge(deps.maxBodyBytes)), {
          ...headers,
          connection: "close",
        });
      }
      if (error instanceof SyntaxError) return sendJson(res, 400, parseErrorBody(error.message), headers);
      throw error;
    }
    record.operationName = describeMessage(body);
    // MCP 2025-06-18 removed JSON-RPC batching. Refused whole, before anything in it runs: a batch
    // would otherwise run up to its every call for the one request admission counted above.
    if (Array.isArray(body)) {
      return sendJson(
        res,
        400,
        invalidRequestBody(
          "batches are not accepted; send one JSON-RPC message per request (MCP 2025-06-18).",
        ),
        headers,
      );
    }
    if (body === null || typeof body !== "object") {
      return sendJson(res, 400, errorDocument(badRequest("The body must be a JSON-RPC message.")), headers);
    }
    if ((body as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
      return sendJson(
        res,
        400,
        invalidRequestBody('not a JSON-RPC 2.0 message (`"jsonrpc": "2.0"`).'),
        headers,
      );
    }

    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    const { Transport, createServer } = await loadMcpModules();
    const server = createServer(inProcessBackend(deps, identity, record.requestId), deps.documents);
    const transport = new Transport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.once("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}
