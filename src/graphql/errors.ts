import { GraphQLError, type GraphQLErrorOptions } from "graphql";

/**
 * Every error code the API can answer with. These strings are API contract: clients branch on
 * `extensions.code`, so a code is never renamed, only added.
 */
export const ErrorCode = {
  UNAUTHENTICATED: "UNAUTHENTICATED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  BAD_USER_INPUT: "BAD_USER_INPUT",
  BAD_REQUEST: "BAD_REQUEST",
  GRAPHQL_PARSE_FAILED: "GRAPHQL_PARSE_FAILED",
  GRAPHQL_VALIDATION_FAILED: "GRAPHQL_VALIDATION_FAILED",
  RATE_LIMITED: "RATE_LIMITED",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  MAX_DEPTH_EXCEEDED: "MAX_DEPTH_EXCEEDED",
  MAX_ALIASES_EXCEEDED: "MAX_ALIASES_EXCEEDED",
  MAX_DIRECTIVES_EXCEEDED: "MAX_DIRECTIVES_EXCEEDED",
  MAX_TOKENS_EXCEEDED: "MAX_TOKENS_EXCEEDED",
  MAX_PAGE_SIZE_EXCEEDED: "MAX_PAGE_SIZE_EXCEEDED",
  MAX_NODES_EXCEEDED: "MAX_NODES_EXCEEDED",
  INTERNAL_SERVER_ERROR: "INTERNAL_SERVER_ERROR",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  // Device login and session tokens, named after RFC 8628 §3.5's error codes.
  /** The device login is waiting for a user to approve it; poll again after the interval. */
  AUTHORIZATION_PENDING: "AUTHORIZATION_PENDING",
  /** Polled faster than the interval; `extensions.interval` is the new, longer interval. */
  SLOW_DOWN: "SLOW_DOWN",
  /** The device code (or a session token) has expired; start again. */
  EXPIRED_TOKEN: "EXPIRED_TOKEN",
  /** The user denied the device login. */
  ACCESS_DENIED: "ACCESS_DENIED",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Extensions carried by every error we create. */
export interface AssayErrorExtensions {
  code: ErrorCode;
  [key: string]: unknown;
}

/** A GraphQLError whose `extensions.code` is always one of {@link ErrorCode}. */
export class AssayError extends GraphQLError {
  declare readonly extensions: AssayErrorExtensions;

  constructor(message: string, code: ErrorCode, options: GraphQLErrorOptions = {}) {
    super(message, { ...options, extensions: { ...options.extensions, code } });
    this.name = "AssayError";
  }
}

/** True when `error` (or the error it wraps) is one we raised on purpose and may show as is. */
export function isAssayError(error: unknown): error is AssayError {
  return error instanceof AssayError;
}

/** Missing, malformed, unknown, expired or revoked credentials: one message for all five. */
export function unauthenticated(): AssayError {
  return new AssayError(
    "Authentication credentials were not provided or are not valid. Send a personal access token as `Authorization: Bearer <token>`.",
    ErrorCode.UNAUTHENTICATED,
  );
}

/**
 * The 401 for a session access token whose signature is ours but whose `exp` has passed. The text
 * is DeepSource's own, which its CLI looks for before it refreshes its token.
 */
export function signatureExpired(): AssayError {
  return new AssayError("Signature has expired", ErrorCode.UNAUTHENTICATED);
}

/** The caller is known but may not do this. Only for actions on objects the caller can see. */
export function forbidden(message = "You do not have permission to perform this action."): AssayError {
  return new AssayError(message, ErrorCode.FORBIDDEN);
}

/**
 * An object that does not exist or that the caller may not see. The two cases are
 * indistinguishable on purpose.
 */
export function notFound(message = "Object matching query does not exist"): AssayError {
  return new AssayError(message, ErrorCode.NOT_FOUND);
}

/** Input the caller can fix; `field` names the offending argument or input field. */
export function badUserInput(message: string, field?: string): AssayError {
  return new AssayError(message, ErrorCode.BAD_USER_INPUT, field ? { extensions: { field } } : {});
}

/** The request itself is malformed (not JSON, no query, wrong shape). */
export function badRequest(message: string): AssayError {
  return new AssayError(message, ErrorCode.BAD_REQUEST);
}

/**
 * The answer to a request past the per-user or per-address budget, as {@link errorDocument} would
 * print an AssayError of it, built without one: a refusal must cost less than serving the request
 * (docs/benchmarks.md "Refusals"), and a GraphQLError costs more than the rest of a 429.
 */
export function rateLimitedDocument(retryAfterSeconds: number): ErrorDocument {
  return {
    errors: [
      {
        message: `Rate limit exceeded. Try again in ${retryAfterSeconds} seconds.`,
        extensions: { retryAfter: retryAfterSeconds, code: ErrorCode.RATE_LIMITED },
      },
    ],
  };
}

/** The request body is over the configured size. */
export function payloadTooLarge(maxBytes: number): AssayError {
  return new AssayError(
    `Request body is larger than the limit of ${maxBytes} bytes.`,
    ErrorCode.PAYLOAD_TOO_LARGE,
  );
}

/** The server cannot take this request now (all large-body slots taken); try again later. */
export function serviceBusy(retryAfterSeconds: number): AssayError {
  return new AssayError(
    `The server is reading as many uploads as it takes at once. Try again in ${retryAfterSeconds} seconds.`,
    ErrorCode.SERVICE_UNAVAILABLE,
    { extensions: { retryAfter: retryAfterSeconds } },
  );
}

/** The database cannot be reached; nothing about the request was wrong, so try again later. */
export function databaseUnavailable(retryAfterSeconds: number): AssayError {
  return new AssayError(
    `The service is temporarily unavailable (its database cannot be reached). Try again in ${retryAfterSeconds} seconds.`,
    ErrorCode.SERVICE_UNAVAILABLE,
    { extensions: { retryAfter: retryAfterSeconds } },
  );
}

/** {@link databaseUnavailable} in place of resolver error `error`, keeping where it happened. */
export function databaseUnavailableAt(error: GraphQLError, retryAfterSeconds: number): GraphQLError {
  const unavailable = databaseUnavailable(retryAfterSeconds);
  return new GraphQLError(unavailable.message, {
    nodes: error.nodes,
    path: error.path,
    extensions: unavailable.extensions,
  });
}

/** The request's Content-Type is not one we accept. */
export function unsupportedMediaType(contentType: string | undefined): AssayError {
  return new AssayError(
    `Unsupported Content-Type ${contentType ? `"${contentType}"` : "(none)"}; send application/json.`,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  );
}

/** Anything we did not expect; the real error is logged with `requestId`, never shown. */
export function internalError(requestId: string): AssayError {
  return new AssayError(`Internal server error (request id ${requestId})`, ErrorCode.INTERNAL_SERVER_ERROR, {
    extensions: { requestId },
  });
}

/** A query limit checked before execution; `code` names the limit. */
export function limitExceeded(
  code: Extract<
    ErrorCode,
    | "MAX_DEPTH_EXCEEDED"
    | "MAX_ALIASES_EXCEEDED"
    | "MAX_DIRECTIVES_EXCEEDED"
    | "MAX_TOKENS_EXCEEDED"
    | "MAX_PAGE_SIZE_EXCEEDED"
    | "MAX_NODES_EXCEEDED"
  >,
  message: string,
  options: GraphQLErrorOptions = {},
): AssayError {
  return new AssayError(message, code, options);
}

/** An error-only response: `{ "errors": [...] }` in the spec's shape. */
export interface ErrorDocument {
  errors: ReturnType<GraphQLError["toJSON"]>[];
}

/** The body of an error-only response: `{ "errors": [...] }` in the spec's shape. */
export function errorDocument(...errors: GraphQLError[]): ErrorDocument {
  return { errors: errors.map((e) => e.toJSON()) };
}
