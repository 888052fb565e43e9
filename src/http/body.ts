import type { IncomingMessage } from "node:http";

/** Why a body could not be read. */
export class BodyError extends Error {
  constructor(
    readonly reason: "too-large" | "aborted",
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads the request body as UTF-8, refusing it as soon as it passes `maxBytes` (checked against
 * Content-Length first, so an honest oversized request is refused without reading it).
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return (await readBodyBytes(req, maxBytes)).toString("utf8");
}

/** Reads the request body's bytes as they came (for signatures over the raw body), like {@link readBody}. */
export function readBodyBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
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
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
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
