import type { IncomingMessage } from "node:http";

/** Why a body could not be read. */
export class BodyError extends Error {
  constructor(
    readonly reason: "too-large" | "aborted" | "busy",
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads the request body as UTF-8, refusing it as soon as it passes `maxBytes` (checked against
 * Content-Length first, so an honest oversized request is refused without reading it).
 */
export async function readBody(
  req: IncomingMessage,
  maxBytes: number,
  extension?: BodyExtension,
): Promise<string> {
  return (await readBodyBytes(req, maxBytes, extension)).toString("utf8");
}

/**
 * How a body may grow past its ordinary limit: once the bytes read pass `maxBytes`, `extend` sees
 * what was read so far (at most `maxBytes` plus one chunk) and returns the larger limit the body
 * may reach, undefined to refuse it as too large, or "busy" to refuse it for now. Declared lengths up to `upToBytes` are read
 * so that `extend` can decide; larger ones are refused before reading.
 */
export interface BodyExtension {
  upToBytes: number;
  extend: (prefix: Buffer) => number | "busy" | undefined;
}

/**
 * Reads the request body's bytes as they came (for signatures over the raw body), like
 * {@link readBody}; with `extension`, a body may pass `maxBytes` only when it says so.
 */
export function readBodyBytes(
  req: IncomingMessage,
  maxBytes: number,
  extension?: BodyExtension,
): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (
    Number.isFinite(declared) &&
    declared > (extension ? Math.max(maxBytes, extension.upToBytes) : maxBytes)
  ) {
    return Promise.reject(new BodyError("too-large", "body too large"));
  }
  // A client that hung up while we were authenticating leaves a destroyed stream that will never
  // emit `end` (only `close`, already past): settle now instead of waiting forever.
  if (req.destroyed || req.readableAborted) {
    return Promise.reject(new BodyError("aborted", "request aborted"));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let limit = maxBytes;
    let extended = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit && extension && !extended) {
        extended = true;
        const larger = extension.extend(Buffer.concat([...chunks, chunk], size));
        if (larger === "busy") {
          cleanup();
          req.resume();
          reject(new BodyError("busy", "too many large bodies at once"));
          return;
        }
        if (larger !== undefined) limit = Math.max(limit, larger);
      }
      if (size > limit) {
        cleanup();
        // Stop buffering but keep draining, so the 413 can still be written on this socket.
        req.resume();
        reject(new BodyError("too-large", "body too large"));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = () => {
      cleanup();
      reject(new BodyError("aborted", "request aborted"));
    };
    const onClose = () => {
      // `close` after `end` is normal; `close` without it means the client went away mid-body.
      if (!req.readableEnded) onError();
    };
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onError);
      req.off("close", onClose);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onError);
    req.on("close", onClose);
  });
}
