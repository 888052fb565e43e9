import type { IncomingMessage, ServerResponse } from "node:http";
import type { CredentialRefusal, Viewer } from "../graphql/context.ts";
import {
  type AssayError,
  errorDocument,
  rateLimitedDocument,
  signatureExpired,
  unauthenticated,
} from "../graphql/errors.ts";
import type { Metrics } from "../observability/metrics.ts";
import { rateLimitKeyOfAddress } from "./client-address.ts";
import { sendJson } from "./json.ts";
import type { RateLimitDecision, RateLimiter } from "./rate-limit.ts";

/**
 * The steps every authenticated endpoint takes before it looks at a request's body: who is
 * calling, the anonymous limit for callers without a valid credential, the 401, and the
 * per-user limit with its headers. The GraphQL endpoint and the MCP endpoint (src/mcp/) both
 * use them, so a token, a 401 and a 429 mean the same on both, and one budget covers both.
 */

/** Response headers, lower-case names. */
export type Headers = Record<string, string>;

/** What the admission steps need. */
export interface AdmissionDeps {
  rateLimiter: RateLimiter;
  /** Whether `X-Forwarded-For` names the caller (ASSAY_TRUST_PROXY). */
  trustProxy: boolean;
  /** Where refusals for the rate limit are counted; none when metrics are off. */
  metrics?: Metrics;
}

/** The caller's address for the unauthenticated limit; X-Forwarded-For only when configured. */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers["x-forwarded-for"];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? "unknown";
}

/**
 * The body of every 401: the spec's `errors`, plus the same text as a top-level `message` for
 * clients that read that field of an error answer. Made once per kind of refusal: a 401 costs
 * no error object (docs/benchmarks.md "Refusals").
 */
const UNAUTHORIZED = unauthorizedBody(unauthenticated());
const SIGNATURE_EXPIRED = unauthorizedBody(signatureExpired());

function unauthorizedBody(error: AssayError): string {
  return JSON.stringify({ ...errorDocument(error), message: error.message });
}

/**
 * Sends the 401 of a refused credential: `Signature has expired` for a session token past its
 * `exp` (the text clients refresh on), the usual UNAUTHENTICATED otherwise.
 */
export function sendUnauthorized(
  res: ServerResponse,
  refusal: CredentialRefusal,
  headers: Headers = {},
): void {
  sendJson(res, 401, refusal === "signature-expired" ? SIGNATURE_EXPIRED : UNAUTHORIZED, {
    "www-authenticate": 'Bearer realm="assay"',
    ...headers,
  });
}

/** The `X-RateLimit-*` headers of a per-user decision. */
export function rateLimitHeaders(decision: RateLimitDecision): Headers {
  return {
    "x-ratelimit-limit": String(decision.limit),
    "x-ratelimit-remaining": String(decision.remaining),
    "x-ratelimit-used": String(decision.used),
    "x-ratelimit-reset": String(decision.resetEpochSeconds),
    // The budget's name: the API's, which MCP calls draw on too.
    "x-ratelimit-resource": "graphql",
  };
}

/**
 * Counts a request without a valid credential against its address's limit. True when it may go
 * on; false once a 429 was sent.
 */
export async function admitAnonymous(
  req: IncomingMessage,
  res: ServerResponse,
  deps: AdmissionDeps,
): Promise<boolean> {
  const decision = await deps.rateLimiter.consumeAnonymous(
    rateLimitKeyOfAddress(clientAddress(req, deps.trustProxy)),
  );
  if (decision.allowed) return true;
  deps.metrics?.observeRateLimited("anonymous");
  sendJson(res, 429, rateLimitedDocument(decision.retryAfterSeconds), {
    "retry-after": String(decision.retryAfterSeconds),
  });
  return false;
}

/**
 * Counts one request of `viewer` against the per-user limit. The rate-limit headers to send with
 * the answer (none when limiting is off), or undefined once a 429 was sent.
 */
export async function admitUser(
  viewer: Viewer,
  res: ServerResponse,
  deps: AdmissionDeps,
): Promise<Headers | undefined> {
  if (!deps.rateLimiter.enabled) return {};
  const decision = await deps.rateLimiter.consumeUser(viewer.userId);
  const headers = rateLimitHeaders(decision);
  if (decision.allowed) return headers;
  deps.metrics?.observeRateLimited("user");
  sendJson(res, 429, rateLimitedDocument(decision.retryAfterSeconds), {
    ...headers,
    "retry-after": String(decision.retryAfterSeconds),
  });
  return undefined;
}
