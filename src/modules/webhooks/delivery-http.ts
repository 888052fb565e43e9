import { createHmac } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { type ResolvedAddress, resolveDeliveryTarget, urlShapeProblem } from "./addresses.ts";

/**
 * One delivery attempt on the wire (docs/webhooks.md "A delivery on the wire"): the signed
 * headers, and a POST that connects to the address it checked (the DNS answer is pinned with a
 * custom `lookup`, so a name cannot change between the check and the connection), follows no
 * redirects, and gives up after the timeout.
 */

/** The `user-agent` of every delivery. */
export const USER_AGENT = "Assay-Webhooks/1";

/** How much of a receiver's answer is kept on the attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** What one attempt came to. */
export interface AttemptResult {
  attemptedAt: Date;
  /** The receiver's HTTP status; null when there was no answer. */
  statusCode: number | null;
  latencyMs: number;
  /** The first {@link RESPONSE_EXCERPT_BYTES} bytes of the answer's body, as UTF-8. */
  responseExcerpt: string | null;
  /** Why there was no 2xx answer, when there was no answer at all (or it was refused before sending). */
  error: string | null;
  succeeded: boolean;
}

/** Lowercase hex HMAC-SHA256 of `parts`, keyed with `secret`. */
function hmacHex(secret: string, ...parts: string[]): string {
  const mac = createHmac("sha256", secret);
  for (const part of parts) mac.update(part, "utf8");
  return mac.digest("hex");
}

/**
 * The headers of one attempt: the contract's `x-deepsource-signature` (HMAC of the body) and
 * ours: delivery id, event type, and the timestamped `x-assay-signature` (HMAC of
 * `<timestamp>.<body>`), which lets receivers refuse replays.
 */
export function deliveryHeaders(input: {
  deliveryId: string;
  eventType: string;
  secret: string;
  body: string;
  /** UNIX seconds of the attempt. */
  timestamp: number;
}): Record<string, string> {
  const timestamp = String(input.timestamp);
  return {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "x-assay-delivery": input.deliveryId,
    "x-assay-event": input.eventType,
    "x-assay-timestamp": timestamp,
    "x-assay-signature": `v1=${hmacHex(input.secret, timestamp, ".", input.body)}`,
    "x-deepsource-signature": hmacHex(input.secret, input.body),
  };
}

/** What {@link postWebhook} needs from the configuration. */
export interface PostOptions {
  timeoutMs: number;
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
  /** Aborts the attempt when the worker stops: then {@link postWebhook} throws instead of answering. */
  signal?: AbortSignal;
}

/** Raised by {@link postWebhook} when `signal` aborted it: the attempt does not count. */
export class AttemptAbortedError extends Error {
  override name = "AttemptAbortedError";
}

/**
 * POSTs `body` with `headers` to `url`. Answers what happened; a receiver's failure (status,
 * timeout, refused connection, refused address) is an answer, not an exception.
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<AttemptResult> {
  const attemptedAt = new Date();
  const started = performance.now();
  const answer = (fields: Partial<AttemptResult>): AttemptResult => ({
    attemptedAt,
    statusCode: null,
    latencyMs: Math.round(performance.now() - started),
    responseExcerpt: null,
    error: null,
    succeeded: false,
    ...fields,
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return answer({ error: "not sent: the URL is not valid" });
  }
  const shape = urlShapeProblem(target, options);
  if (shape) return answer({ error: `not sent: the URL ${shape}` });

  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const resolution = await untilAborted(
    resolveDeliveryTarget(target.hostname, options.allowPrivateNetworks),
    signal,
  );
  if (options.signal?.aborted) throw new AttemptAbortedError("the worker stopped");
  if (resolution === undefined) return answer({ error: `timed out after ${options.timeoutMs} ms` });
  if ("problem" in resolution) return answer({ error: `not sent: ${resolution.problem}` });

  const result = await send(target, body, headers, resolution.addresses[0]!, signal);
  if (options.signal?.aborted && result.statusCode === undefined) {
    throw new AttemptAbortedError("the worker stopped");
  }
  if (result.statusCode === undefined) {
    return answer({ error: timeout.aborted ? `timed out after ${options.timeoutMs} ms` : result.error });
  }
  return answer({
    statusCode: result.statusCode,
    responseExcerpt: result.excerpt,
    succeeded: result.statusCode >= 200 && result.statusCode < 300,
  });
}

/** `promise`'s value, or undefined once `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

type SendResult = { statusCode: number; excerpt: string } | { statusCode: undefined; error: string };

function send(
  target: URL,
  body: string,
  headers: Record<string, string>,
  address: ResolvedAddress,
  signal: AbortSignal,
): Promise<SendResult> {
  // Every connection goes to the address that was checked, whatever DNS says by now.
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
  const transport = target.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    const request = transport.request(
      {
        protocol: target.protocol,
        hostname: target.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: target.port === "" ? undefined : Number(target.port),
        path: `${target.pathname}${target.search}`,
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        agent: false,
        lookup: pinned,
        signal,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES);
          // PostgreSQL text cannot hold NUL characters.
          resolve({
            statusCode: response.statusCode ?? 0,
            excerpt: excerpt.toString("utf8").replaceAll("\0", "\uFFFD"),
          });
          response.destroy();
        };
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_EXCERPT_BYTES) finish();
        });
        response.on("end", finish);
        // Cut off while reading the body (timeout, reset): the status is known, keep what came.
        response.on("error", finish);
        response.on("close", finish);
      },
    );
    request.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ statusCode: undefined, error: describe(error) }),
    );
    request.end(body);
  });
}

const ERROR_TEXT: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the receiver",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed by the receiver while sending",
  ETIMEDOUT: "connection timed out",
};

function describe(error: NodeJS.ErrnoException): string {
  const known = error.code ? ERROR_TEXT[error.code] : undefined;
  if (known) return known;
  if (error.code?.startsWith("ERR_TLS") || /certificate|SSL|TLS/i.test(error.message)) {
    return `TLS error: ${error.message}`;
  }
  return (error.code ? `${error.code}: ${error.message}` : error.message).slice(0, 500);
}
