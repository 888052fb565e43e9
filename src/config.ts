import { createHmac } from "node:crypto";
import path from "node:path";

/** Log levels accepted by `LOG_LEVEL` (pino's names). */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The whole configuration, parsed once from the environment. */
export interface Config {
  port: number;
  host: string;
  /** PostgreSQL connection string; undefined means the embedded database. */
  databaseUrl: string | undefined;
  /** Redis connection string; undefined means the in-memory rate limiter. */
  redisUrl: string | undefined;
  dataDir: string;
  /** Requests per user per hour; 0 turns the limit off. */
  rateLimitPerHour: number;
  /** Instances serving the API together: each allows 1/N of a budget whenever it decides alone. */
  rateLimitInstances: number;
  tokenPepper: string;
  /** True when the pepper was not configured and the development default is in use. */
  tokenPepperIsDefault: boolean;
  /** Key signing session access tokens (HS256 JWTs). */
  sessionSecret: string;
  /** True when no session secret was configured and one derived from the pepper is in use. */
  sessionSecretIsDefault: boolean;
  logLevel: LogLevel;
  /** Compile documents with graphql-jit instead of graphql-js `execute`. */
  graphqlJit: boolean;
  /** With graphql-jit, runs of an operation with graphql-js before it is compiled. */
  graphqlJitAfterRuns: number;
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number;
  /** How many request bodies over `maxBodyBytes` (artifact uploads) are held at once. */
  maxConcurrentUploads: number;
  /** The `Retry-After` (seconds) of a 503 answered because the database cannot be reached. */
  databaseRetryAfterSeconds: number;
  /** `production` hides validation suggestions and other development aids. */
  isProduction: boolean;
  installationName: string;
  installationLogoUrl: string;
  /** Base URL the server is reached at, used in links it prints. */
  publicUrl: string;
  /** Seconds a graceful shutdown waits for in-flight requests before closing them. */
  shutdownTimeoutSeconds: number;
  /** Database pool size per instance. */
  databasePoolSize: number;
  /** Take the client address from X-Forwarded-For (only behind a proxy that sets it). */
  trustProxy: boolean;
  /** How long a checked personal access token is remembered, in ms (0 to 1000; 0: never). */
  identityCacheMs: number;
  /** Prefix of every Redis key Assay writes. */
  redisKeyPrefix: string;
  /** Run the job worker (artifact processing, webhook delivery) inside the server. */
  worker: boolean;
  /** How often an idle worker looks for due jobs, in milliseconds. */
  workerPollMs: number;
  /** How long a claimed job stays reserved without renewal, in seconds. */
  jobLeaseSeconds: number;
  /** Timeout of one webhook delivery attempt, in milliseconds. */
  webhookTimeoutMs: number;
  /** Wait before the first retry of a failed delivery, in milliseconds (doubled per retry). */
  webhookBackoffBaseMs: number;
  /** Longest wait between two delivery attempts, in milliseconds. */
  webhookBackoffMaxMs: number;
  /** How long failed deliveries are retried, in seconds. */
  webhookRetryWindowSeconds: number;
  /** How long an endpoint may fail every attempt before it is disabled, in seconds. */
  webhookDisableAfterSeconds: number;
  /** Accept plain `http://` endpoint URLs. */
  webhookAllowHttp: boolean;
  /** Accept endpoints on private, loopback and other internal addresses. */
  webhookAllowPrivateNetworks: boolean;
  /** Largest artifact accepted, in bytes of report text (after decompression). */
  artifactMaxBytes: number;
  /** Largest request body of an artifact upload, in bytes (base64 of the compressed report). */
  artifactMaxBodyBytes: number;
  /** How long a run waits for the artifacts of its expected checks, in seconds. */
  artifactTimeoutSeconds: number;
  /** OSV export URLs `advisories sync` fetches; empty turns the scheduled sync off. */
  advisorySyncUrls: string[];
  /** Time between two scheduled syncs, in milliseconds. */
  advisorySyncIntervalMs: number;
  /** Largest export a sync downloads, in bytes. */
  advisorySyncMaxBytes: number;
  /** Let the sync reach private, loopback and other internal addresses (an on-premise mirror). */
  advisorySyncAllowPrivateNetworks: boolean;
  /** Where `/metrics` is served: on the main port, on a port of its own, or not at all. */
  metrics: MetricsSetting;
  /** OpenTelemetry tracing, from the standard `OTEL_*` variables; undefined when off (the default). */
  tracing: TracingSetting | undefined;
}

