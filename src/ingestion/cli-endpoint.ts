import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type ExecutionArgs,
  execute,
  GraphQLBoolean,
  GraphQLError,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  getOperationAST,
} from "graphql";
import { createHandler, type Response as GraphQLHttpResponse } from "graphql-http";
import type { Kysely } from "kysely";
import type { Config } from "../config.ts";
import { type DatabaseAvailability, isDatabaseUnavailable } from "../db/availability.ts";
import type { Database } from "../db/types.ts";
import type { GoModuleRow } from "../db/types-ingestion.ts";
import { DocumentCache } from "../graphql/document-cache.ts";
import {
  AssayError,
  badRequest,
  databaseUnavailableAt,
  ErrorCode,
  errorDocument,
  internalError,
  limitExceeded,
  payloadTooLarge,
  serviceBusy,
  unsupportedMediaType,
} from "../graphql/errors.ts";
import { checkVariables, withoutEchoedVariable } from "../graphql/variables.ts";
import { BodyError, readBody } from "../http/body.ts";
import { isJsonContentType, JSON_TYPE, jsonSyntaxReason, sendJson } from "../http/json.ts";
import { LargeBodySlots } from "../http/large-bodies.ts";
import type { Logger } from "../logger.ts";
import { findRepositoryByDsnToken } from "../modules/repositories/dsn.ts";
import { UploadError } from "./errors.ts";
import { acceptUpload } from "./intake.ts";
import { type ArtifactUpload, presentOrNull } from "./types.ts";

/**
 * `POST /graphql/cli/`: the contract's artifact endpoint, which DeepSource's CLI (`deepsource
 * report`) calls unchanged (docs/ingestion.md, api-notes §12). A small schema of its own with one
 * mutation, `createArtifact`, authenticated by the repository's DSN token inside the input (no
 * `Authorization` header), and the capability probe the CLI sends first
 * (`__type(name: "ArtifactMetadataInput")`). Every refusal is `ok: false` with an `error`
 * sentence in an HTTP 200, which is what the CLI reads.
 */

/** Paths the CLI endpoint answers on: the cloud form and the on-premise form, slash optional. */
export const CLI_GRAPHQL_PATHS: ReadonlySet<string> = new Set([
  "/graphql/cli",
  "/graphql/cli/",
  "/api/graphql/cli",
  "/api/graphql/cli/",
]);

/** The largest query document accepted, in bytes: the CLI's documents are a few hundred bytes. */
export const CLI_MAX_DOCUMENT_BYTES = 16 * 1024;

/** The `error` of an upload whose DSN token matches no repository's current DSN. */
export const INVALID_DSN_MESSAGE =
  "invalid DSN: no repository has this DSN token (it may have been regenerated)";

/** What the CLI endpoint needs. */
export interface CliEndpointDeps {
  db: Kysely<Database>;
  config: Config;
  logger: Logger;
  /** The large-body slots shared with the GraphQL endpoint; a count of its own when left out. */
  largeBodies?: LargeBodySlots;
  /** Told of requests that failed for want of the database (503 and one warning per outage). */
  availability?: DatabaseAvailability;
}

/** The context of one CLI request's execution (a type alias: graphql-http wants a record). */
type CliContext = {
  requestId: string;
  deps: CliEndpointDeps;
  record: CliRequestRecord;
};

/** `CreateArtifactInput` as graphql-js coerces it. */
interface CreateArtifactInput {
  accessToken: string;
  commitOid: string;
  reporter: string;
  reporterVersion?: string | null;
  key: string;
  data: string;
  analyzer: string;
  analyzerType?: string | null;
  metadata?: { workDir?: string | null; compressed?: string | null } | null;
  pullRequestNumber?: number | null;
  baseBranch?: string | null;
  configToml?: string | null;
  lockfilePaths?: readonly string[] | null;
  goModules?: readonly GoModuleRow[] | null;
  clientMutationId?: string | null;
}

/** What `createArtifact` answers. */
export interface CreateArtifactPayload {
  ok: boolean;
  message: string;
  error: string;
  clientMutationId: string | null;
}

