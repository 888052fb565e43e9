// test-runner: execution-mode independent (request bodies are read and bounded before any document is executed)
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { after, test } from "node:test";
import { watchChildOutput } from "./helpers/secret-leaks.ts";
import { npmStartArgs } from "./helpers/start-command.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const MB = 1024 * 1024;

const children: ChildProcess[] = [];
const dirs: string[] = [];
after(async () => {
  for (const child of children) {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts `src/main.ts` on a fresh embedded database and resolves with its URL once it listens. */
async function startServer(): Promise<{ child: ChildProcess; url: string; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-body-memory-"));
  dirs.push(dataDir);
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    ASSAY_DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    ASSAY_WORKER: "false",
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, npmStartArgs(), {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  watchChildOutput(child, "server process");
  const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`the server exited with ${code} before listening`))),
  );
  const listening = (async () => {
    for await (const line of lines) {
      const record = (() => {
        try {
          return JSON.parse(line) as { msg?: string; url?: string };
        } catch {
          return {};
        }
      })();
      if (record.msg === "listening" && record.url) return record.url;
    }
    throw new Error("the server's output ended before it listened");
  })();
  const url = await Promise.race([listening, exited]);
  lines.on("line", () => {}); // keep draining the log so the child never blocks on a full pipe
  return { child, url, dataDir };
}

/** The resident set size of process `pid` in bytes, from the kernel's own account. */
function residentBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  assert.ok(match, "VmRSS is in /proc/<pid>/status");
  return Number(match[1]) * 1024;
}

/**
 * POSTs a `{viewer{id}}` query padded to `totalBytes`, written from one reused buffer as the socket
 * takes it; resolves with the answer's status, or "closed" when the server hung up before answering.
 */
function postPadded(
  url: string,
  token: string,
  totalBytes: number,
  chunked: boolean,
): Promise<number | "closed"> {
  const head = Buffer.from('{"query":"{ viewer { id } }","padding":"');
  const tail = Buffer.from('"}');
  const filler = Buffer.alloc(MB, "a");
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: number | "closed") => {
      if (!settled) {
        settled = true;
        resolve(outcome);
      }
    };
    const req = http.request(`${url}/graphql/`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...(chunked ? {} : { "content-length": String(totalBytes) }),
      },
    });
    req.on("response", (res) => {
      res.resume();
      settle(res.statusCode ?? 0);
      req.destroy();
    });
    req.on("error", () => settle("closed"));
    req.on("close", () => settle("closed"));
    let left = totalBytes - head.length - tail.length;
    req.write(head);
    const pump = () => {
      while (left > 0 && !req.destroyed) {
        const piece = left >= filler.length ? filler : filler.subarray(0, left);
        left -= piece.length;
        if (!req.write(piece)) {
          req.once("drain", pump);
          return;
        }
      }
      if (!req.destroyed) req.end(tail);
    };
    pump();
  });
}

test("eight concurrent 95 MB queries keep the server under 400 MB resident: each stops at the ordinary limit", async () => {
  const { child, url, dataDir } = await startServer();
  const token = fs.readFileSync(path.join(dataDir, "demo-token"), "utf8").trim();
  const pid = child.pid as number;
  let peak = residentBytes(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentBytes(pid));
  }, 10);
  let outcomes: (number | "closed")[];
  try {
    outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => postPadded(url, token, 95 * MB, i % 2 === 0)),
    );
    peak = Math.max(peak, residentBytes(pid));
  } finally {
    clearInterval(sampler);
  }
  // Every request was refused: 413 when the client read the answer before the server closed the
  // connection, else a closed connection (which comes first depends on timing; test/http.test.ts
  // checks the 413 itself).
  for (const outcome of outcomes) assert.ok(outcome === 413 || outcome === "closed", `got ${outcome}`);
  assert.ok(peak < 400 * MB, `the server reached ${Math.round(peak / MB)} MB resident`);

  // The server still answers afterwards.
  const res = await fetch(`${url}/graphql/`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ query: "{ viewer { email } }" }),
  });
  assert.equal(res.status, 200);
});
