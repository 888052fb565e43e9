import type http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { buildCliPackage } from "./cli/cli-package.ts";
import type { Config } from "./config.ts";
import { DatabaseAvailability, isDatabaseUnavailable } from "./db/availability.ts";
import {
  API_IDLE_CONNECTIONS,
  type DatabaseHandle,
  type DatabaseOptions,
  migrateToLatest,
  openDatabase,
  pendingMigrations,
} from "./db/database.ts";
import { DocumentCache, loadGraphqlJit } from "./graphql/document-cache.ts";
import { createGraphQLEndpoint, createOperationRunner, GRAPHQL_PATHS } from "./http/graphql-endpoint.ts";
import { LargeBodySlots } from "./http/large-bodies.ts";
import { createPlayground, withPlayground } from "./http/playground/playground.ts";
import { RateLimiter } from "./http/rate-limit.ts";
import { RequestActivity } from "./http/request-activity.ts";
import {
  type AssayServer,
  createMetricsServer,
  createServer,
  type EndpointHandler,
  type ServerMetrics,
} from "./http/server.ts";
import { CLI_GRAPHQL_PATHS, createCliEndpoint } from "./ingestion/cli-endpoint.ts";
import { startJobWorker, workerPoolSize } from "./job-handlers.ts";
import { jobQueueStats } from "./jobs/job-store.ts";
import type { Logger } from "./logger.ts";
import { createMcpEndpoint, MCP_PATHS } from "./mcp/mcp-endpoint.ts";
import { readExampleOperations } from "./mcp/resources.ts";
import { CredentialAuthenticator, looksLikeCredential } from "./modules/auth/credential-service.ts";
import { renderDevicePage } from "./modules/auth/device-page.ts";
import { ensureCatalog } from "./modules/catalog/catalog-data.ts";
import { ensureInstallation } from "./modules/installation/installation-store.ts";
import { createVcsWebhookEndpoints } from "./modules/pull-requests/vcs-webhook-endpoint.ts";
import { trimFreedMemoryEvery } from "./native/malloc-trim.ts";
import { startTracing } from "./observability/tracing.ts";
import { buildAssaySchema, printSchemaOf } from "./schema.ts";

/** The documented example operations, offered as the playground's tabs. */
const EXAMPLES_DIR = fileURLToPath(new URL("../docs/examples/", import.meta.url));

/** A started Assay instance. */
export interface RunningApp {
  url: string;
  port: number;
  /** Where `/metrics` answers when ASSAY_METRICS is a port number (undefined otherwise). */
  metricsUrl: string | undefined;
  database: DatabaseHandle;
  /** Graceful stop: no new connections, in-flight requests finish, pools and the embedded database close. */
  stop(): Promise<void>;
}

/** Options of {@link startApp} that do not come from the environment. */
export interface AppOptions {
  /** Passed to {@link openDatabase}; tests use `onQuery` to count SQL statements. */
  database?: DatabaseOptions;
  /** Runs once the database is migrated and before the server accepts connections. */
  beforeListen?: (database: DatabaseHandle) => Promise<void>;
}

/**
 * The API's endpoints by path: GraphQL, the contract CLI's artifact endpoint (the ingestion
 * pipeline's own small schema), the providers' webhooks (docs/vcs-events.md), and MCP
 * (docs/mcp.md). Assembled here,
 * so the HTTP layer depends on none of them. `routes` names each path for the metrics.
 */
function apiEndpoints(
  graphql: EndpointHandler,
  artifacts: EndpointHandler,
  vcsWebhooks: ReadonlyMap<string, EndpointHandler>,
  mcp: EndpointHandler,
): { endpoints: Map<string, EndpointHandler>; routes: Map<string, string> } {
  const named = [
    ...[...GRAPHQL_PATHS].map((path) => [path, graphql, "graphql"] as const),
    ...[...MCP_PATHS].map((path) => [path, mcp, "mcp"] as const),
    ...[...CLI_GRAPHQL_PATHS].map((path) => [path, artifacts, "cli_artifacts"] as const),
    ...[...vcsWebhooks].map(([path, handler]) => [path, handler, "vcs_webhook"] as const),
  ];
  return {
    endpoints: new Map(named.map(([path, handler]) => [path, handler])),
    routes: new Map(named.map(([path, , route]) => [path, route])),
  };
}

