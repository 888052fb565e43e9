import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { OperationNames } from "./operation-names.ts";

/**
 * The Prometheus metrics of one Assay instance (docs/observability.md lists them). Every label
 * takes values from a bounded set: routes are fixed names, never raw paths; GraphQL operation
 * names arrive bounded (src/observability/operation-names.ts); outcomes and kinds come from small
 * enumerations.
 */

/** How a GraphQL request ended: executed without errors, executed or validated with errors, or turned away before execution (401, 413, 415, 429). */
export type GraphQLOutcome = "ok" | "error" | "refused";

/** Which rate limit refused a request. */
export type RateLimitKind = "anonymous" | "user";

/** How a job run ended, as the worker settled it. */
export type JobRunOutcome = "done" | "retry" | "repeat" | "failed" | "released" | "lost" | "error";

/** The connection pool's use at one moment (pg's `Pool` counters). */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** One job kind's queue, read from the database (the jobs table is shared by every instance). */
export interface JobQueueStats {
  kind: string;
  /** Queued jobs whose run time has come and that no worker holds. */
  due: number;
  /** Queued jobs a worker holds under a lease. */
  running: number;
  /** Queued jobs waiting for a later run time (retries after a backoff, deadlines). */
  scheduled: number;
  /** Jobs whose handler gave up, kept for inspection. */
  failed: number;
  /** Seconds the oldest due job has waited past its run time; 0 with none due. */
  oldestDueSeconds: number;
}

