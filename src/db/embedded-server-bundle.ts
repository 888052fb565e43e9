/**
 * The embedded database's process, run without tsx. tsx compiles TypeScript in a loader thread of
 * its own, which costs every process that loads it about 38 MB of resident memory and a few tenths
 * of a second at start. The database's process is two of our files around PGlite, so `npm ci`
 * (scripts/embedded-template.ts) bundles them with esbuild into the install's cache, beside a
 * manifest naming the files that went in and a hash of their contents. The server forks the
 * bundle with plain `node` only while those files still hash the same; after an edit (a developer
 * between installs) it forks embedded-server.ts under tsx, as it did before the bundle existed.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { CACHE_DIRECTORY } from "./embedded-template.ts";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const ENTRY = path.join(import.meta.dirname, "embedded-server.ts");
const MANIFEST = "embedded-server.json";

interface Manifest {
  /** The bundle's file name in the cache directory. */
  bundle: string;
  /** The source files bundled, relative to the repository's root. */
  inputs: string[];
  /** SHA-256 over the inputs' names and contents, as {@link hashInputs} computes it. */
  sha256: string;
}

/** How to fork the embedded database's process: the script, and node's options for it. */
export interface EmbeddedServerCommand {
  script: string;
  execArgv: string[];
}

function hashInputs(inputs: readonly string[]): string {
  const hash = createHash("sha256");
  for (const input of inputs) {
    hash.update(`${input}\0`);
    hash.update(fs.readFileSync(path.join(ROOT, input)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/**
 * The bundle when it was built from the sources as they are now; otherwise the TypeScript entry
 * under tsx. Never throws: a missing, partial or stale bundle only means the slower start.
 */
export function embeddedServerCommand(cacheDirectory = CACHE_DIRECTORY): EmbeddedServerCommand {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(cacheDirectory, MANIFEST), "utf8")) as Manifest;
    const bundle = path.join(cacheDirectory, path.basename(manifest.bundle));
    if (
      manifest.inputs.length > 0 &&
      hashInputs(manifest.inputs) === manifest.sha256 &&
      fs.existsSync(bundle)
    ) {
      return { script: bundle, execArgv: [] };
    }
  } catch {
    // No bundle, or one from sources that have changed since.
  }
  return { script: ENTRY, execArgv: ["--import", "tsx"] };
}

/**
 * Bundles embedded-server.ts and what it imports from this repository (packages stay imports,
 * resolved from node_modules as before) into `cacheDirectory`, then writes the manifest that
 * {@link embeddedServerCommand} trusts. Each file is written beside its name and renamed into place.
 */
export async function buildEmbeddedServerBundle(cacheDirectory = CACHE_DIRECTORY): Promise<string> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    absWorkingDir: ROOT,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs).sort();
  const code = result.outputFiles[0]!.contents;
  const sha256 = hashInputs(inputs);
  const bundle = `embedded-server-${sha256.slice(0, 16)}.mjs`;
  fs.mkdirSync(cacheDirectory, { recursive: true });
  writeInPlace(path.join(cacheDirectory, bundle), code);
  const manifest: Manifest = { bundle, inputs, sha256 };
  writeInPlace(path.join(cacheDirectory, MANIFEST), JSON.stringify(manifest, null, 2));
  for (const file of fs.readdirSync(cacheDirectory)) {
    if (/^embedded-server-[0-9a-f]+\.mjs$/.test(file) && file !== bundle) {
      fs.rmSync(path.join(cacheDirectory, file), { force: true });
    }
  }
  return path.join(cacheDirectory, bundle);
}

function writeInPlace(file: string, contents: string | Uint8Array): void {
  const partial = `${file}.partial-${process.pid}`;
  fs.writeFileSync(partial, contents);
  fs.renameSync(partial, file);
}