/** Shortest and longest accepted `ASSAY_ADVISORY_SYNC_INTERVAL`. */
export const ADVISORY_SYNC_MIN_INTERVAL_MS = 15 * 60_000;
export const ADVISORY_SYNC_MAX_INTERVAL_MS = 30 * 86_400_000;

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `ms` in the largest unit that divides it exactly, e.g. `6h` (the form {@link parseDuration} reads). */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m"]) {
    const size = DURATION_UNITS[unit]!;
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}

/** Milliseconds of a duration such as `90m`, `6h` or `1d`; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,9})\s*([smhd])$/i.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * DURATION_UNITS[match[2]!.toLowerCase()]!;
}

/** Where spans go when tracing is on. */
export interface TracingSetting {
  /** `otlp`: OTLP over HTTP (JSON) to `endpoint`; `console`: printed to stdout (for trying it out). */
  exporter: "otlp" | "console";
  /** The OTLP traces URL, e.g. `http://collector:4318/v1/traces`. */
  endpoint: string;
  serviceName: string;
}

/** `ASSAY_METRICS`: `on` (the main port), `off`, or a port number (with `ASSAY_METRICS_HOST`). */
export type MetricsSetting =
  | { mode: "main" }
  | { mode: "off" }
  | { mode: "port"; port: number; host: string };

/** The development pepper; refused when NODE_ENV=production. */
export const DEVELOPMENT_PEPPER = "assay-development-pepper-change-me";

/** Thrown by {@link parseConfig} with every problem found, not just the first. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads and validates the configuration from `env`. Collects every problem and throws one
 * {@link ConfigError} listing them all, so an operator fixes everything in one pass.
 */