const METHODS = new Set(["GET", "POST", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS"]);
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900];

/** The instance's metrics and the registry `/metrics` renders. */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<"route" | "method" | "status">;
  private readonly httpDuration: Histogram<"route">;
  private readonly graphqlOperations: Counter<"operation" | "outcome">;
  private readonly graphqlDuration: Histogram<"outcome">;
  private readonly rateLimited: Counter<"limit">;
  private readonly rateLimitLocal: Counter<"limit">;
  private readonly rateLimitReconciled: Counter;
  private readonly httpInFlight: Gauge;
  private readonly databaseErrors: Counter<"pool">;
  private readonly jobRuns: Counter<"kind" | "outcome">;
  private readonly jobDuration: Histogram<"kind">;
  private readonly webhookAttempts: Counter<"outcome">;
  private readonly artifacts: Counter<"kind" | "outcome">;
  private readonly artifactDuration: Histogram<"kind" | "outcome">;
  private readonly pools = new Map<string, () => PoolStats>();
  private jobQueue: (() => Promise<JobQueueStats[]>) | undefined;

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.httpRequests = new Counter({
      name: "assay_http_requests_total",
      help: "HTTP requests answered, by route name, method and status code (/metrics itself not counted).",
      labelNames: ["route", "method", "status"],
      registers,
    });
    this.httpDuration = new Histogram({
      name: "assay_http_request_duration_seconds",
      help: "Time from a request's arrival to the end of its answer, by route name.",
      labelNames: ["route"],
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.httpInFlight = new Gauge({
      name: "assay_http_requests_in_flight",
      help: "HTTP requests arrived and not yet answered (/metrics itself not counted): what a shutdown waits for.",
      registers,
    });
    this.graphqlOperations = new Counter({
      name: "assay_graphql_operations_total",
      help: 'GraphQL requests by operation name (bounded; "anonymous" without one, "other" past the cap) and outcome: ok, error or refused.',
      labelNames: ["operation", "outcome"],
      registers,
    });
    this.graphqlDuration = new Histogram({
      name: "assay_graphql_operation_duration_seconds",
      help: "Time to answer a GraphQL request at /graphql/, by outcome.",
      labelNames: ["outcome"],
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.rateLimited = new Counter({
      name: "assay_rate_limited_requests_total",
      help: "Requests refused with 429 by the per-user or per-address (anonymous) rate limit.",
      labelNames: ["limit"],
      registers,
    });
    this.rateLimitLocal = new Counter({
      name: "assay_rate_limit_local_decisions_total",
      help: "Rate-limit decisions this instance took alone, from its share of the budget, because the configured Redis was down or too slow to answer; by limit (user or anonymous).",
      labelNames: ["limit"],
      registers,
    });
    this.rateLimitReconciled = new Counter({
      name: "assay_rate_limit_reconciled_requests_total",
      help: "Requests allowed alone during a Redis outage and added to the shared counts once Redis was back.",
      registers,
    });
    this.databaseErrors = new Counter({
      name: "assay_database_errors_total",
      help: "SQL statements that failed and idle connections lost, by pool (api or worker).",
      labelNames: ["pool"],
      registers,
    });
    this.jobRuns = new Counter({
      name: "assay_job_runs_total",
      help: "Job runs by this instance's worker, by kind and how they were settled: done, retry, repeat (a recurring job queued for its next time), failed (given up), released (worker stopping), lost (another worker held the lease) or error (could not settle).",
      labelNames: ["kind", "outcome"],
      registers,
    });
    this.jobDuration = new Histogram({
      name: "assay_job_duration_seconds",
      help: "Time a job run took, settling included, by kind.",
      labelNames: ["kind"],
      buckets: JOB_BUCKETS,
      registers,
    });
    this.webhookAttempts = new Counter({
      name: "assay_webhook_delivery_attempts_total",
      help: "Webhook delivery attempts by outcome: succeeded (a 2xx answer) or failed.",
      labelNames: ["outcome"],
      registers,
    });
    this.artifacts = new Counter({
      name: "assay_artifacts_processed_total",
      help: "Artifacts processed by kind (SARIF, COVERAGE, SBOM, CHANGES) and outcome: processed or failed.",
      labelNames: ["kind", "outcome"],
      registers,
    });
    this.artifactDuration = new Histogram({
      name: "assay_artifact_processing_duration_seconds",
      help: "Time to process one artifact, its transaction included, by kind and outcome.",
      labelNames: ["kind", "outcome"],
      buckets: JOB_BUCKETS,
      registers,
    });
    this.registerPoolGauges();
    this.registerJobQueueGauges();
    if (options.processMetrics !== false)
      collectDefaultMetrics({ register: this.registry, prefix: "assay_" });
  }

  /** The text `/metrics` answers with. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** The Content-Type of {@link render}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** One HTTP request has arrived; {@link observeRequest} counts it answered. */
  observeArrival(): void {
    this.httpInFlight.inc();
  }

  /** Counts one answered HTTP request (one that {@link observeArrival} counted as arrived). */
  observeRequest(route: string, method: string | undefined, status: number, seconds: number): void {
    const verb = method && METHODS.has(method) ? method : "other";
    this.httpInFlight.dec();
    this.httpRequests.inc({ route, method: verb, status: String(status) });
    this.httpDuration.observe({ route }, seconds);
  }

  /** Counts one GraphQL request by its operation name, bounded by {@link OperationNames}, and outcome. */
  observeOperation(operation: string, outcome: GraphQLOutcome, seconds: number): void {
    this.graphqlOperations.inc({ operation, outcome });
    this.graphqlDuration.observe({ outcome }, seconds);
  }

  /** Counts one request refused by a rate limit. */
  observeRateLimited(limit: RateLimitKind): void {
    this.rateLimited.inc({ limit });
  }

  /** Counts one rate-limit decision taken without Redis although Redis is configured. */
  observeRateLimitDecidedLocally(limit: RateLimitKind): void {
    this.rateLimitLocal.inc({ limit });
  }

  /** Counts requests of an outage added to the shared counts when Redis returned. */
  observeRateLimitReconciled(requests: number): void {
    this.rateLimitReconciled.inc(requests);
  }

  /**
   * Reports `isUp` as `assay_redis_up` at each scrape. Called only when Redis is configured, so an
   * instance without Redis has no such series rather than one that reads as an outage.
   */
  watchRedis(isUp: () => boolean): void {
    new Gauge({
      name: "assay_redis_up",
      help: "1 while this instance's connection to Redis (REDIS_URL) is open, 0 while it is not.",
      registers: [this.registry],
      collect() {
        this.set(isUp() ? 1 : 0);
      },
    });
  }

  /** Counts a failed statement or a lost connection of `pool`. */
  observeDatabaseError(pool: string): void {
    this.databaseErrors.inc({ pool });
  }

  /** Counts one job run and its duration. */
  observeJobRun(kind: string, outcome: JobRunOutcome, seconds: number): void {
    this.jobRuns.inc({ kind, outcome });
    this.jobDuration.observe({ kind }, seconds);
  }

  /** Counts one webhook delivery attempt. */
  observeWebhookAttempt(succeeded: boolean): void {
    this.webhookAttempts.inc({ outcome: succeeded ? "succeeded" : "failed" });
  }

  /** Counts one artifact processed (or failed) and its duration. */
  observeArtifact(kind: string, outcome: "processed" | "failed", seconds: number): void {
    this.artifacts.inc({ kind, outcome });
    this.artifactDuration.observe({ kind, outcome }, seconds);
  }

  /** Reports `stats` of connection pool `name` at each scrape. */
  watchPool(name: string, stats: () => PoolStats): void {
    this.pools.set(name, stats);
  }

  /** Reads the job queue with `read` (one query) at each scrape. */
  watchJobQueue(read: () => Promise<JobQueueStats[]>): void {
    this.jobQueue = read;
  }

  private registerPoolGauges(): void {
    const pools = this.pools;
    const read = (gauge: Gauge<"pool">, pick: (stats: PoolStats) => number) => {
      gauge.reset();
      for (const [pool, stats] of pools) gauge.set({ pool }, pick(stats()));
    };
    new Gauge({
      name: "assay_database_pool_connections",
      help: "Open connections of each database pool (api: requests; worker: the job worker's own).",
      labelNames: ["pool"],
      registers: [this.registry],
      collect() {
        read(this, (s) => s.total);
      },
    });
    new Gauge({
      name: "assay_database_pool_idle_connections",
      help: "Open connections of each pool not in use.",
      labelNames: ["pool"],
      registers: [this.registry],
      collect() {
        read(this, (s) => s.idle);
      },
    });
    new Gauge({
      name: "assay_database_pool_waiting_requests",
      help: "Statements waiting for a connection of each pool.",
      labelNames: ["pool"],
      registers: [this.registry],
      collect() {
        read(this, (s) => s.waiting);
      },
    });
  }

  /**
   * The queue gauges, filled by one query per scrape. The registry collects every metric at once,
   * so the first gauge's collect starts the read and the others await the same answer.
   */
  private registerJobQueueGauges(): void {
    let current: Promise<JobQueueStats[]> | undefined;
    const readQueue = async (): Promise<JobQueueStats[]> => {
      if (!this.jobQueue) return [];
      try {
        return await this.jobQueue();
      } catch {
        // An unreachable database shows as missing queue series, not as a failed scrape.
        this.observeDatabaseError("api");
        return [];
      }
    };
    const gauge = (name: string, help: string, pick: (row: JobQueueStats) => number, first = false) =>
      new Gauge({
        name,
        help,
        labelNames: ["kind"],
        registers: [this.registry],
        async collect() {
          if (first || !current) current = readQueue();
          const rows = await current;
          this.reset();
          for (const row of rows) this.set({ kind: row.kind }, pick(row));
        },
      });
    gauge(
      "assay_job_queue_due",
      "Queued jobs whose run time has come and that no worker holds yet, by kind. Read from the database: the same on every instance.",
      (row) => row.due,
      true,
    );
    gauge(
      "assay_job_queue_running",
      "Jobs a worker holds under a lease, by kind. Read from the database.",
      (row) => row.running,
    );
    gauge(
      "assay_job_queue_scheduled",
      "Queued jobs waiting for a later run time (retries after a backoff, deadlines), by kind. Read from the database.",
      (row) => row.scheduled,
    );
    gauge(
      "assay_job_queue_failed",
      "Jobs given up and kept for inspection, by kind. Read from the database.",
      (row) => row.failed,
    );
    gauge(
      "assay_job_queue_oldest_due_seconds",
      "Seconds the oldest due job of each kind has waited past its run time (0: none due). Read from the database.",
      (row) => row.oldestDueSeconds,
    );
  }
}
