// test-runner: execution-mode independent (a C addon and a timer; no GraphQL)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { mock, test } from "node:test";
import {
  buildMallocTrim,
  loadMallocTrim,
  MallocTrimBuildError,
  mallocTrimAddonPath,
  trimFreedMemoryEvery,
} from "./malloc-trim.ts";

function scratch(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-malloc-trim-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("the addon is built with the machine's C compiler, loads, and is built once", (t) => {
  const dir = scratch(t);
  assert.equal(loadMallocTrim(dir), null, "nothing built yet");
  const first = buildMallocTrim({ cc: "cc", directory: dir });
  assert.equal(first.built, true);
  assert.equal(first.file, mallocTrimAddonPath(dir));
  assert.deepEqual(fs.readdirSync(dir), [path.basename(first.file)], "no temporary file is left");
  const trim = loadMallocTrim(dir);
  assert.ok(trim);
  assert.equal(typeof trim(), "boolean");
  assert.deepEqual(buildMallocTrim({ cc: "cc", directory: dir }), { file: first.file, built: false });
});

test("a build that cannot happen says why and leaves nothing behind", (t) => {
  const dir = scratch(t);
  const failing = (options: Parameters<typeof buildMallocTrim>[0], message: RegExp) =>
    assert.throws(
      () => buildMallocTrim(options),
      (error: unknown) => {
        assert.ok(error instanceof MallocTrimBuildError);
        assert.match(error.message, message);
        return true;
      },
    );
  failing({ cc: "false", directory: dir }, /^false failed \(exit 1\)$/);
  failing({ cc: path.join(dir, "no-such-compiler"), directory: dir }, /could not be run .*ENOENT/);
  failing(
    { cc: "cc", directory: dir, headers: path.join(dir, "include") },
    /Node's C headers are not in .*include/,
  );
  assert.deepEqual(fs.readdirSync(dir), []);
  assert.equal(loadMallocTrim(dir), null);
});

test("trim gives back the free pages between blocks still in use, which glibc keeps otherwise", (t) => {
  const dir = scratch(t);
  const { file } = buildMallocTrim({ cc: "cc", directory: dir });
  // 48 MiB of 12 KiB backing stores (malloc'd, below glibc's mmap threshold), one in 16 kept.
  const script = `
    const addon = { exports: {} };
    process.dlopen(addon, process.argv[1]);
    const rss = () => process.memoryUsage().rss / 2 ** 20;
    const baseline = rss();
    let all = [];
    for (let i = 0; i < 4096; i++) all.push(Buffer.allocUnsafeSlow(12 * 1024).fill(1));
    const kept = all.filter((_, i) => i % 16 === 0);
    all = null;
    for (let i = 0; i < 10 && process.memoryUsage().arrayBuffers > 8 * 2 ** 20; i++) {
      globalThis.gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const freed = process.memoryUsage().arrayBuffers < 8 * 2 ** 20;
    const before = rss();
    const released = addon.exports.trim();
    console.log(JSON.stringify({ freed, baseline, before, released, after: rss(), kept: kept.length }));
  `;
  // glibc's own defaults, whatever the environment set.
  const { MALLOC_ARENA_MAX: _arenas, MALLOC_TRIM_THRESHOLD_: _threshold, ...env } = process.env;
  const run = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script, file], {
    encoding: "utf8",
    env,
  });
  assert.equal(run.status, 0, run.stderr);
  const figures = JSON.parse(run.stdout) as {
    freed: boolean;
    baseline: number;
    before: number;
    released: boolean;
    after: number;
  };
  assert.equal(figures.freed, true, "V8 freed the dropped buffers");
  const { baseline, before, after } = figures;
  assert.ok(before - baseline >= 30, `without trim the freed pages stay: ${baseline} then ${before} MiB`);
  assert.equal(figures.released, true);
  assert.ok(
    before - after >= 30,
    `trim gave back ${before - after} MiB of about 45 freed (${before} → ${after})`,
  );
});

test("freed memory is given back at each interval until stopped, and not at all without the addon", (t) => {
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  let trims = 0;
  const stop = trimFreedMemoryEvery(10_000, () => {
    trims += 1;
    return true;
  });
  assert.ok(stop);
  mock.timers.tick(9_999);
  assert.equal(trims, 0);
  mock.timers.tick(1);
  assert.equal(trims, 1);
  mock.timers.tick(30_000);
  assert.equal(trims, 4);
  stop();
  mock.timers.tick(60_000);
  assert.equal(trims, 4, "stopped");
  assert.equal(trimFreedMemoryEvery(10_000, null), null);
});
