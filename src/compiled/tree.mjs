/**
 * The compiled server: every module under src/ compiled from TypeScript to JavaScript, one file to
 * one file, so that `npm start` runs under plain node instead of tsx. tsx compiles in a loader
 * thread of its own, which costs each process about 40 MB of resident memory.
 *
 * `npm ci` builds the tree into the install's cache (src/compiled/build.ts), beside a manifest
 * naming the sources that went in and a hash of their contents and of the manifests of the
 * packages bundled in (their versions). A compiled module is used only while those still hash the
 * same; after an edit or an upgrade, the launcher (scripts/start.mjs) builds the tree again. This file is plain JavaScript because the launcher reads it before anything can
 * compile TypeScript.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** The repository's root: the sources' paths in a manifest are relative to it. */
export const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** Where `npm ci` builds the tree: inside node_modules, so that compiled modules resolve packages from it. */
export const TREE_CACHE = path.join(ROOT, "node_modules", ".cache", "assay", "server");

/** Raised by a change in how the tree is compiled, so that a tree compiled the old way is not used. */
export const TREE_FORMAT = 2;

/** The manifest's name in the cache directory. */
export const MANIFEST = "manifest.json";

/**
 * SHA-256 over the files' names and contents, in the order given: the sources, and the manifests
 * of the packages bundled into the tree.
 * @param {readonly string[]} sources paths relative to {@link ROOT}
 */
export function hashSources(sources) {
  const hash = createHash("sha256");
  for (const source of sources) {
    hash.update(`${source}\0`);
    hash.update(fs.readFileSync(path.join(ROOT, source)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/**
 * Manifests this process found current, by cache, hash and sources: hashing the sources (2 MB)
 * costs about 13 ms, and a start asks twice (the launcher, then the database process's fork).
 * A process runs the modules it loaded, so an edit after its check changes nothing for it.
 * @type {Set<string>}
 */
const currentManifests = new Set();

/**
 * The compiled module of `source` (a path relative to the root, such as "src/main.ts") when the
 * cache holds a tree built from the sources as they are now; otherwise undefined. Never throws: a
 * missing, partial or stale tree only means that the caller runs the TypeScript instead.
 * @param {string} source
 * @param {string} [cache]
 * @returns {string | undefined}
 */
export function compiledModule(source, cache = TREE_CACHE) {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(cache, MANIFEST), "utf8"));
    if (manifest.format !== TREE_FORMAT || !Array.isArray(manifest.sources)) return undefined;
    if (!Array.isArray(manifest.hashed)) return undefined;
    // Compiled modules name their sources by absolute path: a checkout moved since (a container
    // image's build stage copied elsewhere) must compile again.
    if (manifest.root !== ROOT) return undefined;
    if (!manifest.sources.includes(source)) return undefined;
    const file = path.join(cache, path.basename(String(manifest.tree)), source.replace(/\.ts$/, ".js"));
    if (!fs.existsSync(file)) return undefined;
    const key = JSON.stringify([cache, manifest.sha256, manifest.hashed]);
    if (!currentManifests.has(key)) {
      if (hashSources(manifest.hashed) !== manifest.sha256) return undefined;
      currentManifests.add(key);
    }
    return file;
  } catch {
    // No tree, a torn manifest, or a source deleted since.
    return undefined;
  }
}
