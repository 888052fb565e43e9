// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { execFileSync, fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import pg from "pg";
import { prepareEmbeddedTemplate } from "../db/database.ts";
import { copyTemplate } from "../db/embedded-template.ts";
import {
  buildCompiledTree,
  builtInPackageManifests,
  type CompiledTree,
  serverSources,
  VENDORED_PACKAGES,
} from "./build.ts";
import { compiledModule, hashSources, MANIFEST, ROOT, TREE_FORMAT } from "./tree.mjs";

/** The modules that do something when loaded: programs, not libraries. */
const PROGRAMS = ["src/main.ts", "src/db/embedded-server.ts", "src/cli/assay.ts", "src/cli/upload-main.ts"];

/** A cache inside node_modules, where the install puts the tree, so compiled modules find packages. */
function scratchCache(t: { after(fn: () => void): void }): string {
  const cache = fs.mkdtempSync(path.join(ROOT, "node_modules", ".cache", "assay-tree-test-"));
  t.after(() => fs.rmSync(cache, { recursive: true, force: true }));
  return cache;
}

function readManifest(cache: string): {
  format: number;
  root: string;
  tree: string;
  sources: string[];
  hashed: string[];
  sha256: string;
} {
  return JSON.parse(fs.readFileSync(path.join(cache, MANIFEST), "utf8"));
}

/** Runs `script` (an ES module's text) under plain node, without tsx, and returns what it printed. */
function runPlainNode(script: string): string {
  return execFileSync(process.execPath, ["--input-type=module", "--eval", script], {
    cwd: os.tmpdir(),
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "" },
  });
}

let shared: { cache: string; tree: CompiledTree };
before(async () => {
  const cache = fs.mkdtempSync(path.join(ROOT, "node_modules", ".cache", "assay-tree-test-"));
  shared = { cache, tree: await buildCompiledTree(cache) };
});
after(() => fs.rmSync(shared.cache, { recursive: true, force: true }));

test("the tree holds one compiled module for every module of the server, and nothing of the tests", () => {
  const { tree } = shared;
  assert.deepEqual(tree.sources, serverSources());
  assert.equal(readManifest(shared.cache).root, ROOT);
  assert.ok(tree.sources.includes("src/main.ts"));
  assert.ok(tree.sources.includes("src/db/embedded-server.ts"));
  assert.ok(!tree.sources.some((source) => source.endsWith(".test.ts")));
  for (const source of tree.sources) {
    const file = path.join(tree.directory, source.replace(/\.ts$/, ".js"));
    assert.ok(fs.existsSync(file), `${source} is compiled`);
    assert.ok(fs.existsSync(`${file}.map`), `${source} has its source map`);
  }
});

test("the vendored packages are one module each, which every compiled module imports instead of the package", () => {
  const { tree } = shared;
  const vendor = fs.readdirSync(path.join(tree.directory, "vendor")).sort();
  assert.deepEqual(vendor, ["kysely.js", "pothos-core.js"]);
  const bare = new RegExp(`from "(${VENDORED_PACKAGES.map(({ name }) => name).join("|")})"`);
  const importers = tree.sources.filter((source) => {
    const code = fs.readFileSync(path.join(tree.directory, source.replace(/\.ts$/, ".js")), "utf8");
    assert.doesNotMatch(code, bare, `${source} imports a vendored package from node_modules`);
    return code.includes('/vendor/kysely.js"');
  });
  assert.ok(importers.length > 20, `${importers.length} compiled modules import the vendored Kysely`);
  assert.deepEqual(readManifest(shared.cache).hashed, [...tree.sources, ...builtInPackageManifests()]);
  // An upgrade of any package whose code is in the tree (vendored, or inlined like js-cvss) makes
  // the tree stale: their manifests are hashed with the sources.
  for (const name of ["kysely", "@pothos/core", "@pandatix/js-cvss"]) {
    assert.ok(builtInPackageManifests().includes(`node_modules/${name}/package.json`), name);
  }
});

test("every compiled module loads under plain node, and keeps its source's place", () => {
  const { tree } = shared;
  const libraries = tree.sources
    .filter((source) => !PROGRAMS.includes(source))
    .map((source) => path.join(tree.directory, source.replace(/\.ts$/, ".js")));
  const fixtures = path.join(tree.directory, "src", "formats", "fixtures.js");
  const output = runPlainNode(`
    import { pathToFileURL } from "node:url";
    const failures = [];
    for (const file of ${JSON.stringify(libraries)}) {
      try { await import(pathToFileURL(file).href); } catch (error) { failures.push(file + ": " + error.message); }
    }
    const { fixtureDir } = await import(pathToFileURL(${JSON.stringify(fixtures)}).href);
    process.stdout.write(JSON.stringify({ failures, sarif: fixtureDir("sarif") }));
    process.exit(0);
  `);
  const { failures, sarif } = JSON.parse(output) as { failures: string[]; sarif: string };
  assert.deepEqual(failures, []);
  // import.meta.dirname is the source's directory, not the tree's.
  assert.equal(sarif, path.join(ROOT, "src", "formats", "sarif", "fixtures"));
});