/** Starts listening on `port` and `host`; rejects when the address cannot be bound. */
function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** `http://host:port`, with IPv6 hosts bracketed and wildcard addresses shown as loopback. */
function urlOf(host: string, port: number): string {
  const shown = host.includes(":") ? `[${host}]` : host;
  return `http://${shown === "0.0.0.0" || shown === "[::]" ? "127.0.0.1" : shown}:${port}`;
}

/**
 * The longest a background step on the embedded database waits for the API requests being served:
 * long enough for a burst of reads, short enough that steady traffic cannot starve ingestion.
 */
const EMBEDDED_GIVE_WAY_MS = 250;

/**
 * Starts Assay with `config`: opens the database (migrating the embedded one; PostgreSQL must be
 * migrated with `npm run migrate`), connects the rate limiter, and listens.
 */
export async function startApp(
  config: Config,
  logger: Logger,
  options: AppOptions = {},
): Promise<RunningApp> {
  // Loaded only when on: with ASSAY_METRICS=off prom-client is never read.
  const metrics =
    config.metrics.mode === "off" ? undefined : new (await import("./observability/metrics.ts")).Metrics();
  const tracing = await startTracing(config.tracing);
  const statementSpans = tracing && { onStatement: tracing.recordStatement };
  const availability = new DatabaseAvailability(logger);
  const database = await openDatabase(config, {
    idleConnections: API_IDLE_CONNECTIONS,
    ...options.database,
    fromTemplate: true,
    preparedStatements: true,
    ...(metrics && { onError: () => metrics.observeDatabaseError("api") }),
    // Every statement that runs ends an outage, if one was seen (one line, DatabaseAvailability).
    onStatement: (sql, durationMs, failed) => {
      if (!failed) availability.succeeded();
      tracing?.recordStatement(sql, durationMs, failed);
    },
  });
  const activity = new RequestActivity();
  let server: AssayServer | undefined;
  let metricsServer: http.Server | undefined;
  let rateLimiter: RateLimiter | undefined;
  let workerDatabase: DatabaseHandle | undefined;
  try {
    if (database.kind === "embedded") {
      const applied = await migrateToLatest(database.db);
      if (applied.length > 0) logger.info({ migrations: applied }, "embedded database migrated");
    } else {
      const pending = await pendingMigrations(database.db);
      if (pending.length > 0) {
        throw new Error(
          `The database has ${pending.length} pending migration(s) (${pending.join(", ")}); run \`npm run migrate\` first.`,
        );
      }
    }
    await ensureInstallation(database.db, {
      name: config.installationName,
      logoUrl: config.installationLogoUrl,
    });
    await ensureCatalog(database.db);
    await options.beforeListen?.(database);
    // The job worker (webhook delivery) gets a small pool of its own: its polling never competes
    // with requests for connections, and never shows in the statements `onQuery` reports.
    if (config.worker) {
      workerDatabase = await openDatabase(
        { ...config, databasePoolSize: workerPoolSize(config) },
        { ...(metrics && { onError: () => metrics.observeDatabaseError("worker") }), ...statementSpans },
      );
    }
    if (metrics) {
      metrics.watchPool("api", database.poolStats);
      if (workerDatabase) metrics.watchPool("worker", workerDatabase.poolStats);
      metrics.watchJobQueue(() => jobQueueStats(database.db));
    }

    rateLimiter = await RateLimiter.create({
      perHour: config.rateLimitPerHour,
      instances: config.rateLimitInstances,
      redisUrl: config.redisUrl,
      keyPrefix: config.redisKeyPrefix,
      logger,
      ...(metrics && {
        observer: {
          decidedLocally: (limit) => metrics.observeRateLimitDecidedLocally(limit),
          reconciled: (requests) => metrics.observeRateLimitReconciled(requests),
        },
      }),
    });
    const limiter = rateLimiter;
    if (metrics && config.redisUrl) metrics.watchRedis(() => limiter.status().redisUp === true);
    const schema = buildAssaySchema();
    // One count of large bodies for both upload paths, so their sum stays bounded.
    const largeBodies = new LargeBodySlots(config.maxConcurrentUploads);
    const documents = new DocumentCache(schema, {
      jit: config.graphqlJit
        ? {
            module: loadGraphqlJit,
            afterRuns: config.graphqlJitAfterRuns,
            onLoadError: (error) =>
              logger.error({ err: error }, "graphql-jit could not be loaded; operations run with graphql-js"),
          }
        : undefined,
      hideSuggestions: config.isProduction,
    });
    const authenticator = new CredentialAuthenticator(database.db, {
      tokenPepper: config.tokenPepper,
      sessionSecret: config.sessionSecret,
      identityCacheMs: config.identityCacheMs,
      onTouchError: (err) =>
        isDatabaseUnavailable(err)
          ? availability.failed(err)
          : logger.warn({ err }, "could not record token use"),
    });
    const graphql = createGraphQLEndpoint({
      largeBodies,
      availability,
      schema,
      documents,
      config,
      db: database.db,
      authenticator,
      rateLimiter: limiter,
      logger,
      metrics,
      tracing,
    });
    const mcp = createMcpEndpoint({
      authenticator,
      rateLimiter: limiter,
      runner: createOperationRunner({ schema, documents, config, db: database.db, logger, availability }),
      documents: {
        sdl: once(() => printSchemaOf(schema)),
        examples: await readExampleOperations(EXAMPLES_DIR),
      },
      maxBodyBytes: config.maxBodyBytes,
      trustProxy: config.trustProxy,
      logger,
      metrics,
    });
    const artifacts = createCliEndpoint({ db: database.db, config, logger, largeBodies, availability });
    const playground = createPlayground(EXAMPLES_DIR);
    const api = apiEndpoints(
      withPlayground(graphql, playground),
      artifacts,
      createVcsWebhookEndpoints({ db: database.db, config, logger }),
      mcp,
    );
    const observed: ServerMetrics | undefined = metrics && { metrics, serve: config.metrics.mode === "main" };
    server = createServer(
      {
        endpoints: api.endpoints,
        endpointRoutes: api.routes,
        availability,
        databaseRetryAfterSeconds: config.databaseRetryAfterSeconds,
        devicePage: renderDevicePage,
        isCredential: looksLikeCredential,
        readiness: async () => {
          const [databaseUp, redisUp] = await Promise.all([database.ping(), limiter.ping()]);
          return {
            // Without Redis every instance still serves, each from its share of the rate limits
            // (RATE_LIMIT_INSTANCES); taking them all out of the balancer would be the real outage.
            ready: databaseUp,
            checks: {
              database: databaseUp ? "up" : "down",
              redis: config.redisUrl ? (redisUp ? "up" : "down") : "not configured",
            },
          };
        },
        cliPackage: () => buildCliPackage(),
        playground,
        activity,
      },
      logger,
      observed,
    );
    const listening = server;
    let metricsUrl: string | undefined;
    if (metrics && config.metrics.mode === "port") {
      metricsServer = createMetricsServer(metrics, logger);
      const { host: metricsHost } = config.metrics;
      metricsUrl = `${urlOf(metricsHost, await listen(metricsServer, config.metrics.port, metricsHost))}/metrics`;
    }
    const port = await listen(listening.server, config.port, config.host);
    // Background jobs run in every instance unless ASSAY_WORKER=false.
    const jobDatabase = workerDatabase;
    const worker = jobDatabase
      ? startJobWorker(jobDatabase.db, config, logger, {
          metrics,
          tracing,
          // The embedded database serves one session: its background steps wait, up to a quarter
          // of a second each, for the API requests being served (docs/ingestion.md).
          giveWay: database.kind === "embedded" ? () => activity.quiet(EMBEDDED_GIVE_WAY_MS) : undefined,
        })
      : undefined;
    const scrapes = metricsServer;
    // What requests, jobs and (on a first start) the demo's seed freed goes back to the operating
    // system every few seconds, where the install built the addon (src/native/malloc-trim.ts).
    const stopTrimming = trimFreedMemoryEvery();
    let stopping: Promise<void> | undefined;
    return {
      url: urlOf(config.host, port),
      port,
      metricsUrl,
      database,
      stop() {
        stopping ??= (async () => {
          stopTrimming?.();
          await Promise.all([
            listening.close(config.shutdownTimeoutSeconds * 1000),
            worker?.stop(config.shutdownTimeoutSeconds * 1000),
            scrapes && closeServer(scrapes),
          ]);
          await jobDatabase?.close();
          await limiter.close();
          await database.close();
          await tracing?.shutdown();
        })();
        return stopping;
      },
    };
  } catch (error) {
    if (metricsServer?.listening) await closeServer(metricsServer);
    await rateLimiter?.close();
    await workerDatabase?.close();
    await database.close();
    await tracing?.shutdown();
    throw error;
  }
}

/** `compute`, called on first use only. */
function once<T>(compute: () => T): () => T {
  let value: { v: T } | undefined;
  return () => {
    value ??= { v: compute() };
    return value.v;
  };
}

/** Stops `server` and drops its idle keep-alive connections (a scraper's). */
function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
