import http from "node:http";

/** An answer read off the wire: status, headers and the body as text. */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * Sends one request over its own connection with `http.request`, which (unlike fetch) lets a test
 * choose every header, send a chunked body of unknown length, or send no body at all.
 */
export function rawRequest(
  url: string,
  options: { method: string; headers?: Record<string, string>; chunks?: Array<string | Buffer> },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method, headers: options.headers, agent: false },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (chunk: Buffer) => parts.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(parts).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    // The server may answer (413) and close before the whole body is written; that is the point.
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}
