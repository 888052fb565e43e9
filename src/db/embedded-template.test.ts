// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { openDatabase, pendingMigrations, prepareEmbeddedTemplate } from "./database.ts";
import { buildTemplate, copyTemplate, templateDirectory, templateExists } from "./embedded-template.ts";
import { migrationProvider } from "./migrations/index.ts";

function scratch(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-template-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a template is named by the PGlite version and the list of migrations", () => {
  const a = templateDirectory(["0001-a", "0002-b"], "/cache");
  assert.match(path.basename(a), /^embedded-pglite-\d+\.\d+\.\d+-[0-9a-f]{16}$/);
  assert.equal(templateDirectory(["0001-a", "0002-b"], "/cache"), a);
  assert.notEqual(templateDirectory(["0001-a", "0002-b", "0003-c"], "/cache"), a);
});

test("a template is built once, moved into place whole, and a second build does nothing", async (t) => {
  const template = path.join(scratch(t), "tpl");
  let calls = 0;
  const initialize = async (pgdata: string) => {
    calls += 1;
    assert.equal(templateExists(template), false, "the template appears only once complete");
    fs.mkdirSync(pgdata);
    fs.writeFileSync(path.join(pgdata, "PG_VERSION"), "17\n");
  };
  assert.equal(await buildTemplate(template, initialize), true);
  assert.equal(await buildTemplate(template, initialize), false);
  assert.equal(calls, 1);
  assert.deepEqual(fs.readdirSync(path.dirname(template)), ["tpl"], "no work directory is left behind");
});

test("a failed build leaves no template and no work directory", async (t) => {
  const template = path.join(scratch(t), "tpl");
  await assert.rejects(
    buildTemplate(template, async () => {
      throw new Error("initdb failed");
    }),
    /initdb failed/,
  );
  assert.equal(templateExists(template), false);
  assert.deepEqual(fs.readdirSync(path.dirname(template)), []);
});

test("a data directory is copied from the template only when it has none yet", (t) => {
  const dir = scratch(t);
  const template = path.join(dir, "tpl");
  fs.mkdirSync(path.join(template, "base"), { recursive: true });
  fs.writeFileSync(path.join(template, "PG_VERSION"), "17\n");
  fs.writeFileSync(path.join(template, "base", "1"), "rows");
  const pgdata = path.join(dir, "data", "pgdata");
  fs.mkdirSync(path.dirname(pgdata));
  assert.equal(copyTemplate(path.join(dir, "missing"), pgdata), false);
  assert.equal(fs.existsSync(pgdata), false);
  assert.equal(copyTemplate(template, pgdata), true);
  assert.equal(fs.readFileSync(path.join(pgdata, "base", "1"), "utf8"), "rows");
  assert.equal(fs.statSync(pgdata).mode & 0o777, 0o700);
  fs.writeFileSync(path.join(pgdata, "base", "1"), "changed");
  assert.equal(copyTemplate(template, pgdata), false, "an existing data directory is never replaced");
  assert.equal(fs.readFileSync(path.join(pgdata, "base", "1"), "utf8"), "changed");
  assert.deepEqual(fs.readdirSync(path.dirname(pgdata)), ["pgdata"]);
});

test("a new embedded data directory opened from the install's template has every migration applied", async (t) => {
  const { template } = await prepareEmbeddedTemplate();
  assert.equal(templateExists(template), true);
  const dataDir = scratch(t);
  const handle = await openDatabase(
    { databaseUrl: undefined, dataDir, databasePoolSize: 2 },
    { fromTemplate: true },
  );
  try {
    assert.deepEqual(await pendingMigrations(handle.db), []);
    const applied = await handle.db
      .selectFrom("kysely_migration" as never)
      .select("name" as never)
      .execute();
    assert.equal(applied.length, Object.keys(await migrationProvider.getMigrations()).length);
  } finally {
    await handle.close();
  }
});

test("without fromTemplate a new embedded data directory starts empty, as migration tests need", async (t) => {
  const dataDir = scratch(t);
  const handle = await openDatabase({ databaseUrl: undefined, dataDir, databasePoolSize: 2 });
  try {
    assert.equal(
      (await pendingMigrations(handle.db)).length,
      Object.keys(await migrationProvider.getMigrations()).length,
    );
  } finally {
    await handle.close();
  }
});