const ArtifactMetadataInput = new GraphQLInputObjectType({
  name: "ArtifactMetadataInput",
  description:
    "Facts about the upload. The CLI asks whether `compressed` exists before it compresses, so the field's presence is part of the contract.",
  fields: {
    workDir: {
      type: GraphQLString,
      description: "The directory the CLI ran in; kept with the artifact for resolving relative paths.",
    },
    compressed: {
      type: GraphQLString,
      description:
        '"True" (or "1") when `data` is base64 of zstd-compressed text; anything else means plain text.',
    },
  },
});

const GoModuleInputType = new GraphQLInputObjectType({
  name: "GoModuleInput",
  description: "A Go module of the repository: its module path and the directory its go.mod is in.",
  fields: {
    modulePath: {
      type: new GraphQLNonNull(GraphQLString),
      description: "The module path the go.mod's `module` line declares (`example.com/shop`).",
    },
    directory: {
      type: new GraphQLNonNull(GraphQLString),
      description:
        'The directory of the go.mod, relative to the repository root ("backend"); "" for the root.',
    },
  },
});

const CreateArtifactInputType = new GraphQLInputObjectType({
  name: "CreateArtifactInput",
  description:
    "One artifact (an analyzer's SARIF report or a coverage report) for one commit of a repository.",
  fields: {
    accessToken: {
      type: new GraphQLNonNull(GraphQLString),
      description: "The secret part of the repository's DSN (`https://<token>@<host>`).",
    },
    commitOid: {
      type: new GraphQLNonNull(GraphQLString),
      description: "The analysed commit: 7 to 64 hexadecimal characters.",
    },
    reporter: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'The uploading program, e.g. "cli".',
    },
    reporterVersion: { type: GraphQLString, description: "The uploading program's version." },
    key: {
      type: new GraphQLNonNull(GraphQLString),
      description:
        'For `test-coverage`, the language (`python`, `go`, `javascript`...); ignored (and may be "") for other analyzers.',
    },
    data: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'The report text, or base64 of its zstd compression when `metadata.compressed` is "True".',
    },
    analyzer: {
      type: new GraphQLNonNull(GraphQLString),
      description: "The analyzer's shortcode (`test-coverage` for coverage).",
    },
    analyzerType: {
      type: GraphQLString,
      description: 'Set to "community" for an analyzer outside the catalog; otherwise omitted.',
    },
    metadata: { type: ArtifactMetadataInput, description: "The working directory and the compression flag." },
    pullRequestNumber: {
      type: GraphQLInt,
      description:
        "Assay extension, not sent by the contract's CLI: the pull request the commit is the head of; the run joins it and is compared with its base branch.",
    },
    baseBranch: {
      type: GraphQLString,
      description: "Assay extension: the branch the run is compared with (the pull request's target).",
    },
    configToml: {
      type: GraphQLString,
      description:
        "Assay extension, not sent by the contract's CLI: the repository's `.deepsource.toml` at this commit, as text; read as `uploadArtifact`'s `configToml` is.",
    },
    lockfilePaths: {
      type: new GraphQLList(new GraphQLNonNull(GraphQLString)),
      description:
        "Assay extension, not sent by the contract's CLI: the repository-relative paths of the dependency manifests and lockfiles git tracks at this commit; read as `uploadArtifact`'s `lockfilePaths` is.",
    },
    goModules: {
      type: new GraphQLList(new GraphQLNonNull(GoModuleInputType)),
      description:
        "Assay extension, not sent by the contract's CLI: with a Go cover profile, the repository's Go modules and their directories; read as `uploadArtifact`'s `goModules` is.",
    },
    clientMutationId: {
      type: GraphQLString,
      description: "Any string; the payload's `clientMutationId` echoes it (Relay).",
    },
  },
});

