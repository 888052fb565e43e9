import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
} from "graphql";
import { createHandler, type Response as GraphQLHttpResponse, type OperationContext } from "graphql-http";
import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import { type DatabaseAvailability, isDatabaseUnavailable } from "../db/availability.ts";
import type { Database } from "../db/types.ts";
import {
  ANONYMOUS_VIEWER,
  type CredentialRefusal,
  type GraphQLContext,
  RequestLoaders,
  type Viewer,
} from "../graphql/context.ts";
import type { DocumentCache } from "../graphql/document-cache.ts";
import {
  AssayError,
  badRequest,
  badUserInput,
  databaseUnavailableAt,
  ErrorCode,
  errorDocument,
  internalError,
  payloadTooLarge,
  serviceBusy,
  unsupportedMediaType,
} from "../graphql/errors.ts";
import { checkPageSizes } from "../graphql/limits.ts";
import { checkVariables, withoutEchoedVariable } from "../graphql/variables.ts";
import type { Logger } from "../logger.ts";
import type { GraphQLOutcome, Metrics } from "../observability/metrics.ts";
import { OperationNames } from "../observability/operation-names.ts";
import type { Tracing } from "../observability/tracing.ts";
import { parseBearer } from "./bearer.ts";
import { BodyError, type BodyExtension, readBody } from "./body.ts";
import {
  type AdmissionDeps,
  admitAnonymous,
  admitUser,
  type Headers,
  sendUnauthorized,
} from "./caller-admission.ts";
import { isJsonContentType, JSON_TYPE, jsonSyntaxReason, sendJson } from "./json.ts";
import { LargeBodySlots, leadingQuery } from "./large-bodies.ts";
import { isPublicRequest, type PublicRootFields, TOKEN_REFRESH_ROOT_FIELDS } from "./public-operations.ts";
import type { RateLimiter } from "./rate-limit.ts";
import { turnOfRead, waitForTurnsOtherRequests } from "./turn.ts";

/** Paths the GraphQL endpoint answers on: the cloud form and the on-premise form, slash optional. */
export const GRAPHQL_PATHS: ReadonlySet<string> = new Set([
  "/graphql",
  "/graphql/",
  "/api/graphql",
  "/api/graphql/",
]);

/**
 * Who is calling: the viewer behind a request's bearer credential, or why it is refused. The auth
 * module provides it (src/modules/auth/credential-service.ts); the endpoint only reads the answer.
 */
export interface RequestAuthenticator {
  /** The viewer behind `credential` (null: no Authorization header), or why it is refused. */
  authenticate(credential: string | null): Promise<Viewer | CredentialRefusal>;
  /** {@link authenticate} for `refreshPat` alone, which also takes a recently expired token. */
  authenticateForRefresh(credential: string | null): Promise<Viewer | CredentialRefusal>;
}

/** What the GraphQL endpoint needs. */
export interface GraphQLEndpointDeps {
  /** Told of requests that failed for want of the database (503 and one warning per outage). */
  availability?: DatabaseAvailability;
  /** The large-body slots shared with the other upload path; a count of its own when left out. */
  largeBodies?: LargeBodySlots;
  schema: GraphQLSchema;
  documents: DocumentCache;
  config: Config;
  db: Kysely<Database>;
  authenticator: RequestAuthenticator;
  rateLimiter: RateLimiter;
  logger: Logger;
  /** Where operations and rate-limit refusals are counted; none when metrics are off. */
  metrics?: Metrics;
  /** Gives each request a span; none when tracing is off. */
  tracing?: Tracing;
}

/** Facts about one request, filled in as it is handled, for its log line. */
export interface RequestRecord {
  requestId: string;
  userId?: string;
  operationName?: string;
  /** How the GraphQL request ended, once known (metrics); derived from the status when unset. */
  outcome?: GraphQLOutcome;
  /** Set when the request failed because the database could not be reached (answered 503). */
  databaseUnavailable?: boolean;
}

/** Statuses of requests turned away before their document was looked at. */
const REFUSED_STATUSES = new Set([401, 405, 413, 415, 429]);

const LIMIT_CODES = new Set<string>([
  ErrorCode.MAX_DEPTH_EXCEEDED,
  ErrorCode.MAX_ALIASES_EXCEEDED,
  ErrorCode.MAX_DIRECTIVES_EXCEEDED,
  ErrorCode.MAX_TOKENS_EXCEEDED,
  ErrorCode.MAX_PAGE_SIZE_EXCEEDED,
  ErrorCode.MAX_NODES_EXCEEDED,
]);
const SUGGESTION = / ?Did you mean [^?]*\?/g;

