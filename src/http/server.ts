import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { type DatabaseAvailability, isDatabaseUnavailable } from "../db/availability.ts";
import {
  AssayError,
  databaseUnavailable,
  ErrorCode,
  errorDocument,
  internalError,
  notFound,
} from "../graphql/errors.ts";
import type { Logger } from "../logger.ts";
import type { Metrics } from "../observability/metrics.ts";
import { createCliDownload, isCliPackagePath, type ServedCliPackage } from "./cli-download.ts";
import type { RequestRecord } from "./graphql-endpoint.ts";
import { sendJson } from "./json.ts";
import { PLAYGROUND_ASSET_PREFIX, type Playground } from "./playground/playground.ts";
import type { RequestActivity } from "./request-activity.ts";

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#1f6f5c"/><path d="M18 46 32 16l14 30h-7l-7-15-7 15z" fill="#fff"/></svg>`;

/**
 * True for an incoming x-request-id we may echo and log: short, plain characters, and not a
 * credential pasted into the wrong header (it would end up in the log).
 */
function isUsableRequestId(
  value: string | string[] | undefined,
  isCredential: (value: string) => boolean,
): value is string {
  return typeof value === "string" && REQUEST_ID_PATTERN.test(value) && !isCredential(value);
}

/**
 * `GET /device`: the page a device login's `verificationUri` opens, explaining how to approve the
 * code in `?user_code=`. Sent with no caching and no referrer, since its URL may hold that code.
 */
function sendDevicePage(req: IncomingMessage, res: ServerResponse, routes: ServerRoutes): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    const error = new AssayError(
      `Method ${req.method} is not allowed; use GET.`,
      ErrorCode.METHOD_NOT_ALLOWED,
    );
    sendJson(res, 405, errorDocument(error), { allow: "GET, HEAD" });
    return;
  }
  const userCode = new URL(req.url ?? "/", "http://localhost").searchParams.get("user_code");
  const html = routes.devicePage(userCode);
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

/** Handles one request to an API endpoint; `record` gathers what the request's log line reports. */
export type EndpointHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  record: RequestRecord,
) => Promise<void>;

/** What the server routes to, assembled by the server's wiring (src/app.ts). */
export interface ServerRoutes {
  /** Told of requests that failed for want of the database (503 and one warning per outage). */
  availability?: DatabaseAvailability;
  /** The `Retry-After` of those 503 answers (ASSAY_DATABASE_RETRY_AFTER_SECONDS). */
  databaseRetryAfterSeconds: number;
  /**
   * The API's endpoints by exact path: the GraphQL endpoint's paths and those of the contract
   * CLI's artifact endpoint. Their requests are logged at info level, every other one at debug.
   */
  endpoints: ReadonlyMap<string, EndpointHandler>;
  /** The metrics route name of each endpoint path (e.g. `graphql`); unnamed ones count as `api`. */
  endpointRoutes?: ReadonlyMap<string, string>;
  /** Readiness of dependencies: whether to take traffic, and the state of each named check. */
  readiness(): Promise<ReadinessReport>;
  /** The device login page's HTML, for the `user_code` in its URL (null when there is none). */
  devicePage(userCode: string | null): string;
  /** True for a value shaped like a credential, which is never echoed as a request id. */
  isCredential(value: string): boolean;
  /** Builds the standalone CLI package served at `/cli/assay-cli.tgz`; called at most once when it succeeds. */
  cliPackage(): Promise<ServedCliPackage>;
  /** The in-browser playground, whose assets are served under `/playground/`; none when absent. */
  playground?: Playground;
  /** Told of every API request (an endpoint's) while it is served, for background work to give way to. */
  activity?: RequestActivity;
}

/**
 * What `/readyz` answers. `ready` alone decides the status code (200 or 503); a check may be down
 * without the instance being unready, as Redis is: the instance serves on without it.
 */
export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, "up" | "down" | "not configured">;
}

/** Where the server reports its requests, and whether it answers `/metrics` itself. */
export interface ServerMetrics {
  metrics: Metrics;
  /** True to serve `/metrics` on this server (ASSAY_METRICS=on); false when it has its own port. */
  serve: boolean;
}

/** The path Prometheus scrapes. */
export const METRICS_PATH = "/metrics";

/** The metrics route name of a path the server answers itself; never the raw path. */
function routeOfPath(path: string): string {
  if (path === "/healthz") return "healthz";
  if (path === "/readyz") return "readyz";
  if (path === "/device") return "device";
  if (isCliPackagePath(path)) return "cli_package";
  if (path === "/static/logo.svg") return "static";
  if (path.startsWith(PLAYGROUND_ASSET_PREFIX)) return "playground";
  return "not_found";
}