const CreateArtifactPayloadType = new GraphQLObjectType<CreateArtifactPayload>({
  name: "CreateArtifactPayload",
  description:
    "The answer of `createArtifact`: `ok` and a message, or the reason for the refusal in `error`.",
  fields: {
    ok: { type: new GraphQLNonNull(GraphQLBoolean), description: "True when the artifact was accepted." },
    message: {
      type: new GraphQLNonNull(GraphQLString),
      description:
        'What was accepted ("Artifact successfully uploaded for repository ..."), followed by what will not be stored (SARIF results outside the repository or without a file); "" on refusal.',
    },
    error: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'Why the artifact was refused, in one sentence; "" when it was accepted.',
    },
    clientMutationId: { type: GraphQLString, description: "The input's `clientMutationId`, unchanged." },
  },
});

/**
 * The CLI endpoint's schema: `createArtifact` and a one-field Query (GraphQL requires a query
 * type; introspection, the CLI's capability probe, runs through it).
 */
export function buildCliSchema(): GraphQLSchema {
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: "Query",
      description: "Nothing to read here: this endpoint takes artifacts (Mutation.createArtifact).",
      fields: {
        ok: {
          type: new GraphQLNonNull(GraphQLBoolean),
          description: "Always true: the artifact endpoint is up.",
          resolve: () => true,
        },
      },
    }),
    mutation: new GraphQLObjectType<unknown, CliContext>({
      name: "Mutation",
      description: "The one change this endpoint makes.",
      fields: {
        createArtifact: {
          type: CreateArtifactPayloadType,
          description:
            "Uploads one artifact for a commit with the repository's DSN token. Processing is asynchronous; the answer says only whether the artifact was accepted.",
          args: {
            input: {
              type: new GraphQLNonNull(CreateArtifactInputType),
              description: "The artifact and the DSN token.",
            },
          },
          resolve: (_root, args: { input: CreateArtifactInput }, ctx: CliContext) =>
            createArtifact(ctx, args.input),
        },
      },
    }),
  });
}

/** True for `metadata.compressed` values that mean zstd: "True" as the CLI sends it, or "1". */
export function isCompressedFlag(value: string | null | undefined): boolean {
  return /^(true|1)$/i.test((value ?? "").trim());
}

/** The intake's view of a `createArtifact` input: no branch and no user behind a DSN upload. */
export function uploadOfCreateArtifact(input: CreateArtifactInput): ArtifactUpload {
  return {
    commitOid: input.commitOid,
    branch: null,
    pullRequestNumber: input.pullRequestNumber ?? null,
    baseBranch: presentOrNull(input.baseBranch),
    analyzer: input.analyzer,
    analyzerType: presentOrNull(input.analyzerType),
    key: presentOrNull(input.key),
    data: input.data,
    compression: isCompressedFlag(input.metadata?.compressed) ? "ZSTD" : "NONE",
    workDir: presentOrNull(input.metadata?.workDir),
    reporter: input.reporter,
    reporterVersion: presentOrNull(input.reporterVersion),
    uploadedBy: null,
    configToml: presentOrNull(input.configToml),
    lockfilePaths: input.lockfilePaths ?? null,
    goModules: input.goModules ?? null,
  };
}

/**
 * Resolves the DSN token and hands the upload to the intake. Refusals (an unknown DSN, an
 * {@link UploadError}) and unexpected failures alike answer `ok: false`: the CLI reads nothing
 * else. An unexpected failure is logged with the request id, which the answer names.
 */
async function createArtifact(ctx: CliContext, input: CreateArtifactInput): Promise<CreateArtifactPayload> {
  const { db, config, logger } = ctx.deps;
  const clientMutationId = input.clientMutationId ?? null;
  const refused = (error: string): CreateArtifactPayload => ({
    ok: false,
    message: "",
    error,
    clientMutationId,
  });
  try {
    const repository = await findRepositoryByDsnToken(db, input.accessToken, config.tokenPepper);
    if (!repository) return refused(INVALID_DSN_MESSAGE);
    const accepted = await acceptUpload(db, config, logger, repository, uploadOfCreateArtifact(input));
    return { ok: true, message: accepted.message, error: "", clientMutationId };
  } catch (error) {
    if (error instanceof UploadError) return refused(error.message);
    // Not the upload's fault: answered 503 as the main endpoint answers it (see `masked`).
    if (isDatabaseUnavailable(error)) throw error;
    logger.error({ requestId: ctx.requestId, err: error }, "artifact upload failed");
    return refused(
      `The server could not store the artifact because of an internal error (request id ${ctx.requestId}); try again later.`,
    );
  }
}

