/**
 * A ready-made embedded database: PGlite's data directory after initdb and every migration, kept
 * once per install so that a new data directory starts as a copy of it.
 *
 * initdb is most of an embedded first start (about 6 s of PGlite's WebAssembly on a quiet machine;
 * a copy of the 42 MB it makes takes a fraction of a second). `npm ci` builds the template (the
 * package's `postinstall`, scripts/embedded-template.ts) as PostgreSQL's Debian package creates
 * its cluster at install; without it (`--ignore-scripts`), a first start runs initdb as before.
 *
 * The template is named by what makes it: the PGlite version and the list of migrations. Landed
 * migrations never change (test/fixtures/migrations.sha256), so a name that matches is the same
 * schema; a new migration or another PGlite makes a new template. It holds no data: migrations
 * create the schema and its reference rows only.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** The install's cache: node_modules/.cache, as other tools keep theirs. */
export const CACHE_DIRECTORY = path.resolve(
  import.meta.dirname,
  "..",
  "..",
  "node_modules",
  ".cache",
  "assay",
);

/** The installed PGlite's version, from its package.json (which the package does not export). */
function pgliteVersion(): string {
  let directory = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  for (;;) {
    const manifest = path.join(directory, "package.json");
    if (fs.existsSync(manifest)) {
      const { name, version } = JSON.parse(fs.readFileSync(manifest, "utf8")) as {
        name?: string;
        version?: string;
      };
      if (name === "@electric-sql/pglite" && version) return version;
    }
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error("the installed PGlite has no package.json");
    directory = parent;
  }
}

/** Where the template for this PGlite and these migrations is (whether or not it exists yet). */
export function templateDirectory(
  migrationNames: readonly string[],
  cacheDirectory = CACHE_DIRECTORY,
): string {
  const migrations = createHash("sha256").update(migrationNames.join("\n")).digest("hex").slice(0, 16);
  return path.join(cacheDirectory, `embedded-pglite-${pgliteVersion()}-${migrations}`);
}

/** True when `template` is a whole template: it is moved into place only once complete. */
export function templateExists(template: string): boolean {
  return fs.existsSync(path.join(template, "PG_VERSION"));
}

/**
 * Makes `pgdata` a copy of `template` when `pgdata` does not exist yet, and says whether it did.
 * The copy is made beside it and renamed into place, so a start cut short leaves no half copy.
 */
export function copyTemplate(template: string, pgdata: string): boolean {
  if (fs.existsSync(pgdata) || !templateExists(template)) return false;
  const partial = `${pgdata}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.cpSync(template, partial, { recursive: true });
  fs.chmodSync(partial, 0o700);
  fs.renameSync(partial, pgdata);
  return true;
}

/**
 * Builds the template with `initialize` (which must leave a cleanly stopped, migrated PGlite data
 * directory in the directory it is given) unless it exists. Built beside its final place and
 * renamed into it; when another process finishes first, its copy is kept and ours dropped.
 */
export async function buildTemplate(
  template: string,
  initialize: (pgdata: string) => Promise<void>,
): Promise<boolean> {
  if (templateExists(template)) return false;
  fs.mkdirSync(path.dirname(template), { recursive: true });
  const work = fs.mkdtempSync(`${template}.building-`);
  try {
    const pgdata = path.join(work, "pgdata");
    await initialize(pgdata);
    try {
      fs.renameSync(pgdata, template);
    } catch (error) {
      if (!templateExists(template)) throw error;
    }
    return true;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