/**
 * Answers `GET /metrics` with the Prometheus text of `metrics`; 405 for other methods. A failed
 * collection is logged and answered 500 without its details.
 */
export async function sendMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: Metrics,
  logger: Logger,
): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    const error = new AssayError(
      `Method ${req.method} is not allowed; use GET.`,
      ErrorCode.METHOD_NOT_ALLOWED,
    );
    sendJson(res, 405, errorDocument(error), { allow: "GET, HEAD" });
    return;
  }
  let text: string;
  try {
    text = await metrics.render();
  } catch (error) {
    logger.error({ err: error }, "metrics collection failed");
    res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
    res.end("metrics collection failed\n");
    return;
  }
  res.writeHead(200, {
    "content-type": metrics.contentType,
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(req.method === "HEAD" ? undefined : text);
}

/**
 * A listener of its own for `/metrics` (ASSAY_METRICS=<port>), answering nothing else; bound to
 * 127.0.0.1 unless ASSAY_METRICS_HOST says otherwise.
 */
export function createMetricsServer(metrics: Metrics, logger: Logger): http.Server {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (path === METRICS_PATH) {
      void sendMetrics(req, res, metrics, logger);
      return;
    }
    sendJson(
      res,
      404,
      errorDocument(notFound(`No route for ${path}; this port serves ${METRICS_PATH} only.`)),
    );
  });
  server.keepAliveTimeout = 5_000;
  return server;
}

/** A running HTTP server that can stop gracefully. */
export interface AssayServer {
  server: http.Server;
  /** Stops accepting connections and waits (up to `timeoutMs`) for in-flight requests. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Creates the HTTP server: the API's endpoints (GraphQL, the CLI's artifact endpoint),
 * `/healthz`, `/readyz`, the device login page `/device` and the CLI package
 * `/cli/assay-cli.tgz` without authentication, and one JSON log line per request.
 */
export function createServer(routes: ServerRoutes, logger: Logger, observed?: ServerMetrics): AssayServer {
  let inFlight = 0;
  const cliDownload = createCliDownload(routes.cliPackage, logger);
  let draining: (() => void) | undefined;

  const server = http.createServer(async (req, res) => {
    const started = performance.now();
    const incomingId = req.headers["x-request-id"];
    const requestId = isUsableRequestId(incomingId, routes.isCredential) ? incomingId : randomUUID();
    const record: RequestRecord = { requestId };
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const endpoint = routes.endpoints.get(path);
    res.setHeader("x-request-id", requestId);
    // Scrapes are neither counted nor logged: they would only measure themselves.
    if (observed?.serve && path === METRICS_PATH) {
      await sendMetrics(req, res, observed.metrics, logger);
      return;
    }
    inFlight += 1;
    observed?.metrics.observeArrival();
    const served = endpoint && routes.activity?.begin();
    try {
      if (endpoint) {
        await endpoint(req, res, record);
      } else if (path === "/healthz") {
        sendJson(res, 200, { status: "ok" });
      } else if (path === "/readyz") {
        const { ready, checks } = await routes.readiness();
        sendJson(res, ready ? 200 : 503, { status: ready ? "ready" : "not ready", checks });
      } else if (path === "/device") {
        sendDevicePage(req, res, routes);
      } else if (isCliPackagePath(path)) {
        await cliDownload(req, res, path);
      } else if (path === "/static/logo.svg") {
        res.writeHead(200, { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" });
        res.end(LOGO_SVG);
      } else if (routes.playground && path.startsWith(PLAYGROUND_ASSET_PREFIX)) {
        await routes.playground.asset(req, res, path);
      } else {
        sendJson(
          res,
          404,
          errorDocument(notFound(`No route for ${path}; the GraphQL endpoint is /graphql/.`)),
        );
      }
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        // Logged once per outage by `availability`, not with a stack per request.
        routes.availability?.failed(error);
        if (!res.headersSent) {
          const retryAfter = routes.databaseRetryAfterSeconds;
          sendJson(res, 503, errorDocument(databaseUnavailable(retryAfter)), {
            "retry-after": String(retryAfter),
          });
        } else res.destroy();
      } else {
        logger.error({ requestId, err: error }, "request failed");
        if (!res.headersSent) sendJson(res, 500, errorDocument(internalError(requestId)));
        else res.destroy();
      }
    } finally {
      inFlight -= 1;
      if (served) served();
      const entry = {
        requestId,
        userId: record.userId,
        operationName: record.operationName,
        method: req.method,
        path,
        status: res.statusCode,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      };
      if (endpoint) logger.info(entry, "request");
      else logger.debug(entry, "request");
      observed?.metrics.observeRequest(
        endpoint ? (routes.endpointRoutes?.get(path) ?? "api") : routeOfPath(path),
        req.method,
        res.statusCode,
        (performance.now() - started) / 1000,
      );
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