/** The facts of a CLI request its log line reports. */
export type CliRequestRecord = {
  requestId: string;
  operationName?: string;
  /** Set when the request failed because the database could not be reached (answered 503). */
  databaseUnavailable?: boolean;
};

/** A 400 answer for request-level problems (too large a document, a query limit). */
function requestRefusal(errors: readonly GraphQLError[]): GraphQLHttpResponse {
  return [
    JSON.stringify(errorDocument(...errors)),
    { status: 400, statusText: "Bad Request", headers: { "content-type": JSON_TYPE } },
  ];
}

/**
 * A resolver error as the caller sees it: the resolvers answer every refusal as `ok: false`, so
 * an error with a path is either the database being out of reach (SERVICE_UNAVAILABLE, the request
 * answered 503 with Retry-After and the outage logged once, as on the main endpoint) or unexpected
 * (logged and replaced by "Internal server error"). Request-level errors (variables that do not
 * coerce) are shown as graphql-js words them, without the values sent.
 */
function masked(error: GraphQLError, args: ExecutionArgs, deps: CliEndpointDeps): GraphQLError {
  if (!error.path) {
    const message = withoutEchoedVariable(error.message);
    return message === error.message
      ? error
      : new GraphQLError(message, { nodes: error.nodes, extensions: error.extensions });
  }
  if (error.originalError instanceof AssayError) return error;
  const { requestId, record } = args.contextValue as CliContext;
  const cause = error.originalError ?? error;
  if (isDatabaseUnavailable(cause)) {
    deps.availability?.failed(cause);
    record.databaseUnavailable = true;
    return databaseUnavailableAt(error, deps.config.databaseRetryAfterSeconds);
  }
  deps.logger.error({ requestId, err: cause, path: error.path }, "resolver failed");
  const replacement = internalError(requestId);
  return new GraphQLError(replacement.message, {
    nodes: error.nodes,
    path: error.path,
    extensions: replacement.extensions,
  });
}

const LIMIT_CODES = new Set<string>([
  ErrorCode.MAX_DEPTH_EXCEEDED,
  ErrorCode.MAX_ALIASES_EXCEEDED,
  ErrorCode.MAX_DIRECTIVES_EXCEEDED,
  ErrorCode.MAX_TOKENS_EXCEEDED,
]);

/**
 * Builds the handler of {@link CLI_GRAPHQL_PATHS}: POST only (405 otherwise), a JSON body of at
 * most `ASSAY_ARTIFACT_MAX_BODY_BYTES` (413 beyond, by Content-Length before reading and while
 * reading), a query document of at most {@link CLI_MAX_DOCUMENT_BYTES} within the usual depth,
/** When a caller refused for want of a large-body slot may try again. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * Builds the handler of {@link CLI_GRAPHQL_PATHS}: POST only (405 otherwise), a JSON body of at
 * most `ASSAY_ARTIFACT_MAX_BODY_BYTES` (413 beyond, by Content-Length before reading and while
 * reading; a body past `ASSAY_MAX_BODY_BYTES` needs a free large-body slot, 503 otherwise), a query
 * document of at most {@link CLI_MAX_DOCUMENT_BYTES} within the usual depth,
 * alias and token limits (400), then GraphQL over HTTP: 200 for every well-formed request.
 */

