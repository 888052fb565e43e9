import http from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook } from "../../docs/examples/verify-webhook.mjs";

/**
 * A real HTTP receiver for webhook tests: records every request, answers as the test says, and
 * processes each delivery id once (as the docs tell receivers to), verifying signatures with the
 * documented snippet.
 */

/** One request the receiver got. */
export interface ReceivedRequest {
  /** The request's path and query, e.g. `/hooks?x`. */
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body exactly as received. */
  body: Buffer;
  /** True when the documented verification accepted it with the receiver's secret at the time. */
  verified: boolean;
  verifyError: string | null;
}

/** How to answer a request: a status (and body), or "hold" to keep it open until the receiver closes. */
export type Answer = { status: number; body?: string } | "hold";

/** A running receiver. */
export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Envelopes processed, once per delivery id. */
  processed: Array<{ id: string; type: string; data: unknown }>;
  /** TCP connections accepted, requests or not. */
  connections: number;
  /** The secret signatures are checked with; set it once the endpoint's secret is known. */
  secret: string;
  /** Decides the answer for the n-th request (0-based) carrying this delivery id. */
  answer: (request: ReceivedRequest, nthForDelivery: number) => Answer;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 (port 0) that answers 200 until told otherwise. */
export async function startReceiver(): Promise<Receiver> {
  const held = new Set<http.ServerResponse>();
  const seen = new Map<string, number>();
  const receiver: Receiver = {
    url: "",
    requests: [],
    processed: [],
    connections: 0,
    secret: "",
    answer: () => ({ status: 200, body: "ok" }),
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let verified = false;
      let verifyError: string | null = null;
      let envelope: { id: string; type: string; data: unknown } | undefined;
      try {
        envelope = verifyWebhook(body, req.headers, receiver.secret);
        verified = true;
      } catch (error) {
        verifyError = error instanceof Error ? error.message : String(error);
      }
      const request: ReceivedRequest = {
        url: req.url ?? "",
        headers: req.headers,
        body,
        verified,
        verifyError,
      };
      receiver.requests.push(request);
      const deliveryId = String(req.headers["x-assay-delivery"] ?? "");
      const nth = seen.get(deliveryId) ?? 0;
      seen.set(deliveryId, nth + 1);
      const answer = receiver.answer(request, nth);
      if (answer === "hold") {
        held.add(res);
        return;
      }
      if (answer.status >= 200 && answer.status < 300 && envelope && verified) {
        if (!receiver.processed.some((p) => p.id === envelope.id)) receiver.processed.push(envelope);
      }
      res.writeHead(answer.status, { "content-type": "text/plain" });
      res.end(answer.body ?? "");
    });
  });
  server.on("connection", () => {
    receiver.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}/hooks`;
  receiver.close = async () => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