test("a compiled module is used only while the sources hash as they did when it was built", (t) => {
  const cache = scratchCache(t);
  assert.equal(compiledModule("src/main.ts", cache), undefined, "no tree");
  fs.writeFileSync(path.join(cache, MANIFEST), "{ not json");
  assert.equal(compiledModule("src/main.ts", cache), undefined, "a torn manifest");

  // A manifest of the shared tree, copied beside a link to it.
  const manifest = readManifest(shared.cache);
  fs.symlinkSync(path.join(shared.cache, manifest.tree), path.join(cache, manifest.tree));
  const write = (changes: object) =>
    fs.writeFileSync(path.join(cache, MANIFEST), JSON.stringify({ ...manifest, ...changes }));
  write({});
  const main = path.join(cache, manifest.tree, "src", "main.js");
  assert.equal(compiledModule("src/main.ts", cache), main);
  assert.equal(compiledModule("src/no-such-module.ts", cache), undefined, "a module the tree lacks");

  // What an edit to any module since the build looks like: the hash no longer matches.
  write({ sha256: "0".repeat(64) });
  assert.equal(compiledModule("src/main.ts", cache), undefined);
  write({
    sources: [...manifest.sources, "src/deleted-since.ts"],
    hashed: [...manifest.hashed, "src/deleted-since.ts"],
  });
  assert.equal(compiledModule("src/main.ts", cache), undefined, "a source deleted since");
  write({ format: TREE_FORMAT + 1 });
  assert.equal(compiledModule("src/main.ts", cache), undefined, "a tree compiled another way");
  write({ tree: "tree-0000000000000000" });
  assert.equal(compiledModule("src/main.ts", cache), undefined, "a tree removed since");
  write({ root: path.join(os.tmpdir(), "elsewhere") });
  assert.equal(compiledModule("src/main.ts", cache), undefined, "a tree compiled for a checkout elsewhere");

  // A vendored package upgraded since: its manifest, one of the hashed inputs, changed.
  const upgraded = path.relative(ROOT, path.join(cache, "package.json"));
  fs.writeFileSync(path.join(ROOT, upgraded), JSON.stringify({ version: "1.0.0" }));
  const hashed = [...manifest.hashed, upgraded];
  write({ hashed, sha256: hashSources(hashed) });
  fs.writeFileSync(path.join(ROOT, upgraded), JSON.stringify({ version: "1.0.1" }));
  assert.equal(compiledModule("src/main.ts", cache), undefined, "a vendored package upgraded since");
  // (Checked before it is found current once: a process keeps what it found current.)
  fs.writeFileSync(path.join(ROOT, upgraded), JSON.stringify({ version: "1.0.0" }));
  assert.equal(compiledModule("src/main.ts", cache), main, "the version it was built with");
});

test("builds of the same sources at once make one tree; older trees beyond two and abandoned parts go", async (t) => {
  const cache = scratchCache(t);
  const older = ["tree-000000000000000a", "tree-000000000000000b", "tree-000000000000000c"];
  older.forEach((name, index) => {
    fs.mkdirSync(path.join(cache, name));
    const time = new Date(Date.now() - (index + 1) * 60_000);
    fs.utimesSync(path.join(cache, name), time, time);
  });
  // What builds that died an hour ago left, and a build still running beside this one.
  const hourAgo = new Date(Date.now() - 3_600_000);
  fs.mkdirSync(path.join(cache, "tree-000000000000000d.partial-4321-0badc0de"));
  fs.utimesSync(path.join(cache, "tree-000000000000000d.partial-4321-0badc0de"), hourAgo, hourAgo);
  fs.writeFileSync(path.join(cache, `${MANIFEST}.partial-4321-0badc0de`), "{");
  fs.utimesSync(path.join(cache, `${MANIFEST}.partial-4321-0badc0de`), hourAgo, hourAgo);
  const running = "tree-000000000000000e.partial-4322-0badc0de";
  fs.mkdirSync(path.join(cache, running));

  const [first, second] = await Promise.all([buildCompiledTree(cache), buildCompiledTree(cache)]);
  assert.equal(first.directory, second.directory);
  assert.deepEqual(
    fs.readdirSync(cache).sort(),
    [MANIFEST, path.basename(first.directory), older[0], older[1], running].sort(),
    "the current tree, the two newest older ones, the manifest, the running build's part; nothing abandoned",
  );
  assert.equal(compiledModule("src/main.ts", cache), path.join(first.directory, "src", "main.js"));
});

test("the compiled database process serves the embedded database under plain node", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-tree-db-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const { template } = await prepareEmbeddedTemplate();
  const pgdata = path.join(dir, "pgdata");
  assert.equal(copyTemplate(template, pgdata), true);
  const socketPath = path.join(dir, ".s.PGSQL.5432");
  const script = path.join(shared.tree.directory, "src", "db", "embedded-server.js");
  const child = fork(script, [pgdata, socketPath], {
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
