// test-runner: execution-mode independent (process start-up, not execution)
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { compiledModule } from "../src/compiled/tree.mjs";
import { waitFor } from "./helpers/instance.ts";
import { watchChildOutput } from "./helpers/secret-leaks.ts";
import { gql } from "./helpers/server.ts";
import { npmStartArgs } from "./helpers/start-command.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

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
  // Port 0: the server binds a port the kernel picks and names it in its banner, so no other
  // process can take the port between choosing it and binding it.
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    ASSAY_DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
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
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });

  // A first start migrates the new data directory; on a loaded machine that has taken over a minute.
  const banner = /listening on (http:\/\/\S+?)\/graphql\//;
  await waitFor(
    "the server to say where it listens",
    () => banner.test(stderr) || child.exitCode !== null || child.signalCode !== null,
    180_000,
  );
  const url = banner.exec(stderr)?.[1];
  assert.ok(url, `the server exited during start:\n${stderr}`);
  // The server seeds before it listens: its first answer must already accept the demo token.
  const health = await fetch(`${url}/healthz`);
  assert.equal(health.status, 200);
  // The first answer: the token file must exist and authenticate already.
  const token = fs.readFileSync(path.join(dataDir, "demo-token"), "utf8").trim();
  const res = await gql(`${url}/graphql/`, token, "{ viewer { email } }");
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, { viewer: { email: "ada@acme-labs.example" } });
  // It ran from the compiled server (src/compiled/tree.mjs), built by npm ci or by the launcher.
  assert.doesNotMatch(stderr, /running the TypeScript under tsx/);
  assert.ok(compiledModule("src/main.ts"), "the compiled server is current");
});
