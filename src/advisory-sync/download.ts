import { createWriteStream } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { resolveDeliveryTarget } from "../modules/webhooks/addresses.ts";

/**
 * One conditional download of an OSV export (docs/advisories.md "Sync"): a GET carrying the
 * validators of the export imported last (RFC 9110 §13.1.1 If-None-Match, §13.1.3
 * If-Modified-Since), streamed to a file under a size limit. Every hop, redirects included, goes
 * through the webhook deliveries' address check and connects to the address it checked, so a
 * public URL cannot lead the worker into the operator's network unless the operator allows
 * private networks.
 */

/** The `user-agent` of every sync request. */
export const SYNC_USER_AGENT = "Assay-Advisory-Sync/1";

const MAX_REDIRECTS = 5;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** A download that did not give an export; the message names the problem, never the body. */
export class DownloadError extends Error {
  override name = "DownloadError";
}

/** What {@link downloadExport} needs. */
export interface DownloadRequest {
  url: string;
  /** Validators of the export imported last, sent so an unchanged export is answered 304. */
  etag: string | null;
  lastModified: string | null;
  /** The export is refused beyond this many bytes. */
  maxBytes: number;
  allowPrivateNetworks: boolean;
  /** Where the body is written. */
  file: string;
  signal?: AbortSignal;
  /** Longest silence of the server (connecting, before the headers, between two chunks). */
  idleTimeoutMs?: number;
}

/** How the download ended. */
export type DownloadResult =
  | { status: "not-modified"; etag: string | null; lastModified: string | null }
  | {
      status: "downloaded";
      bytes: number;
      etag: string | null;
      lastModified: string | null;
      contentType: string | null;
    };

/** Downloads `request.url` into `request.file`, or learns that it did not change. */
export async function downloadExport(request: DownloadRequest): Promise<DownloadResult> {
  const headers: Record<string, string> = {
    "user-agent": SYNC_USER_AGENT,
    accept: "application/zip, application/json;q=0.9, */*;q=0.5",
    "accept-encoding": "identity",
  };
  if (request.etag) headers["if-none-match"] = request.etag;
  if (request.lastModified) headers["if-modified-since"] = request.lastModified;
  let url = new URL(request.url);
  for (let hop = 0; ; hop++) {
    const response = await get(url, headers, request);
    const status = response.statusCode ?? 0;
    if ([301, 302, 303, 307, 308].includes(status)) {
      response.destroy();
      if (hop >= MAX_REDIRECTS) throw new DownloadError(`more than ${MAX_REDIRECTS} redirects`);
      url = redirectTarget(url, response.headers.location);
      continue;
    }
    const validators = {
      etag: header(response, "etag"),
      lastModified: header(response, "last-modified"),
    };
    if (status === 304) {
      response.destroy();
      return { status: "not-modified", ...validators };
    }
    if (status !== 200) {
      response.destroy();
      throw new DownloadError(`the server answered HTTP ${status}`);
    }
    const bytes = await saveBody(response, request);
    return { status: "downloaded", bytes, ...validators, contentType: header(response, "content-type") };
  }
}

function header(response: http.IncomingMessage, name: string): string | null {
  const value = response.headers[name];
  return typeof value === "string" && value.length > 0 ? value : null;
}

/** Where a redirect leads: an http(s) URL without credentials, never from https down to http. */
export function redirectTarget(from: URL, location: string | undefined): URL {
  if (!location) throw new DownloadError("a redirect without a Location header");
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new DownloadError("a redirect to an invalid URL");
  }
  if (next.protocol !== "https:" && next.protocol !== "http:") {
    throw new DownloadError(`a redirect to a ${next.protocol} URL`);
  }
  if (from.protocol === "https:" && next.protocol === "http:") {
    throw new DownloadError("a redirect from https:// to plain http://");
  }
  if (next.username !== "" || next.password !== "") {
    throw new DownloadError("a redirect to a URL with a user name or password");
  }
  return next;
}

/** Sends the GET to the checked address of `url` and answers the response (headers read). */
async function get(
  url: URL,
  headers: Record<string, string>,
  request: DownloadRequest,
): Promise<http.IncomingMessage> {
  const target = await resolveDeliveryTarget(url.hostname, request.allowPrivateNetworks);
  request.signal?.throwIfAborted();
  if ("problem" in target) {
    throw new DownloadError(
      request.allowPrivateNetworks
        ? `not fetched: ${target.problem}`
        : `not fetched: ${target.problem} (set ASSAY_ADVISORY_SYNC_ALLOW_PRIVATE_NETWORKS=true for a mirror inside the network)`,
    );
  }
  const address = target.addresses[0]!;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
  const transport = url.protocol === "https:" ? https : http;
  const idleMs = request.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    let incoming: http.IncomingMessage | undefined;
    const outgoing = transport.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: url.port === "" ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers,
        agent: false,
        lookup: pinned,
        signal: request.signal,
        timeout: idleMs,
      },
      (response) => {
        incoming = response;
        resolve(response);
      },
    );
    outgoing.on("timeout", () => {
      // While the body streams, the error must reach the response, which the pipeline reads.
      const error = new DownloadError(`the server was silent for ${idleMs / 1000} s`);
      incoming?.destroy(error);
      outgoing.destroy(error);
    });
    outgoing.on("error", (error) => reject(describe(error, request.signal)));
    outgoing.end();
  });
}

/** Writes the body to `request.file`, refusing it beyond `maxBytes`; answers its size. */
async function saveBody(response: http.IncomingMessage, request: DownloadRequest): Promise<number> {
  const tooLarge = () =>
    new DownloadError(
      `the export is larger than ${request.maxBytes} bytes (ASSAY_ADVISORY_SYNC_MAX_BYTES); nothing was imported`,
    );
  const declared = Number(response.headers["content-length"] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > request.maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > request.maxBytes) callback(tooLarge());
      else callback(null, chunk);
    },
  });
  try {
    await pipeline(response, counter, createWriteStream(request.file), { signal: request.signal });
  } catch (error) {
    throw describe(error, request.signal);
  }
  if (Number.isFinite(declared) && bytes !== declared) {
    throw new DownloadError(`the download ended after ${bytes} of ${declared} bytes`);
  }
  return bytes;
}

const ERROR_TEXT: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the server",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  ERR_STREAM_PREMATURE_CLOSE: "the server closed the connection before the end of the export",
};

/** A {@link DownloadError} in our words for a network failure; an abort stays what it is. */
function describe(error: unknown, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return signal.reason instanceof Error ? signal.reason : new Error("aborted");
  if (error instanceof DownloadError) return error;
  const { code, message } = error as NodeJS.ErrnoException;
  const known = code ? ERROR_TEXT[code] : undefined;
  if (known) return new DownloadError(known);
  if (code?.startsWith("ERR_TLS") || /certificate|SSL|TLS/i.test(message ?? "")) {
    return new DownloadError(`TLS error: ${message}`);
  }
  return new DownloadError(
    `download failed: ${(code ? `${code}: ${message}` : String(message)).slice(0, 300)}`,
  );
}