/**
 * `error` as the caller sees it: in production without graphql-js' "Did you mean …?" hints, which
 * would disclose the schema. The one place the endpoint removes them (validation errors lose
 * theirs in the document cache, which has the same switch).
 */
function withoutSuggestion(error: GraphQLError, isProduction: boolean): GraphQLError {
  if (!isProduction) return error;
  const message = error.message.replace(SUGGESTION, "");
  if (message === error.message) return error;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: error.extensions,
  });
}

/**
 * The Content-Type of a successful answer for the Accept headers clients commonly send (none,
 * `application/json`, any type, the GraphQL response type, and the lists of the common HTTP
 * libraries), as graphql-http's negotiation chooses it: the first acceptable type of the list,
 * whatever its weight. Any other Accept is left to graphql-http.
 */
export const ANSWER_TYPE_OF_ACCEPT: ReadonlyMap<string, string> = new Map([
  ["", "application/json; charset=utf-8"],
  ["*/*", "application/json; charset=utf-8"],
  ["application/json", "application/json; charset=utf-8"],
  ["application/json, text/plain, */*", "application/json; charset=utf-8"],
  ["application/graphql-response+json", "application/graphql-response+json; charset=utf-8"],
  ["application/graphql-response+json, application/json", "application/graphql-response+json; charset=utf-8"],
  [
    "application/graphql-response+json, application/json;q=0.9",
    "application/graphql-response+json; charset=utf-8",
  ],
]);

/** When a caller refused for want of a large-body slot may try again. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * The operation that may send a body over `ASSAY_MAX_BODY_BYTES` (up to
 * `ASSAY_ARTIFACT_MAX_BODY_BYTES`) with a valid token: an artifact upload, and nothing beside it.
 */
const UPLOAD_ROOT_FIELDS: PublicRootFields = { query: new Set(), mutation: new Set(["uploadArtifact"]) };

/**
 * Gives every error a stable code and hides what the caller should not see: unexpected errors
 * become "Internal server error" with the request id (the real one is logged with its stack), and
 * in production, validation suggestions are removed.
 */
function presentErrors(
  errors: readonly GraphQLError[],
  record: RequestRecord,
  deps: Pick<GraphQLEndpointDeps, "logger" | "config" | "availability">,
): GraphQLError[] {
  return errors.map((error) => {
    // graphql-jit's errors leave `extensions` undefined unless the original error had some.
    if (error.extensions?.code !== undefined) return error;
    const original = error.originalError;
    if (!error.path) {
      // Request-level failures from graphql-js (variables that do not coerce, unknown operation).
      const refused = new AssayError(withoutEchoedVariable(error.message), ErrorCode.BAD_USER_INPUT, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
      });
      return withoutSuggestion(refused, deps.config.isProduction);
    }
    if (isDatabaseUnavailable(original ?? error)) {
      // One warning per outage (DatabaseAvailability), not a stack per request.
      deps.availability?.failed(original ?? error);
      record.databaseUnavailable = true;
      return databaseUnavailableAt(error, deps.config.databaseRetryAfterSeconds);
    }
    deps.logger.error(
      { requestId: record.requestId, err: original ?? error, path: error.path },
      "resolver failed",
    );
    const masked = internalError(record.requestId);
    return new GraphQLError(masked.message, {
      nodes: error.nodes,
      path: error.path,
      extensions: masked.extensions,
    });
  });
}

/**
 * An execution's result as the caller reads it: errors presented ({@link presentErrors}), and the
 * members in one order whichever engine ran it — `errors` first when there are any, as graphql-js
 * and the GraphQL specification put them, then `data`, then `extensions`. graphql-jit puts `data`
 * first; without this the same request would answer different bytes with ASSAY_GRAPHQL_JIT on.
 */
function presentResult(
  result: ExecutionResult,
  record: RequestRecord,
  deps: Pick<GraphQLEndpointDeps, "logger" | "config" | "availability">,
): ExecutionResult {
  if (!result.errors) return result;
  const { errors, data, extensions, ...rest } = result;
  return {
    errors: presentErrors(errors, record, deps),
    ...(data === undefined ? {} : { data }),
    ...(extensions === undefined ? {} : { extensions }),
    ...rest,
  };
}

/** Runs a fixed operation as a viewer, in-process; see {@link createOperationRunner}. */
export type OperationRunner = (
  viewer: Viewer,
  requestId: string,
  query: string,
  variables: Record<string, unknown>,
) => Promise<ExecutionResult>;

