import type { BenchDatabase } from "./databases.ts";

/**
 * What is measured: the servers (targets) and the three queries, with the check that a server
 * answers a query correctly before it is loaded. A benchmark of 401s or errors is worthless, so
 * the check is strict.
 */

/** The per-user budget for the rows with rate limiting on: far more than a run can spend. */
export const RATE_LIMIT_ON = 100_000_000;

/** One server configuration to load. */
export interface Target {
  /** Row label in the table. */
  label: string;
  /** Which `--only` group selects it. */
  group: "bare" | "embedded" | "postgres";
  /** Apollo Server 5 on Assay's schema and context (bench/apollo-server.ts), on this database. */
  apollo?: { backend: "embedded" | "postgres" };
  /** Assay's settings; absent for the bare server and Apollo. */
  assay?: {
    backend: "embedded" | "postgres";
    jit: boolean;
    rateLimit: "off" | "memory" | "redis";
    /** Whether the server is given REDIS_URL (it connects even with the limit off). */
    redis: boolean;
  };
}

function assayTarget(
  backend: "embedded" | "postgres",
  redis: boolean,
  jit: boolean,
  rateLimit: "off" | "memory" | "redis",
): Target {
  const where = backend === "postgres" ? (redis ? "PostgreSQL + Redis" : "PostgreSQL") : "embedded";
  const limit = rateLimit === "off" ? "limit off" : `limit on (${rateLimit})`;
  return {
    label: `Assay, ${where}, ${jit ? "graphql-jit" : "graphql-js"}, ${limit}`,
    group: backend,
    assay: { backend, jit, rateLimit, redis },
  };
}

function apolloTarget(backend: "embedded" | "postgres"): Target {
  return {
    label: `Apollo Server 5, ${backend === "postgres" ? "PostgreSQL" : "embedded"}, Assay's schema and context`,
    group: backend,
    apollo: { backend },
  };
}

/** The database a target reads, if any. */
export function backendOf(target: Target): "embedded" | "postgres" | undefined {
  return target.assay?.backend ?? target.apollo?.backend;
}

/**
 * Every target the environment allows: the bare server; Apollo Server beside the Assay rows of
 * each database (their "× Apollo" ratio divides by its figure of the same round); the embedded
 * database with each execution engine and with the limit on in memory; the same on PostgreSQL (with Redis connected
 * when REDIS_URL is set) plus the limit counted in Redis. Rate-limit rows use graphql-js, the
 * default, so they compare with the graphql-js row above them.
 */
export function allTargets(databaseUrl: string | undefined, redisUrl: string | undefined): Target[] {
  const targets: Target[] = [{ label: "bare node:http, fixed JSON", group: "bare" }];
  const embeddedRedis = redisUrl !== undefined && databaseUrl === undefined;
  targets.push(
    apolloTarget("embedded"),
    assayTarget("embedded", false, false, "off"),
    assayTarget("embedded", false, true, "off"),
    assayTarget("embedded", false, false, "memory"),
  );
  if (embeddedRedis) targets.push(assayTarget("embedded", true, false, "redis"));
  if (databaseUrl) {
    const redis = redisUrl !== undefined;
    targets.push(
      apolloTarget("postgres"),
      assayTarget("postgres", redis, false, "off"),
      assayTarget("postgres", redis, true, "off"),
      assayTarget("postgres", false, false, "memory"),
    );
    if (redis) targets.push(assayTarget("postgres", true, false, "redis"));
  }
  return targets;
}

/** A query the benchmark sends. */
export interface BenchQuery {
  name: string;
  /** The JSON request body. */
  body(db: BenchDatabase | undefined): string;
  /** A description of what is wrong with `data`, or undefined when it is the expected answer. */
  checkData(data: unknown, db: BenchDatabase): string | undefined;
}