export function parseConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return Number(raw);
  };
  const boolean = (name: string, fallback: boolean): boolean => {
    const raw = text(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (["1", "true", "yes", "on"].includes(raw)) return true;
    if (["0", "false", "no", "off"].includes(raw)) return false;
    problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = text(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        problems.push(`${name} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
      }
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };

  const isProduction = text("NODE_ENV") === "production";
  const port = integer("PORT", 4000, 0, 65535);
  const host = text("HOST") ?? "127.0.0.1";
  const databaseUrl = url("DATABASE_URL", ["postgres:", "postgresql:"]);
  const redisUrl = url("REDIS_URL", ["redis:", "rediss:"]);
  const dataDir = path.resolve(text("ASSAY_DATA_DIR") ?? "./data");
  const rateLimitPerHour = integer("RATE_LIMIT_PER_HOUR", 5000, 0, 100_000_000);
  const rateLimitInstances = integer("RATE_LIMIT_INSTANCES", 1, 1, 10_000);

  const configuredPepper = text("ASSAY_TOKEN_PEPPER");
  if (configuredPepper !== undefined && configuredPepper.length < 16) {
    problems.push("ASSAY_TOKEN_PEPPER must be at least 16 characters long");
  }
  if (configuredPepper === undefined && isProduction) {
    problems.push("ASSAY_TOKEN_PEPPER must be set when NODE_ENV=production");
  }

  const configuredSessionSecret = text("ASSAY_SESSION_SECRET");
  if (configuredSessionSecret !== undefined && configuredSessionSecret.length < 32) {
    problems.push("ASSAY_SESSION_SECRET must be at least 32 characters long");
  }
  if (configuredSessionSecret === undefined && isProduction) {
    problems.push("ASSAY_SESSION_SECRET must be set when NODE_ENV=production");
  }

  const logLevelRaw = (text("LOG_LEVEL") ?? "info").toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevelRaw)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevelRaw}"`);
  }

  const advisorySyncUrls = [
    ...new Set(
      (text("ASSAY_ADVISORY_SYNC_URLS") ?? "")
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part.length > 0),
    ),
  ];
  for (const [index, raw] of advisorySyncUrls.entries()) {
    // The URL itself is not echoed: it may carry a signed query string.
    const problem = advisorySyncUrlProblem(raw);
    if (problem) problems.push(`ASSAY_ADVISORY_SYNC_URLS: URL ${index + 1} ${problem}`);
  }
  const intervalRaw = text("ASSAY_ADVISORY_SYNC_INTERVAL") ?? "6h";
  let advisorySyncIntervalMs = parseDuration(intervalRaw);
  if (
    advisorySyncIntervalMs === undefined ||
    advisorySyncIntervalMs < ADVISORY_SYNC_MIN_INTERVAL_MS ||
    advisorySyncIntervalMs > ADVISORY_SYNC_MAX_INTERVAL_MS
  ) {
    problems.push(
      `ASSAY_ADVISORY_SYNC_INTERVAL must be a duration from 15m to 30d (a number and s, m, h or d, e.g. 6h), got "${intervalRaw}"`,
    );
    advisorySyncIntervalMs = 6 * 3_600_000;
  }

  const publicUrlRaw = url("ASSAY_PUBLIC_URL", ["http:", "https:"]);
  const metrics = metricsSetting(text("ASSAY_METRICS"), text("ASSAY_METRICS_HOST"), port, problems);
  const tracing = tracingSetting(text, problems);
  const displayHost = host === "0.0.0.0" || host === "::" ? "localhost" : host;
  const config: Config = {
    port,
    host,
    databaseUrl,
    redisUrl,
    dataDir,
    rateLimitPerHour,
    rateLimitInstances,
    tokenPepper: configuredPepper ?? DEVELOPMENT_PEPPER,
    tokenPepperIsDefault: configuredPepper === undefined,
    sessionSecret:
      configuredSessionSecret ?? developmentSessionSecret(configuredPepper ?? DEVELOPMENT_PEPPER),
    sessionSecretIsDefault: configuredSessionSecret === undefined,
    logLevel: (LOG_LEVELS as readonly string[]).includes(logLevelRaw) ? (logLevelRaw as LogLevel) : "info",
    graphqlJit: boolean("ASSAY_GRAPHQL_JIT", false),
    graphqlJitAfterRuns: integer("ASSAY_GRAPHQL_JIT_AFTER_RUNS", 10, 0, 1_000_000),
    maxBodyBytes: integer("ASSAY_MAX_BODY_BYTES", 1_048_576, 1024, 1_073_741_824),
    isProduction,
    installationName: text("ASSAY_INSTALLATION_NAME") ?? "Assay",
    installationLogoUrl:
      url("ASSAY_INSTALLATION_LOGO_URL", ["http:", "https:"]) ??
      `${(publicUrlRaw ?? `http://${displayHost}:${port}`).replace(/\/$/, "")}/static/logo.svg`,
    publicUrl: (publicUrlRaw ?? `http://${displayHost}:${port}`).replace(/\/$/, ""),
    shutdownTimeoutSeconds: integer("ASSAY_SHUTDOWN_TIMEOUT_SECONDS", 10, 0, 3600),
    databasePoolSize: integer("ASSAY_DATABASE_POOL_SIZE", 10, 1, 1000),
    trustProxy: boolean("ASSAY_TRUST_PROXY", false),
    identityCacheMs: integer("ASSAY_IDENTITY_CACHE_MS", 1000, 0, 1000),
    redisKeyPrefix: text("ASSAY_REDIS_KEY_PREFIX") ?? "assay:rl",
    worker: boolean("ASSAY_WORKER", true),
    workerPollMs: integer("ASSAY_WORKER_POLL_MS", 1000, 10, 60_000),
    jobLeaseSeconds: integer("ASSAY_JOB_LEASE_SECONDS", 60, 1, 3600),
    webhookTimeoutMs: integer("ASSAY_WEBHOOK_TIMEOUT_MS", 10_000, 100, 60_000),
    webhookBackoffBaseMs: integer("ASSAY_WEBHOOK_BACKOFF_BASE_MS", 60_000, 10, 86_400_000),
    webhookBackoffMaxMs: integer("ASSAY_WEBHOOK_BACKOFF_MAX_MS", 14_400_000, 10, 86_400_000),
    webhookRetryWindowSeconds: integer("ASSAY_WEBHOOK_RETRY_WINDOW_SECONDS", 86_400, 1, 2_592_000),
    webhookDisableAfterSeconds: integer("ASSAY_WEBHOOK_DISABLE_AFTER_SECONDS", 259_200, 1, 31_536_000),
    webhookAllowHttp: boolean("ASSAY_WEBHOOK_ALLOW_HTTP", false),
    webhookAllowPrivateNetworks: boolean("ASSAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS", false),
    artifactMaxBytes: integer("ASSAY_ARTIFACT_MAX_BYTES", 268_435_456, 1024, 4_294_967_296),
    artifactMaxBodyBytes: integer("ASSAY_ARTIFACT_MAX_BODY_BYTES", 104_857_600, 1024, 1_073_741_824),
    maxConcurrentUploads: integer("ASSAY_MAX_CONCURRENT_UPLOADS", 3, 1, 1000),
    databaseRetryAfterSeconds: integer("ASSAY_DATABASE_RETRY_AFTER_SECONDS", 5, 1, 3600),
    artifactTimeoutSeconds: integer("ASSAY_ARTIFACT_TIMEOUT_SECONDS", 3600, 1, 604_800),
    advisorySyncUrls,
    advisorySyncIntervalMs,
    advisorySyncMaxBytes: integer("ASSAY_ADVISORY_SYNC_MAX_BYTES", 1_073_741_824, 1024, 17_179_869_184),
    advisorySyncAllowPrivateNetworks: boolean("ASSAY_ADVISORY_SYNC_ALLOW_PRIVATE_NETWORKS", false),
    metrics,
    tracing,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** What is wrong with `raw` as an OSV export URL, if anything. */
function advisorySyncUrlProblem(raw: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "must use https:// or http://";
  if (parsed.username !== "" || parsed.password !== "") return "must not contain a user name or password";
  if (parsed.hash !== "") return "must not contain a fragment (#...)";
  return undefined;
}

/**
 * Tracing from the standard variables: on when `OTEL_TRACES_EXPORTER` is `otlp` or `console`, or
 * when it is unset and an OTLP endpoint is given; off with `OTEL_SDK_DISABLED=true`,
 * `OTEL_TRACES_EXPORTER=none`, or nothing set.
 */
function tracingSetting(
  text: (name: string) => string | undefined,
  problems: string[],
): TracingSetting | undefined {
  if (text("OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const exporter = text("OTEL_TRACES_EXPORTER")?.toLowerCase();
  const tracesEndpoint = text("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const baseEndpoint = text("OTEL_EXPORTER_OTLP_ENDPOINT");
  if (exporter !== undefined && !["otlp", "console", "none"].includes(exporter)) {
    problems.push(`OTEL_TRACES_EXPORTER must be otlp, console or none, got "${exporter}"`);
    return undefined;
  }
  if (exporter === "none" || (exporter === undefined && !tracesEndpoint && !baseEndpoint)) return undefined;
  const endpoint =
    tracesEndpoint ?? `${(baseEndpoint ?? "http://localhost:4318").replace(/\/$/, "")}/v1/traces`;
  try {
    if (!["http:", "https:"].includes(new URL(endpoint).protocol)) throw new Error("protocol");
  } catch {
    problems.push(`the OTLP traces endpoint must be an http(s) URL, got "${endpoint}"`);
    return undefined;
  }
  return {
    exporter: exporter === "console" ? "console" : "otlp",
    endpoint,
    serviceName: text("OTEL_SERVICE_NAME") ?? "assay",
  };
}

/** Reads `ASSAY_METRICS` and `ASSAY_METRICS_HOST`, adding what is wrong with them to `problems`. */
function metricsSetting(
  raw: string | undefined,
  host: string | undefined,
  mainPort: number,
  problems: string[],
): MetricsSetting {
  const value = (raw ?? "on").toLowerCase();
  if (["on", "true", "yes"].includes(value)) {
    if (host !== undefined) problems.push("ASSAY_METRICS_HOST needs ASSAY_METRICS set to a port number");
    return { mode: "main" };
  }
  if (["off", "false", "no"].includes(value)) {
    if (host !== undefined) problems.push("ASSAY_METRICS_HOST needs ASSAY_METRICS set to a port number");
    return { mode: "off" };
  }
  const port = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) {
    problems.push(`ASSAY_METRICS must be on, off or a port number from 1 to 65535, got "${raw}"`);
    return { mode: "main" };
  }
  if (port === mainPort) {
    problems.push(`ASSAY_METRICS is the server's own PORT (${port}); use on to serve /metrics there`);
  }
  return { mode: "port", port, host: host ?? "127.0.0.1" };
}

/**
 * The session secret outside production when none is configured: derived from the pepper, so one
 * pepper shared by several development instances gives them one secret, and a changed pepper (which
 * already invalidates every token) changes it too. Production requires a secret of its own.
 */
function developmentSessionSecret(pepper: string): string {
  return createHmac("sha256", pepper).update("assay session secret").digest("hex");
}

/** Every variable {@link parseConfig} reads, with its default and meaning (printed by the CLI, kept in README). */
export const CONFIG_VARIABLES: ReadonlyArray<{ name: string; default: string; meaning: string }> = [
  { name: "PORT", default: "4000", meaning: "TCP port the HTTP server listens on (0 picks a free port)." },
  {
    name: "HOST",
    default: "127.0.0.1",
    meaning: "Address to bind; 0.0.0.0 to accept connections from other machines.",
  },
  {
    name: "DATABASE_URL",
    default: "(unset)",
    meaning: "PostgreSQL connection string. Unset: the embedded database under ASSAY_DATA_DIR.",
  },
  {
    name: "REDIS_URL",
    default: "(unset)",
    meaning: "Redis connection string for the shared rate-limit budget. Unset: in-memory, per instance.",
  },
  {
    name: "ASSAY_DATA_DIR",
    default: "./data",
    meaning: "Where the embedded database and the demo token are kept.",
  },
  {
    name: "RATE_LIMIT_PER_HOUR",
    default: "5000",
    meaning: "Requests per user account per one-hour window, reads and writes together; 0 turns it off.",
  },
  {
    name: "RATE_LIMIT_INSTANCES",
    default: "1",
    meaning:
      "How many instances serve the API. Whenever one must count alone (Redis unset or unreachable) it allows 1/N of what is left of each budget, so together they keep it.",
  },
  {
    name: "ASSAY_TOKEN_PEPPER",
    default: "(development value)",
    meaning:
      "Secret key for hashing tokens (HMAC-SHA256), at least 16 characters. Required in production; changing it invalidates every token.",
  },
  {
    name: "ASSAY_SESSION_SECRET",
    default: "(derived from the pepper)",
    meaning:
      "Secret key signing session access tokens (HS256 JWTs), at least 32 characters. Required in production; changing it invalidates every access token (refresh tokens keep working).",
  },
  { name: "LOG_LEVEL", default: "info", meaning: `One of ${LOG_LEVELS.join(", ")}.` },
  {
    name: "NODE_ENV",
    default: "(unset)",
    meaning:
      "production hides validation suggestions and requires ASSAY_TOKEN_PEPPER and ASSAY_SESSION_SECRET.",
  },
  {
    name: "ASSAY_GRAPHQL_JIT",
    default: "false",
    meaning: "Execute with graphql-jit (compiled once per document) instead of graphql-js.",
  },
  {
    name: "ASSAY_GRAPHQL_JIT_AFTER_RUNS",
    default: "10",
    meaning:
      "With ASSAY_GRAPHQL_JIT, how many times an operation runs with graphql-js before it is compiled (0: at its first run); graphql-jit is loaded at the first compilation.",
  },
  {
    name: "ASSAY_MAX_BODY_BYTES",
    default: "1048576",
    meaning: "Largest accepted request body; larger bodies get HTTP 413.",
  },
  {
    name: "ASSAY_PUBLIC_URL",
    default: "http://HOST:PORT",
    meaning: "Base URL clients reach this server at, used in links.",
  },
  { name: "ASSAY_INSTALLATION_NAME", default: "Assay", meaning: "Installation.name in the API." },
  {
    name: "ASSAY_INSTALLATION_LOGO_URL",
    default: "ASSAY_PUBLIC_URL/static/logo.svg",
    meaning: "Installation.logo in the API.",
  },
  {
    name: "ASSAY_SHUTDOWN_TIMEOUT_SECONDS",
    default: "10",
    meaning: "How long SIGTERM/SIGINT waits for in-flight requests.",
  },
  {
    name: "ASSAY_DATABASE_POOL_SIZE",
    default: "10",
    meaning:
      "Connections of an instance's API pool (the embedded database uses at most 4). Up to 4 stay open while idle, keeping their prepared statements; the others close after 30 s idle. Its worker (ASSAY_WORKER) has a pool of its own: up to 4 more on PostgreSQL, 2 on the embedded database.",
  },
  {
    name: "ASSAY_TRUST_PROXY",
    default: "false",
    meaning:
      "Behind a load balancer: take the client address (for the unauthenticated rate limit) from X-Forwarded-For.",
  },
  {
    name: "ASSAY_IDENTITY_CACHE_MS",
    default: "1000",
    meaning:
      "How long an instance remembers a checked personal access token, so a client's further requests need no token lookup: 0 to 1000 ms (0 looks up every request). A token revoked elsewhere (another instance, the CLI, SQL) is refused everywhere within this time; through this instance's API, at once.",
  },
  {
    name: "ASSAY_REDIS_KEY_PREFIX",
    default: "assay:rl",
    meaning: "Prefix of the rate-limit keys in Redis; give each deployment sharing one Redis its own.",
  },
  {
    name: "ASSAY_WORKER",
    default: "true",
    meaning:
      "Run the job worker (artifact processing, webhook delivery) in this server; false when workers run apart (`npm run assay -- worker`).",
  },
  { name: "ASSAY_WORKER_POLL_MS", default: "1000", meaning: "How often an idle worker looks for due jobs." },
  {
    name: "ASSAY_JOB_LEASE_SECONDS",
    default: "60",
    meaning:
      "How long a claimed job stays reserved without renewal: after a crash, when another worker takes it over.",
  },
  { name: "ASSAY_WEBHOOK_TIMEOUT_MS", default: "10000", meaning: "Timeout of one webhook delivery attempt." },
  {
    name: "ASSAY_WEBHOOK_BACKOFF_BASE_MS",
    default: "60000",
    meaning: "Wait before the first retry of a failed webhook delivery; doubled for each further retry.",
  },
  {
    name: "ASSAY_WEBHOOK_BACKOFF_MAX_MS",
    default: "14400000",
    meaning: "Longest wait between two attempts of a webhook delivery.",
  },
  {
    name: "ASSAY_WEBHOOK_RETRY_WINDOW_SECONDS",
    default: "86400",
    meaning: "How long failed webhook deliveries are retried.",
  },
  {
    name: "ASSAY_WEBHOOK_DISABLE_AFTER_SECONDS",
    default: "259200",
    meaning: "How long a webhook endpoint may fail every attempt before it is disabled.",
  },
  {
    name: "ASSAY_WEBHOOK_ALLOW_HTTP",
    default: "false",
    meaning: "Accept plain http:// webhook endpoint URLs.",
  },
  {
    name: "ASSAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS",
    default: "false",
    meaning:
      "Accept webhook endpoints on private, loopback, link-local and other internal addresses (on-premise receivers).",
  },
  {
    name: "ASSAY_ARTIFACT_MAX_BYTES",
    default: "268435456",
    meaning: "Largest analysis artifact accepted, in bytes of report text after decompression (256 MiB).",
  },
  {
    name: "ASSAY_ARTIFACT_MAX_BODY_BYTES",
    default: "104857600",
    meaning:
      "Largest request body of an artifact upload (`/graphql/cli/` and `uploadArtifact`); larger bodies get HTTP 413.",
  },
  {
    name: "ASSAY_MAX_CONCURRENT_UPLOADS",
    default: "3",
    meaning:
      "How many request bodies over ASSAY_MAX_BODY_BYTES (artifact uploads) the server reads at once; one more gets HTTP 503 with Retry-After.",
  },
  {
    name: "ASSAY_DATABASE_RETRY_AFTER_SECONDS",
    default: "5",
    meaning:
      "The Retry-After, in seconds (1 to 3600), of the HTTP 503 a request gets while the database cannot be reached.",
  },
  {
    name: "ASSAY_ARTIFACT_TIMEOUT_SECONDS",
    default: "3600",
    meaning: "How long a run waits for the artifact of each expected check before it ends ARTIFACT_TIMEOUT.",
  },
  {
    name: "ASSAY_ADVISORY_SYNC_URLS",
    default: "(unset)",
    meaning:
      "Comma-separated OSV export URLs (e.g. https://osv-vulnerabilities.storage.googleapis.com/npm/all.zip) the worker imports on a schedule. Unset: no scheduled sync.",
  },
  {
    name: "ASSAY_ADVISORY_SYNC_INTERVAL",
    default: "6h",
    meaning: "Time between two advisory syncs: a number and s, m, h or d, from 15m to 30d.",
  },
  {
    name: "ASSAY_ADVISORY_SYNC_MAX_BYTES",
    default: "1073741824",
    meaning: "Largest export an advisory sync downloads (1 GiB); a larger one fails the sync of that URL.",
  },
  {
    name: "ASSAY_ADVISORY_SYNC_ALLOW_PRIVATE_NETWORKS",
    default: "false",
    meaning:
      "Let advisory sync reach private, loopback, link-local and other internal addresses (an on-premise mirror).",
  },
  {
    name: "ASSAY_METRICS",
    default: "on",
    meaning:
      "Prometheus metrics at /metrics: on (the main port, no token), off, or a port number to serve them on a listener of their own.",
  },
  {
    name: "ASSAY_METRICS_HOST",
    default: "127.0.0.1",
    meaning: "Address the metrics listener binds when ASSAY_METRICS is a port number.",
  },
  {
    name: "OTEL_TRACES_EXPORTER",
    default: "(unset)",
    meaning:
      "otlp or console turns OpenTelemetry tracing on (none: off); unset, tracing is on only when an OTLP endpoint is set.",
  },
  {
    name: "OTEL_EXPORTER_OTLP_ENDPOINT",
    default: "(unset)",
    meaning: "OTLP/HTTP collector base URL (spans go to /v1/traces); setting it turns tracing on.",
  },
  {
    name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    default: "(unset)",
    meaning: "Full OTLP/HTTP traces URL, instead of OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces.",
  },
  { name: "OTEL_SERVICE_NAME", default: "assay", meaning: "service.name of the spans." },
  { name: "OTEL_SDK_DISABLED", default: "false", meaning: "true turns tracing off whatever else is set." },
];