/**
 * Runs operations of the server's own (the MCP tools', src/mcp/) against the schema as `viewer`,
 * with a request's context: the same resolvers, loaders, permission checks and error
 * presentation as a request to the endpoint, without HTTP. Documents go through the same cache
 * (parse, validation, limits) and page-size checks; a document that fails them is a bug of its
 * caller, and answers its errors like any other.
 */
export function createOperationRunner(
  deps: Pick<GraphQLEndpointDeps, "schema" | "documents" | "config" | "db" | "logger" | "availability">,
): OperationRunner {
  return async (viewer, requestId, query, variables) => {
    const prepared = deps.documents.prepare(query);
    if (prepared.errors.length > 0 || !prepared.document) return { errors: [...prepared.errors] };
    // The API's limits hold for the tools' operations too, so a tool works alike over stdio.
    const limitErrors = checkPageSizes(deps.schema, prepared.document, undefined, variables);
    if (limitErrors.length > 0) return { errors: limitErrors };
    const contextValue: GraphQLContext = {
      requestId,
      viewer,
      db: deps.db,
      config: deps.config,
      logger: deps.logger,
      loaders: new RequestLoaders(deps.db),
    };
    const compiled = deps.documents.compiled(prepared.document, undefined);
    const result: ExecutionResult = compiled
      ? await compiled.query(undefined, contextValue, variables)
      : await execute({
          schema: deps.schema,
          document: prepared.document,
          variableValues: variables,
          contextValue,
        });
    return presentResult(result, { requestId }, deps);
  };
}