export function createCliEndpoint(deps: CliEndpointDeps) {
  const schema = buildCliSchema();
  const documents = new DocumentCache(schema, { maxEntries: 100, hideSuggestions: deps.config.isProduction });
  const largeBodies = deps.largeBodies ?? new LargeBodySlots(deps.config.maxConcurrentUploads);

  const handler = createHandler<IncomingMessage, CliRequestRecord, CliContext>({
    schema,
    onSubscribe: (req, params) => {
      const record = req.context;
      if (Buffer.byteLength(params.query) > CLI_MAX_DOCUMENT_BYTES) {
        return requestRefusal([
          limitExceeded(
            "MAX_TOKENS_EXCEEDED",
            `The query document is larger than the limit of ${CLI_MAX_DOCUMENT_BYTES} bytes for this endpoint; send the report in the variables.`,
          ),
        ]);
      }
      const { document, errors } = documents.prepare(params.query);
      const operation = document ? getOperationAST(document, params.operationName) : null;
      record.operationName = params.operationName ?? operation?.name?.value;
      if (errors.some((e) => LIMIT_CODES.has(String(e.extensions.code)))) return requestRefusal(errors);
      if (errors.length > 0 || !document) return [...errors];
      const variableErrors = checkVariables(schema, document, params.operationName, params.variables);
      if (variableErrors.length > 0) return variableErrors;
      const args: ExecutionArgs & { contextValue: CliContext } = {
        schema,
        document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: { requestId: record.requestId, deps, record },
      };
      return args;
    },
    execute: async (args) => {
      const result = await execute(args);
      return result.errors ? { ...result, errors: result.errors.map((e) => masked(e, args, deps)) } : result;
    },
    // Errors that already carry a code (ours, and `masked`'s replacements) are shown as they are.
    formatError: (error) =>
      error instanceof GraphQLError && error.extensions?.code !== undefined
        ? error
        : badRequest(error.message),
  });

  /** Handles one request to the CLI endpoint; `record` gathers what the log line reports. */
  return async function handleCli(
    req: IncomingMessage,
    res: ServerResponse,
    record: CliRequestRecord,
  ): Promise<void> {
    if (req.method !== "POST") {
      const error = new AssayError(
        `Method ${req.method} is not allowed; the artifact endpoint takes POST.`,
        ErrorCode.METHOD_NOT_ALLOWED,
      );
      return sendJson(res, 405, errorDocument(error), { allow: "POST" });
    }
    if (!isJsonContentType(req.headers["content-type"])) {
      return sendJson(res, 415, errorDocument(unsupportedMediaType(req.headers["content-type"])));
    }
    const maxBytes = Math.max(deps.config.maxBodyBytes, deps.config.artifactMaxBodyBytes);
    let text: string;
    try {
      // Every body here is an upload; one past the ordinary limit takes a large-body slot.
      text = await readBody(req, deps.config.maxBodyBytes, {
        upToBytes: maxBytes,
        extend: () => {
          const release = largeBodies.tryAcquire();
          if (!release) return "busy";
          res.once("close", release);
          return maxBytes;
        },
      });
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      if (error.reason === "aborted") {
        res.destroy();
        return;
      }
      if (error.reason === "busy") {
        return sendJson(res, 503, errorDocument(serviceBusy(BUSY_RETRY_AFTER_SECONDS)), {
          "retry-after": String(BUSY_RETRY_AFTER_SECONDS),
          connection: "close",
        });
      }
      return sendJson(res, 413, errorDocument(payloadTooLarge(maxBytes)), { connection: "close" });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      const reason = jsonSyntaxReason(error);
      return sendJson(res, 400, errorDocument(badRequest(`Request body is not valid JSON: ${reason}`)));
    }
    const [responseBody, init] = await handler({
      method: "POST",
      url: req.url ?? "/",
      headers: req.headers,
      body: body as string,
      raw: req,
      context: record,
    } as Parameters<typeof handler>[0]);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(init.headers ?? {})) {
      if (value !== undefined) headers[name.toLowerCase()] = String(value);
    }
    headers["content-type"] ??= JSON_TYPE;
    let status = init.status;
    if (record.databaseUnavailable) {
      // As the main endpoint answers it: a status a client or a balancer knows to retry.
      status = 503;
      headers["retry-after"] = String(deps.config.databaseRetryAfterSeconds);
    }
    const answer =
      responseBody ?? JSON.stringify(errorDocument(badRequest(init.statusText ?? "Bad request")));
    res.writeHead(status, { ...headers, "content-length": Buffer.byteLength(answer) });
    res.end(answer);
  };
}
