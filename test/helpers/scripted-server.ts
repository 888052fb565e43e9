import http from "node:http";
import type { AddressInfo } from "node:net";

/** A request the scripted server received. */
export interface CapturedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A local HTTP server that records each request and answers as the test scripts it. */
export interface ScriptedServer {
  url: string;
  captured: CapturedRequest[];
  /** Answers each request once its body is read; replace it to change the script. */
  respond: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;
  stop(): Promise<void>;
}

/** Answers `payload` as JSON. */
export function answerJson(payload: unknown, status = 200): ScriptedServer["respond"] {
  return (_req, res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(payload));
  };
}

/** Starts a {@link ScriptedServer} on a free port of 127.0.0.1; it answers 500 until scripted. */
export async function startScriptedServer(): Promise<ScriptedServer> {
  const scripted: ScriptedServer = {
    url: "",
    captured: [],
    respond: answerJson({ errors: [{ message: "not scripted" }] }, 500),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (chunk: Buffer) => parts.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(parts);
      scripted.captured.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      scripted.respond(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  scripted.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return scripted;
}
