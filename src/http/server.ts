import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { AssayError, ErrorCode, errorDocument, internalError, notFound } from "../graphql/errors.ts";
import { CLI_GRAPHQL_PATHS } from "../ingestion/cli-endpoint.ts";
import type { Logger } from "../logger.ts";
import { renderDevicePage } from "../modules/auth/device-page.ts";
import { PAT_PREFIX } from "../modules/auth/pat.ts";
import { createCliDownload, isCliPackagePath, type ServedCliPackage } from "./cli-download.ts";
import type { RequestRecord } from "./graphql-endpoint.ts";
import { sendJson } from "./json.ts";

/**
 * Paths the GraphQL endpoint answers on: the cloud form and the on-premise form, and the same two
 * for the artifact endpoint of the contract's CLI (`/graphql/cli/`), which the GraphQL route hands
 * to its own handler.
 */
const GRAPHQL_PATHS = new Set([
  "/graphql",
  "/graphql/",
  "/api/graphql",
  "/api/graphql/",
  ...CLI_GRAPHQL_PATHS,
]);
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#1f6f5c"/><path d="M18 46 32 16l14 30h-7l-7-15-7 15z" fill="#fff"/></svg>`;

/**
 * True for an incoming x-request-id we may echo and log: short, plain characters, and not a
 * personal access token pasted into the wrong header (it would end up in the log).
 */
function isUsableRequestId(value: string | string[] | undefined): value is string {
  return typeof value === "string" && REQUEST_ID_PATTERN.test(value) && !value.startsWith(PAT_PREFIX);
}

/**
 * `GET /device`: the page a device login's `verificationUri` opens, explaining how to approve the
 * code in `?user_code=`. Sent with no caching and no referrer, since its URL may hold that code.
 */
function sendDevicePage(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    const error = new AssayError(
      `Method ${req.method} is not allowed; use GET.`,
      ErrorCode.METHOD_NOT_ALLOWED,
    );
    sendJson(res, 405, errorDocument(error), { allow: "GET, HEAD" });
    return;
  }
  const userCode = new URL(req.url ?? "/", "http://localhost").searchParams.get("user_code");
  const html = renderDevicePage(userCode);
  res.writeHead(200, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(html),
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  });
  res.end(req.method === "HEAD" ? undefined : html);
}

/** What the server routes to. */
export interface ServerRoutes {
  graphql(req: IncomingMessage, res: ServerResponse, record: RequestRecord): Promise<void>;
  /** Readiness of dependencies: each named check true when it answers. */
  readiness(): Promise<Record<string, "up" | "down" | "not configured">>;
  /** Builds the standalone CLI package served at `/cli/assay-cli.tgz`; called at most once when it succeeds. */
  cliPackage(): Promise<ServedCliPackage>;
}

/** A running HTTP server that can stop gracefully. */
export interface AssayServer {
  server: http.Server;
  /** Stops accepting connections and waits (up to `timeoutMs`) for in-flight requests. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Creates the HTTP server: GraphQL at both endpoint paths (and the CLI's artifact endpoint),
 * `/healthz`, `/readyz`, the device login page `/device` and the CLI package `/cli/assay-cli.tgz`
 * without authentication, and one JSON log line per request.
 */
export function createServer(routes: ServerRoutes, logger: Logger): AssayServer {
  let inFlight = 0;
  const cliDownload = createCliDownload(routes.cliPackage, logger);
  let draining: (() => void) | undefined;

  const server = http.createServer(async (req, res) => {
    const started = performance.now();
    const incomingId = req.headers["x-request-id"];
    const requestId = isUsableRequestId(incomingId) ? incomingId : randomUUID();
    const record: RequestRecord = { requestId };
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    res.setHeader("x-request-id", requestId);
    inFlight += 1;
    try {
      if (GRAPHQL_PATHS.has(path)) {
        await routes.graphql(req, res, record);
      } else if (path === "/healthz") {
        sendJson(res, 200, { status: "ok" });
      } else if (path === "/readyz") {
        const checks = await routes.readiness();
        const ready = Object.values(checks).every((state) => state !== "down");
        sendJson(res, ready ? 200 : 503, { status: ready ? "ready" : "not ready", checks });
      } else if (path === "/device") {
        sendDevicePage(req, res);
      } else if (isCliPackagePath(path)) {
        await cliDownload(req, res, path);
      } else if (path === "/static/logo.svg") {
        res.writeHead(200, { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" });
        res.end(LOGO_SVG);
      } else {
        sendJson(
          res,
          404,
          errorDocument(notFound(`No route for ${path}; the GraphQL endpoint is /graphql/.`)),
        );
      }
    } catch (error) {
      logger.error({ requestId, err: error }, "request failed");
      if (!res.headersSent) sendJson(res, 500, errorDocument(internalError(requestId)));
      else res.destroy();
    } finally {
      inFlight -= 1;
      const entry = {
        requestId,
        userId: record.userId,
        operationName: record.operationName,
        method: req.method,
        path,
        status: res.statusCode,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      };
      if (GRAPHQL_PATHS.has(path)) logger.info(entry, "request");
      else logger.debug(entry, "request");
      if (inFlight === 0) draining?.();
    }
  });
  // Idle keep-alive sockets must not hold a shutdown open.
  server.keepAliveTimeout = 5_000;

  return {
    server,
    close(timeoutMs) {
      return new Promise<void>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const finish = () => {
          clearTimeout(timer);
          server.closeAllConnections();
          resolve();
        };
        server.close();
        server.closeIdleConnections();
        if (inFlight === 0) return finish();
        draining = finish;
        timer = setTimeout(() => {
          logger.warn({ inFlight }, "shutdown timeout: closing connections with requests in flight");
          finish();
        }, timeoutMs);
      });
    },
  };
}
