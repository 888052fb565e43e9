// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import pg from "pg";
import { prepareEmbeddedTemplate } from "./database.ts";
import { buildEmbeddedServerBundle, embeddedServerCommand } from "./embedded-server-bundle.ts";
import { copyTemplate } from "./embedded-template.ts";

const ENTRY = path.join(import.meta.dirname, "embedded-server.ts");

function scratch(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-bundle-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function readManifest(cache: string): { bundle: string; inputs: string[]; sha256: string } {
  return JSON.parse(fs.readFileSync(path.join(cache, "embedded-server.json"), "utf8"));
}

test("without a bundle the database's process runs its TypeScript under tsx", (t) => {
  const cache = scratch(t);
  assert.deepEqual(embeddedServerCommand(cache), { script: ENTRY, execArgv: ["--import", "tsx"] });
  fs.writeFileSync(path.join(cache, "embedded-server.json"), "{ not json");
  assert.deepEqual(embeddedServerCommand(cache), { script: ENTRY, execArgv: ["--import", "tsx"] });
});

test("a built bundle is forked with plain node, and replaces an older one", async (t) => {
  const cache = scratch(t);
  fs.writeFileSync(path.join(cache, "embedded-server-0123456789abcdef.mjs"), "// an older build");
  const bundle = await buildEmbeddedServerBundle(cache);
  assert.deepEqual(embeddedServerCommand(cache), { script: bundle, execArgv: [] });
  const manifest = readManifest(cache);
  assert.deepEqual(manifest.inputs, ["src/db/embedded-server.ts", "src/db/embedded-socket.ts"]);
  assert.deepEqual(
    fs.readdirSync(cache).sort(),
    [path.basename(bundle), "embedded-server.json"].sort(),
    "the older bundle and no partial file are left",
  );
  assert.doesNotMatch(
    fs.readFileSync(bundle, "utf8"),
    /from "\.\/embedded-socket\.ts"/,
    "our imports are inlined",
  );
});

test("a bundle no longer made from the sources as they are is not used", async (t) => {
  const cache = scratch(t);
  const bundle = await buildEmbeddedServerBundle(cache);
  const manifest = readManifest(cache);
  const write = (changes: object) =>
    fs.writeFileSync(path.join(cache, "embedded-server.json"), JSON.stringify({ ...manifest, ...changes }));

  // What an edit to embedded-socket.ts after the install looks like: the hash no longer matches.
  write({ sha256: "0".repeat(64) });
  assert.deepEqual(embeddedServerCommand(cache), { script: ENTRY, execArgv: ["--import", "tsx"] });
  write({ inputs: [] });
  assert.deepEqual(embeddedServerCommand(cache), { script: ENTRY, execArgv: ["--import", "tsx"] });
  write({});
  assert.deepEqual(embeddedServerCommand(cache), { script: bundle, execArgv: [] });
  fs.rmSync(bundle);
  assert.deepEqual(embeddedServerCommand(cache), { script: ENTRY, execArgv: ["--import", "tsx"] });
});

test("the bundle serves the database under plain node", async (t) => {
  const dir = scratch(t);
  // Where the install puts it, so that its imports of packages resolve from node_modules.
  const cache = fs.mkdtempSync(
    path.join(import.meta.dirname, "..", "..", "node_modules", ".cache", "assay-test-"),
  );
  t.after(() => fs.rmSync(cache, { recursive: true, force: true }));
  const bundle = await buildEmbeddedServerBundle(cache);
  const { template } = await prepareEmbeddedTemplate();
  const pgdata = path.join(dir, "pgdata");
  assert.equal(copyTemplate(template, pgdata), true);
  const socketPath = path.join(dir, ".s.PGSQL.5432");
  const child = fork(bundle, [pgdata, socketPath], {
    execArgv: [],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.send({ type: "stop" });
    await exited;
  });
  const message = await new Promise<{ type?: string; message?: string }>((resolve) =>
    child.once("message", resolve),
  );
  assert.deepEqual(message, { type: "ready" });

  const client = new pg.Client({ host: dir, port: 5432, user: "postgres", database: "postgres" });
  await client.connect();
  try {
    const { rows } = await client.query<{ migrations: string }>(
      "SELECT count(*)::text AS migrations FROM kysely_migration",
    );
    assert.ok(Number(rows[0]!.migrations) > 0, "the template's migrated schema is served");
  } finally {
    await client.end();
  }
});