/** Builds the handler of {@link GRAPHQL_PATHS}. */
export function createGraphQLEndpoint(deps: GraphQLEndpointDeps) {
  const { schema, documents, config, db, authenticator, rateLimiter } = deps;
  const admission: AdmissionDeps = { rateLimiter, trustProxy: config.trustProxy, metrics: deps.metrics };
  const uploadMaxBodyBytes = Math.max(config.maxBodyBytes, config.artifactMaxBodyBytes);
  const largeBodies = deps.largeBodies ?? new LargeBodySlots(config.maxConcurrentUploads);
  const bodyLimits: BodyLimits = {
    maxBodyBytes: config.maxBodyBytes,
    uploadMaxBodyBytes,
    isUpload: (request) => isUploadRequest(request),
    largeBody: (res) => ({
      upToBytes: uploadMaxBodyBytes,
      extend: (prefix) => {
        const query = leadingQuery(prefix);
        if (query === undefined || !isUploadRequest({ query })) return undefined;
        const release = largeBodies.tryAcquire();
        if (!release) return "busy";
        // Held until the answer is out: the body stays in memory while the upload is handled.
        res.once("close", release);
        return uploadMaxBodyBytes;
      },
    }),
  };

  /**
   * True when the parsed body asks for `uploadArtifact` alone, with a query document within
   * `ASSAY_MAX_BODY_BYTES` (the report belongs in the variables, never in the cached document).
   */
  function isUploadRequest(request: unknown): boolean {
    if (request === null || typeof request !== "object") return false;
    const { query, operationName } = request as Record<string, unknown>;
    if (typeof query !== "string" || Buffer.byteLength(query) > config.maxBodyBytes) return false;
    if (operationName !== undefined && operationName !== null && typeof operationName !== "string")
      return false;
    return isPublicRequest(documents, query, operationName, UPLOAD_ROOT_FIELDS);
  }

  const { metrics, tracing } = deps;
  const operationNames = new OperationNames();
  // The request record of each execution's context, so the execution can say how it ended.
  const executing = new WeakMap<GraphQLContext, RequestRecord>();
  const handler = createHandler<IncomingMessage, { viewer: Viewer; record: RequestRecord }, GraphQLContext>({
    schema,
    onSubscribe: (req, params) => {
      const { record, viewer } = req.context;
      const prepared = documents.prepare(params.query);
      const document = prepared.document;
      const operation = document ? getOperationAST(document, params.operationName) : null;
      // Known from the parse alone, so requests that fail validation are logged with it too.
      record.operationName = params.operationName ?? operation?.name?.value;
      if (operation?.operation === "mutation" && req.method === "GET") {
        // GraphQL over HTTP: GET is for queries only. Answered before validation, so it holds
        // whatever the schema's mutations are.
        record.outcome = "refused";
        return mutationOverGet();
      }
      record.outcome = "error";
      if (prepared.errors.length > 0 || !document) {
        return limitResponse(prepared.errors) ?? [...prepared.errors];
      }
      if (!operation) return [operationNotFound(params.operationName)];
      const variableErrors = checkVariables(schema, document, params.operationName, params.variables);
      if (variableErrors.length > 0) {
        return variableErrors.map((error) => withoutSuggestion(error, config.isProduction));
      }
      const pageErrors = checkPageSizes(schema, document, params.operationName, params.variables);
      if (pageErrors.length > 0) return limitResponse(pageErrors) ?? pageErrors;
      record.outcome = undefined;
      const contextValue: GraphQLContext = {
        requestId: record.requestId,
        viewer,
        db,
        config,
        logger: deps.logger,
        loaders: new RequestLoaders(db),
      };
      executing.set(contextValue, record);
      const args: ExecutionArgs & { contextValue: GraphQLContext } = {
        schema,
        document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue,
      };
      return args;
    },
    execute: async (args) => {
      const context = args.contextValue as GraphQLContext;
      const compiled = documents.compiled(args.document, args.operationName);
      const result: ExecutionResult = compiled
        ? await compiled.query(undefined, context, args.variableValues ?? {})
        : await execute(args);
      const record = executing.get(context);
      if (record) record.outcome = result.errors ? "error" : "ok";
      return presentResult(result, record ?? { requestId: context.requestId }, deps);
    },
    // An answer without errors is written here: graphql-http would write it with a replacer that
    // looks for stray Error objects in every value, which a result without errors cannot hold,
    // at about twice the cost of a plain JSON.stringify for a page of issues.
    onOperation: (req, _args, result) => {
      if (result.errors) return undefined;
      const contentType = ANSWER_TYPE_OF_ACCEPT.get(req.raw.headers.accept ?? "");
      if (contentType === undefined) return undefined;
      return [
        JSON.stringify(result),
        { status: 200, statusText: "OK", headers: { "content-type": contentType } },
      ];
    },
    formatError: (error) => (error instanceof GraphQLError ? error : badRequest(error.message)),
  });

  /**
   * What a request without a valid credential may still run: a public operation (as
   * ANONYMOUS_VIEWER), or `refreshPat` alone with a token that expired within its grace period (as
   * that token). Anything else, including a body that cannot be read as a GraphQL request, gets
   * the same 401 as before; "aborted" when the client went away.
   */
  async function admitWithoutToken(
    req: IncomingMessage,
    credential: string | null,
    refusal: CredentialRefusal,
  ): Promise<{ viewer: Viewer; body: unknown } | "refused" | "too-large" | "aborted"> {
    const request = await readRequestWithoutToken(req, config.maxBodyBytes);
    if (typeof request === "string") return request;
    if (
      refusal === "expired" &&
      isPublicRequest(documents, request.query, request.operationName, TOKEN_REFRESH_ROOT_FIELDS)
    ) {
      const identity = await authenticator.authenticateForRefresh(credential);
      if (typeof identity !== "string") return { viewer: identity, body: request.body };
    }
    if (isPublicRequest(documents, request.query, request.operationName)) {
      return { viewer: ANONYMOUS_VIEWER, body: request.body };
    }
    return "refused";
  }

  /** Handles one request to the GraphQL endpoint and counts it by operation and outcome. */
  return async function handleGraphQL(
    req: IncomingMessage,
    res: ServerResponse,
    record: RequestRecord,
  ): Promise<void> {
    if (!metrics && !tracing) return handleRequest(req, res, record);
    const started = performance.now();
    const outcomeOf = (): GraphQLOutcome => {
      const status = res.statusCode;
      return record.outcome ?? (REFUSED_STATUSES.has(status) ? "refused" : status >= 400 ? "error" : "ok");
    };
    const handle = async () => {
      try {
        await handleRequest(req, res, record);
      } finally {
        const name = operationNames.label(record.operationName);
        metrics?.observeOperation(name, outcomeOf(), (performance.now() - started) / 1000);
      }
    };
    if (!tracing) return handle();
    return tracing.inSpan("graphql", { "http.request.method": req.method ?? "" }, async (span) => {
      try {
        await handle();
      } finally {
        const outcome = outcomeOf();
        // The name the caller gave, bounded as the metrics' label is, so span names stay few too.
        const name = operationNames.label(record.operationName);
        span.setName(`graphql ${name}`);
        span.setAttributes({
          "graphql.operation.name": name,
          "assay.outcome": outcome,
          "http.response.status_code": res.statusCode,
        });
        if (outcome === "error") span.fail("the answer has errors");
      }
    });
  };

  /** Handles one request to the GraphQL endpoint; `record` gathers what the log line reports. */
  async function handleRequest(
    req: IncomingMessage,
    res: ServerResponse,
    record: RequestRecord,
  ): Promise<void> {
    const readIn = turnOfRead();
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "POST") {
      const error = new AssayError(
        `Method ${method} is not allowed; use POST (or GET for queries).`,
        ErrorCode.METHOD_NOT_ALLOWED,
      );
      return sendJson(res, 405, errorDocument(error), { allow: "GET, POST" });
    }

    const credential = parseBearer(req.headers.authorization);
    const identity = await authenticator.authenticate(credential);
    let viewer: Viewer;
    let body: unknown;
    let bodyRead = false;
    if (typeof identity === "string") {
      if (!(await admitAnonymous(req, res, admission))) return;
      const admitted = await admitWithoutToken(req, credential, identity);
      if (admitted === "aborted") {
        res.destroy();
        return;
      }
      if (admitted === "refused" || admitted === "too-large") {
        // An oversized body is not read to its end: close the connection instead of draining it.
        return sendUnauthorized(res, identity, admitted === "too-large" ? { connection: "close" } : {});
      }
      ({ viewer, body } = admitted);
      bodyRead = true;
    } else {
      viewer = identity;
    }

    let headers: Headers = {};
    if (viewer !== ANONYMOUS_VIEWER) {
      record.userId = viewer.userId;
      const admitted = await admitUser(viewer, res, admission);
      if (!admitted) return;
      headers = admitted;
    }

    if (method === "POST" && !bodyRead) {
      const read = await readJsonBody(req, res, headers, bodyLimits);
      if (read === undefined) return;
      body = read.body;
    }

    // Run after the other requests this turn read, not between them (src/http/turn.ts).
    const turn = waitForTurnsOtherRequests(readIn);
    if (turn) await turn;
    const [responseBody, init] = await handler({
      method,
      url: req.url ?? "/",
      headers: req.headers,
      body: body as string,
      raw: req,
      context: { viewer, record },
    } as Parameters<typeof handler>[0]);
    const responseHeaders: Headers = { ...headers };
    for (const [name, value] of Object.entries(init.headers ?? {})) {
      if (value !== undefined) responseHeaders[name.toLowerCase()] = String(value);
    }
    responseHeaders["content-type"] ??= JSON_TYPE;
    let status = init.status;
    if (record.databaseUnavailable) {
      // Not the caller's fault and not a bug: a status a client or balancer knows to retry.
      status = 503;
      responseHeaders["retry-after"] = String(config.databaseRetryAfterSeconds);
    }
    const text = responseBody ?? JSON.stringify(errorDocument(badRequest(init.statusText ?? "Bad request")));
    res.writeHead(status, { ...responseHeaders, "content-length": Buffer.byteLength(text) });
    res.end(text);
  }
}

