// test-runner: execution-mode independent (reads the migration files; no server)
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { migrationProvider } from "../src/db/migrations/index.ts";

/**
 * Migrations are append-only (docs/architecture.md "Migrations"): an installation that ran a
 * migration never runs it again, so editing a landed one would leave old and new installations
 * with different schemas. Every migration file is registered, and every landed file's bytes match
 * the hash committed in test/fixtures/migrations.sha256, to which a new migration is appended.
 */

const FOLDER = path.join(import.meta.dirname, "..", "src", "db", "migrations");
const HASHES = path.join(import.meta.dirname, "fixtures", "migrations.sha256");

/** The migration files in the folder, by name without `.ts`, in name order. */
function migrationFiles(): string[] {
  return fs
    .readdirSync(FOLDER)
    .filter((file) => /^\d{4}-[a-z0-9-]+\.ts$/.test(file) && !file.endsWith(".test.ts"))
    .map((file) => file.slice(0, -3))
    .sort();
}

/** The committed list: `sha256  file` per line, as sha256sum prints it. */
function committedHashes(): Array<{ hash: string; name: string }> {
  return fs
    .readFileSync(HASHES, "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const match = /^([0-9a-f]{64}) {2}(\d{4}-[a-z0-9-]+)\.ts$/.exec(line);
      assert.ok(match, `not a "<sha256>  <file>" line in migrations.sha256: ${line}`);
      return { hash: match[1]!, name: match[2]! };
    });
}

test("every migration file in the folder is registered in index.ts, and nothing else is", async () => {
  const registered = Object.keys(await migrationProvider.getMigrations());
  assert.deepEqual(registered, migrationFiles());
  // Kysely runs migrations in name order; the registry lists them in that order too.
  assert.deepEqual(registered, [...registered].sort());
});

test("no landed migration was edited: each file's hash matches the committed list", () => {
  const committed = committedHashes();
  const changed = committed
    .filter(({ name, hash }) => {
      const file = path.join(FOLDER, `${name}.ts`);
      return (
        !fs.existsSync(file) || createHash("sha256").update(fs.readFileSync(file)).digest("hex") !== hash
      );
    })
    .map(({ name }) => name);
  assert.deepEqual(
    changed,
    [],
    "landed migrations are append-only: add a new migration instead of editing one",
  );
  // A new migration is appended to the list (after the last landed one), never slotted in between.
  assert.deepEqual(
    committed.map(({ name }) => name),
    migrationFiles(),
    "test/fixtures/migrations.sha256 must list every migration file, in order (append new ones)",
  );
});