/** The repository id the bare server is sent when no database has been seeded (it never reads it). */
const PLACEHOLDER_ID = Buffer.from("Repository:bench00000").toString("base64");

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export const QUERIES: BenchQuery[] = [
  {
    name: "{ viewer { email } }",
    body: () => JSON.stringify({ query: "{ viewer { email } }" }),
    checkData(data, db) {
      const viewer = isRecord(data) ? data.viewer : undefined;
      return isRecord(viewer) && viewer.email === db.email ? undefined : `expected viewer.email ${db.email}`;
    },
  },
  {
    name: "node(id:) on a Repository",
    body: (db) =>
      JSON.stringify({
        query: "query($id: ID!) { node(id: $id) { id ... on Repository { name } } }",
        variables: { id: db?.repository.id ?? PLACEHOLDER_ID },
      }),
    checkData(data, db) {
      const node = isRecord(data) ? data.node : undefined;
      const { id, name } = db.repository;
      return isRecord(node) && node.id === id && node.name === name
        ? undefined
        : `expected node { id: ${id}, name: ${name} }`;
    },
  },
  {
    // The heavy read of issue 14: a repository's issues, each with its first findings, and both
    // totals (about 9 statements; the totals read check_issue_counts).
    name: "issues(first: 50) + occurrences(first: 5)",
    body: (db) =>
      JSON.stringify({
        query: `query($id: ID!) { node(id: $id) { ... on Repository { issues(first: 50) { totalCount
          edges { node { issue { shortcode } occurrences(first: 5) { totalCount edges { node { path beginLine } } } } } } } } }`,
        variables: { id: db?.repository.id ?? PLACEHOLDER_ID },
      }),
    checkData(data, db) {
      const node = isRecord(data) ? data.node : undefined;
      const issues = isRecord(node) ? node.issues : undefined;
      const edges = isRecord(issues) && Array.isArray(issues.edges) ? issues.edges : [];
      const total = isRecord(issues) ? issues.totalCount : undefined;
      const complete =
        typeof total === "number" &&
        total > 0 &&
        edges.length === Math.min(50, total) &&
        edges.every((edge: unknown) => {
          const occurrences = isRecord(edge) && isRecord(edge.node) ? edge.node.occurrences : undefined;
          return (
            isRecord(occurrences) && typeof occurrences.totalCount === "number" && occurrences.totalCount > 0
          );
        });
      return complete ? undefined : `expected ${db.repository.name}'s issues, each with its occurrences`;
    },
  },
];

/** The request headers for `db`'s demo token (none for the bare server). */
export function requestHeaders(db: BenchDatabase | undefined): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (db) headers.authorization = `Bearer ${db.token}`;
  return headers;
}

/**
 * Sends `query` once and throws unless the answer is right: 200, JSON, the expected data and no
 * errors from Assay or Apollo, and the rate-limit headers present exactly when the target has the
 * limit on (never for Apollo, which has no limiter).
 */
export async function verifyAnswer(
  url: string,
  target: Target,
  query: BenchQuery,
  db: BenchDatabase | undefined,
): Promise<void> {
  const response = await fetch(url, { method: "POST", headers: requestHeaders(db), body: query.body(db) });
  const text = await response.text();
  const fail = (why: string): never => {
    throw new Error(
      `${target.label} answered "${query.name}" wrongly: ${why}\n  HTTP ${response.status}: ${text.slice(0, 500)}`,
    );
  };
  if (response.status !== 200) fail("expected HTTP 200");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    fail("the body is not JSON");
  }
  if (backendOf(target) === undefined || !db) return;
  if (!isRecord(json) || json.errors !== undefined) fail("expected no errors");
  const problem = query.checkData(isRecord(json) ? json.data : undefined, db);
  if (problem) fail(problem);
  const limit = response.headers.get("x-ratelimit-limit");
  const rateLimit = target.assay?.rateLimit ?? "off";
  if (rateLimit === "off" && limit !== null) fail("rate limiting is on but should be off");
  if (rateLimit !== "off" && limit !== String(RATE_LIMIT_ON)) {
    fail(`expected x-ratelimit-limit ${RATE_LIMIT_ON}, got ${limit}`);
  }
}