/**
 * How large an authenticated request's body may be: `maxBodyBytes`, or up to `uploadMaxBodyBytes`
 * for a request `isUpload` accepts (an artifact upload, which carries its report in the body).
 */
interface BodyLimits {
  maxBodyBytes: number;
  uploadMaxBodyBytes: number;
  isUpload: (body: unknown) => boolean;
  /** How a body may pass `maxBodyBytes`: by opening with an upload's query, while a slot is free. */
  largeBody: (res: ServerResponse) => BodyExtension;
}

/**
 * The JSON body of an admitted POST, or undefined once an error answer was sent (415, 413, 400) or
 * the client went away. `headers` (the rate-limit headers) go on the error answers too. A body
 * is read past `limits.maxBodyBytes` (up to the upload limit) only when its first bytes show an
 * upload's query and a large-body slot is free (else 503); anything else stops at the limit (413).
 */
async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  headers: Headers,
  limits: BodyLimits,
): Promise<{ body: unknown } | undefined> {
  if (!isJsonContentType(req.headers["content-type"])) {
    sendJson(res, 415, errorDocument(unsupportedMediaType(req.headers["content-type"])), headers);
    return undefined;
  }
  const tooLarge = (maxBytes: number) => {
    sendJson(res, 413, errorDocument(payloadTooLarge(maxBytes)), headers);
    return undefined;
  };
  const extension = limits.largeBody(res);
  const declared = Number(req.headers["content-length"]);
  // The limit a 413 names: the upload limit once the body showed it is an upload (or claims more).
  let applied = declared > limits.uploadMaxBodyBytes ? limits.uploadMaxBodyBytes : limits.maxBodyBytes;
  let text: string;
  try {
    text = await readBody(req, limits.maxBodyBytes, {
      upToBytes: extension.upToBytes,
      extend: (prefix) => {
        const larger = extension.extend(prefix);
        if (typeof larger === "number") applied = larger;
        return larger;
      },
    });
  } catch (error) {
    if (error instanceof BodyError && error.reason === "too-large") {
      sendJson(res, 413, errorDocument(payloadTooLarge(applied)), {
        ...headers,
        connection: "close",
      });
      return undefined;
    }
    if (error instanceof BodyError && error.reason === "busy") {
      sendJson(res, 503, errorDocument(serviceBusy(BUSY_RETRY_AFTER_SECONDS)), {
        ...headers,
        "retry-after": String(BUSY_RETRY_AFTER_SECONDS),
        connection: "close",
      });
      return undefined;
    }
    if (error instanceof BodyError && error.reason === "aborted") {
      // Nobody is listening any more; end the exchange without an answer.
      res.destroy();
      return undefined;
    }
    throw error;
  }
  const oversized = Buffer.byteLength(text) > limits.maxBodyBytes;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    if (oversized) return tooLarge(limits.maxBodyBytes);
    const reason = jsonSyntaxReason(error);
    sendJson(res, 400, errorDocument(badRequest(`Request body is not valid JSON: ${reason}`)), headers);
    return undefined;
  }
  if (oversized && !limits.isUpload(body)) return tooLarge(limits.maxBodyBytes);
  return { body };
}

