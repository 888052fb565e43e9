import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/**
 * The standalone package of `assay upload` (docs/ingestion.md "Running `assay upload` outside
 * the checkout"): src/cli/upload-main.ts bundled by esbuild into one file that needs nothing but
 * Node, placed in the package folder packages/cli with the server's version, and packed by
 * `npm pack`. `npm run cli:pack` writes the tarball to dist/; the server builds the same one on
 * the first request for it and serves it (src/http/cli-download.ts).
 */

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const PACKAGE_DIR = path.join(ROOT, "packages", "cli");
const ENTRY = path.join(ROOT, "src", "cli", "upload-main.ts");
/** The package's files besides the bundle, copied as they are. */
const PACKAGE_FILES = ["package.json", "README.md"];

/** A packed tarball of the standalone CLI. */
export interface CliPackage {
  /** The version inside, the server's own. */
  version: string;
  /** The name `npm pack` gave it (`assay-cli-0.1.0.tgz`). */
  fileName: string;
  bytes: Buffer;
  /** SHA-256 of `bytes`, hexadecimal. */
  sha256: string;
}

async function rootVersion(): Promise<string> {
  const manifest = JSON.parse(await fs.readFile(path.join(ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  return manifest.version;
}

/**
 * Bundles the upload command into `outfile` as one ES module with a shebang. Refuses a bundle
 * that pulled in a package from node_modules: the tarball promises to need nothing but Node.
 */
async function bundle(outfile: string, version: string): Promise<void> {
  // Loaded here, not at the top: the server imports this module but builds at most once.
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
    define: { ASSAY_CLI_VERSION: JSON.stringify(version) },
    legalComments: "none",
    logLevel: "silent",
    metafile: true,
  });
  const dependencies = Object.keys(result.metafile.inputs).filter((input) => input.includes("node_modules"));
  if (dependencies.length > 0) {
    throw new Error(`the CLI bundle must not depend on packages, but it includes ${dependencies.join(", ")}`);
  }
}

/** Runs `npm pack` in `dir`, writing the tarball into `destination`; its file name. */
async function npmPack(dir: string, destination: string): Promise<string> {
  const { stdout } = await execFileAsync("npm", ["pack", "--json", "--pack-destination", destination], {
    cwd: dir,
    // Nothing of the caller's npm configuration (registry, scripts) has any business here.
    env: { ...process.env, npm_config_ignore_scripts: "true", npm_config_update_notifier: "false" },
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  if (!packed?.filename) throw new Error("npm pack named no tarball");
  return packed.filename;
}

/**
 * Builds and packs the standalone CLI in a temporary directory; the tarball's bytes. With
 * `destination`, the tarball is also written there.
 */
export async function buildCliPackage(destination?: string): Promise<CliPackage> {
  const version = await rootVersion();
  const staging = await fs.mkdtemp(path.join(os.tmpdir(), "assay-cli-"));
  try {
    const packageDir = path.join(staging, "package");
    await fs.mkdir(path.join(packageDir, "bin"), { recursive: true });
    for (const file of PACKAGE_FILES)
      await fs.copyFile(path.join(PACKAGE_DIR, file), path.join(packageDir, file));
    const manifestPath = path.join(packageDir, "package.json");
    const { "//": _note, ...manifest } = JSON.parse(await fs.readFile(manifestPath, "utf8")) as Record<
      string,
      unknown
    >;
    await fs.writeFile(manifestPath, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
    await bundle(path.join(packageDir, "bin", "assay.mjs"), version);
    const fileName = await npmPack(packageDir, staging);
    const bytes = await fs.readFile(path.join(staging, fileName));
    if (destination) {
      await fs.mkdir(destination, { recursive: true });
      await fs.writeFile(path.join(destination, fileName), bytes);
    }
    return { version, fileName, bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}
