import fs from "node:fs";
import path from "node:path";
import { displayUrl } from "../advisory-sync/source-url.ts";
import { CONFIG_VARIABLES, type Config, formatDuration } from "../config.ts";
import { migrateToLatest } from "../db/database.ts";
import type { DemoSize } from "../modules/demo/generator.ts";
import { CliError, type Command, DEVELOPMENT_PEPPER_WARNING, isUniqueViolation } from "./command.ts";

/** Commands that prepare an installation: migrations, demo data, and the configuration reference. */

/** `migrate`: applies pending migrations. */
export const migrate: Command = {
  name: "migrate",
  summary: "Apply pending database migrations. Required on PostgreSQL before start and after upgrades.",
  flags: {},
  async run({ database, print }) {
    const handle = await database("raw");
    const applied = await migrateToLatest(handle.db);
    const label = handle.kind === "postgres" ? "PostgreSQL" : "embedded";
    if (applied.length === 0) print(`The ${label} database is up to date.`);
    for (const name of applied) print(`Applied ${name}`);
  },
};

/** `demo seed`: the demo the embedded server seeds on first start, into any database. */
export const demoSeed: Command = {
  name: "demo seed",
  summary:
    "Seed demo data (the team acme-labs, its members, repositories with months of runs, findings, coverage and dependencies) and print a token for its admin, once; the token is also written to ASSAY_DATA_DIR/demo-token. Refuses when the demo is already there.",
  flags: {
    size: {
      type: "string",
      placeholder: "SIZE",
      description:
        "small (default: what `npm start` seeds) or large (the demo plus 1,000 generated repositories and over 1,000,000 occurrences; meant for PostgreSQL and benchmarks).",
    },
    scale: {
      type: "string",
      placeholder: "FACTOR",
      description: "With --size large: multiply the generated teams and repositories (default 1).",
    },
  },
  async run({ flags, database, config, print, note }) {
    // The demo's generator and the upload path it seeds through load only for this command.
    const [{ DEMO_TEAM_LOGIN, hasDemoData, seedDemo }, { ingestRunSbom }, { DEMO_SIZES }] = await Promise.all(
      [
        import("../modules/demo/demo-seed.ts"),
        import("../ingestion/sca/sbom-upload.ts"),
        import("../modules/demo/generator.ts"),
      ],
    );
    const size = flags.optional("size") ?? "small";
    if (!isDemoSize(size, DEMO_SIZES)) {
      throw new CliError(`--size must be one of ${DEMO_SIZES.join(", ")}, got "${size}"`);
    }
    const scaleText = flags.optional("scale");
    const scale = scaleText === undefined ? 1 : Number(scaleText);
    if (!(scale > 0 && scale <= 100))
      throw new CliError(`--scale must be a number above 0 and at most 100, got "${scaleText}"`);
    if (scaleText !== undefined && size !== "large")
      throw new CliError("--scale applies to --size large only");
    const { db, kind } = await database();
    if (await hasDemoData(db))
      throw new CliError(`the demo is already seeded (account ${DEMO_TEAM_LOGIN} exists)`);
    if (size === "large" && kind === "embedded") {
      note(
        "Seeding the large data set into the embedded database; this takes a while (PostgreSQL is much faster).",
      );
    }
    const started = Date.now();
    let seeded: Awaited<ReturnType<typeof seedDemo>>;
    try {
      seeded = await seedDemo(db, { pepper: config.tokenPepper, uploadSbom: ingestRunSbom }, new Date(), {
        size,
        scale,
        onProgress: note,
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new CliError("cannot seed the demo: one of its users or accounts already exists");
      }
      throw error;
    }
    const { counts } = seeded;
    note(
      `Wrote ${counts.repositories ?? 0} repositories, ${counts.analysis_runs ?? 0} runs and ${counts.occurrences ?? 0} occurrences in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
    );
    const file = path.join(config.dataDir, "demo-token");
    const written = writeSecretFile(file, seeded.token);
    // Print the token even when the file could not be written: it cannot be recovered later.
    print(seeded.token);
    if (written instanceof Error) {
      throw new CliError(`seeded the demo, but could not write ${file}: ${written.message}`);
    }
    if (config.tokenPepperIsDefault) note(DEVELOPMENT_PEPPER_WARNING);
    note(
      `Seeded the demo; the token belongs to ${seeded.email}. Saved to ${file}; this is the only time it is printed.`,
    );
  },
};

function isDemoSize(size: string, sizes: readonly DemoSize[]): size is DemoSize {
  return (sizes as readonly string[]).includes(size);
}

/** Writes `secret` readable by the owner alone, even when the file already existed. */
function writeSecretFile(file: string, secret: string): Error | undefined {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** `config`: every configuration variable with its meaning, default and effective value. */
export const showConfig: Command = {
  name: "config",
  summary: "Print every configuration variable: its effective value, default and meaning.",
  flags: {},
  async run({ config, print }) {
    const values = effectiveValues(config);
    print("Assay reads its configuration from these environment variables (effective values shown):");
    for (const variable of CONFIG_VARIABLES) {
      print("");
      print(`${variable.name} = ${values[variable.name] ?? "(not shown)"}`);
      print(`    ${variable.meaning}`);
      print(`    Default: ${variable.default}`);
    }
  },
};

/**
 * The value in effect for each variable of {@link CONFIG_VARIABLES}, safe to print: the pepper is
 * only said to be set or not, and passwords in connection strings are masked.
 */
export function effectiveValues(config: Config): Record<string, string> {
  return {
    PORT: String(config.port),
    HOST: config.host,
    DATABASE_URL: config.databaseUrl ? maskPassword(config.databaseUrl) : "(unset: embedded database)",
    REDIS_URL: config.redisUrl ? maskPassword(config.redisUrl) : "(unset: in-memory rate limits)",
    ASSAY_DATA_DIR: config.dataDir,
    RATE_LIMIT_PER_HOUR: String(config.rateLimitPerHour),
    RATE_LIMIT_INSTANCES: String(config.rateLimitInstances),
    ASSAY_TOKEN_PEPPER: config.tokenPepperIsDefault ? "(development default)" : "(set)",
    ASSAY_SESSION_SECRET: config.sessionSecretIsDefault ? "(derived from the pepper)" : "(set)",
    LOG_LEVEL: config.logLevel,
    NODE_ENV: config.isProduction ? "production" : "(not production)",
    ASSAY_GRAPHQL_JIT: String(config.graphqlJit),
    ASSAY_GRAPHQL_JIT_AFTER_RUNS: String(config.graphqlJitAfterRuns),
    ASSAY_MAX_BODY_BYTES: String(config.maxBodyBytes),
    ASSAY_PUBLIC_URL: config.publicUrl,
    ASSAY_INSTALLATION_NAME: config.installationName,
    ASSAY_INSTALLATION_LOGO_URL: config.installationLogoUrl,
    ASSAY_SHUTDOWN_TIMEOUT_SECONDS: String(config.shutdownTimeoutSeconds),
    ASSAY_DATABASE_POOL_SIZE: String(config.databasePoolSize),
    ASSAY_TRUST_PROXY: String(config.trustProxy),
    ASSAY_IDENTITY_CACHE_MS: String(config.identityCacheMs),
    ASSAY_REDIS_KEY_PREFIX: config.redisKeyPrefix,
    ASSAY_WORKER: String(config.worker),
    ASSAY_WORKER_POLL_MS: String(config.workerPollMs),
    ASSAY_JOB_LEASE_SECONDS: String(config.jobLeaseSeconds),
    ASSAY_WEBHOOK_TIMEOUT_MS: String(config.webhookTimeoutMs),
    ASSAY_WEBHOOK_BACKOFF_BASE_MS: String(config.webhookBackoffBaseMs),
    ASSAY_WEBHOOK_BACKOFF_MAX_MS: String(config.webhookBackoffMaxMs),
    ASSAY_WEBHOOK_RETRY_WINDOW_SECONDS: String(config.webhookRetryWindowSeconds),
    ASSAY_WEBHOOK_DISABLE_AFTER_SECONDS: String(config.webhookDisableAfterSeconds),
    ASSAY_WEBHOOK_ALLOW_HTTP: String(config.webhookAllowHttp),
    ASSAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS: String(config.webhookAllowPrivateNetworks),
    ASSAY_ARTIFACT_MAX_BYTES: String(config.artifactMaxBytes),
    ASSAY_ARTIFACT_MAX_BODY_BYTES: String(config.artifactMaxBodyBytes),
    ASSAY_MAX_CONCURRENT_UPLOADS: String(config.maxConcurrentUploads),
    ASSAY_DATABASE_RETRY_AFTER_SECONDS: String(config.databaseRetryAfterSeconds),
    ASSAY_ARTIFACT_TIMEOUT_SECONDS: String(config.artifactTimeoutSeconds),
    ASSAY_ADVISORY_SYNC_URLS:
      config.advisorySyncUrls.length > 0
        ? config.advisorySyncUrls.map(displayUrl).join(", ")
        : "(unset: no scheduled sync)",
    ASSAY_ADVISORY_SYNC_INTERVAL: formatDuration(config.advisorySyncIntervalMs),
    ASSAY_ADVISORY_SYNC_MAX_BYTES: String(config.advisorySyncMaxBytes),
    ASSAY_ADVISORY_SYNC_ALLOW_PRIVATE_NETWORKS: String(config.advisorySyncAllowPrivateNetworks),
    ASSAY_METRICS:
      config.metrics.mode === "port"
        ? String(config.metrics.port)
        : config.metrics.mode === "main"
          ? "on"
          : "off",
    ASSAY_METRICS_HOST: config.metrics.mode === "port" ? config.metrics.host : "(unused)",
    OTEL_TRACES_EXPORTER: config.tracing ? config.tracing.exporter : "(tracing off)",
    OTEL_EXPORTER_OTLP_ENDPOINT: config.tracing?.exporter === "otlp" ? "(see the traces URL)" : "(unused)",
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:
      config.tracing?.exporter === "otlp" ? maskPassword(config.tracing.endpoint) : "(unused)",
    OTEL_SERVICE_NAME: config.tracing?.serviceName ?? "(tracing off)",
    OTEL_SDK_DISABLED: config.tracing ? "false" : "(tracing off)",
  };
}

function maskPassword(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = "****";
    return url.toString();
  } catch {
    return "(set)";
  }
}