/** A GraphQL request read before its caller is admitted: the parsed body and what it asks for. */
interface RequestWithoutToken {
  body: unknown;
  query: string;
  operationName: string | null | undefined;
}

/**
 * The query text and operation name of a request sent without a valid token, from the URL (GET)
 * or a JSON body (POST). "refused" for anything that is not plainly a GraphQL request, whatever the
 * reason (wrong Content-Type, not JSON, no query; "too-large" past the size limit): such callers
 * get the usual 401, not a 415, 413 or 400.
 */
async function readRequestWithoutToken(
  req: IncomingMessage,
  maxBodyBytes: number,
): Promise<RequestWithoutToken | "refused" | "too-large" | "aborted"> {
  if (req.method === "GET") {
    const params = new URL(req.url ?? "/", "http://localhost").searchParams;
    const query = params.get("query");
    return query === null
      ? "refused"
      : { body: undefined, query, operationName: params.get("operationName") };
  }
  if (!isJsonContentType(req.headers["content-type"])) return "refused";
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req, maxBodyBytes));
  } catch (error) {
    if (!(error instanceof BodyError)) return "refused";
    return error.reason === "busy" ? "too-large" : error.reason;
  }
  if (body === null || typeof body !== "object") return "refused";
  const { query, operationName } = body as Record<string, unknown>;
  if (typeof query !== "string") return "refused";
  if (operationName !== undefined && operationName !== null && typeof operationName !== "string")
    return "refused";
  return { body, query, operationName };
}

/** 405 for a mutation sent with GET. */
function mutationOverGet(): GraphQLHttpResponse {
  const error = new AssayError("Mutations cannot be sent with GET; use POST.", ErrorCode.METHOD_NOT_ALLOWED);
  return [
    JSON.stringify(errorDocument(error)),
    { status: 405, statusText: "Method Not Allowed", headers: { allow: "POST", "content-type": JSON_TYPE } },
  ];
}

/**
 * `operationName` picks no operation of a valid document: graphql-js's words for it (GetOperation,
 * spec §6.1) with a code, where graphql-http would answer a code-less "Unable to detect operation AST".
 */
function operationNotFound(operationName: string | null | undefined): AssayError {
  return operationName
    ? badUserInput(`Unknown operation named "${operationName}".`, "operationName")
    : badUserInput("Must provide operation name if query contains multiple operations.", "operationName");
}

/** A 400 response when any of `errors` is a query limit; undefined otherwise. */
function limitResponse(errors: readonly GraphQLError[]): GraphQLHttpResponse | undefined {
  if (!errors.some((e) => LIMIT_CODES.has(String(e.extensions.code)))) return undefined;
  return [
    JSON.stringify({ errors }),
    { status: 400, statusText: "Bad Request", headers: { "content-type": JSON_TYPE } },
  ];
}

export type { OperationContext };
