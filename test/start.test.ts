// test-runner: execution-mode independent (process start-up, not execution)
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { gql } from "./helpers/server.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

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

test("on a fresh data directory the demo token works from the first moment the server answers", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-start-"));
  dirs.push(dataDir);
  const port = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    ASSAY_DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env,
    stdio: "ignore",
  });
  children.push(child);

  // A first start migrates the new data directory; on a loaded machine that has taken over a minute.
  const deadline = Date.now() + 180_000;
  for (;;) {
    assert.ok(Date.now() < deadline, "the server did not answer /healthz within 180 s");
    assert.equal(child.exitCode, null, "the server exited during start");
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await sleep(50);
  }
  // The first answer: the token file must exist and authenticate already.
  const token = fs.readFileSync(path.join(dataDir, "demo-token"), "utf8").trim();
  const res = await gql(`http://127.0.0.1:${port}/graphql/`, token, "{ viewer { email } }");
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, { viewer: { email: "ada@acme-labs.example" } });
});
