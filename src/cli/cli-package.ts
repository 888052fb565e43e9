import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/**
 * The standalone package of `assay upload` (docs/ingestion.md "Installing it"):
 * src/cli/upload-main.ts bundled by esbuild into one file that needs nothing but
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

/** A package whose code the bundle carries, and the text of its license. */
interface BundledPackage {
  name: string;
  version: string;
  license: string;
  licenseText: string;
}

/**
 * An esbuild plugin that treats every imported package as free of side effects. The upload
 * command imports a few pure functions (the format sniffer, the wrong-format sentence) from
 * modules that also import parsers it never calls; without this, a CommonJS parser imported there
 * (saxes) would be carried whole although nothing of it is used.
 */
const packagesWithoutSideEffects = {
  name: "packages-without-side-effects",
  setup(build: import("esbuild").PluginBuild) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === "resolving" || args.path.startsWith("node:")) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: "resolving",
      });
      return resolved.errors.length > 0 ? { errors: resolved.errors } : { ...resolved, sideEffects: false };
    });
  },
};

/** The package a bundled file of node_modules belongs to: `node_modules/@scope/name/...` → its folder. */
function packageFolderOf(input: string): string {
  const parts = input.split("/");
  const at = parts.lastIndexOf("node_modules");
  const length = parts[at + 1]?.startsWith("@") ? 3 : 2;
  return parts.slice(0, at + length).join("/");
}

/** The name, version and license of each package whose code is in the bundle. */
async function bundledPackages(inputs: string[]): Promise<BundledPackage[]> {
  const folders = [...new Set(inputs.filter((i) => i.includes("node_modules/")).map(packageFolderOf))].sort();
  return Promise.all(
    folders.map(async (folder) => {
      const dir = path.resolve(ROOT, folder);
      const manifest = JSON.parse(await fs.readFile(path.join(dir, "package.json"), "utf8")) as {
        name: string;
        version: string;
        license?: string;
      };
      const licenseFile = (await fs.readdir(dir)).find((file) => /^licen[cs]e/i.test(file));
      if (!licenseFile) throw new Error(`the CLI bundle carries ${manifest.name}, which has no license file`);
      return {
        name: manifest.name,
        version: manifest.version,
        license: manifest.license ?? "see its license",
        licenseText: (await fs.readFile(path.join(dir, licenseFile), "utf8")).trim(),
      };
    }),
  );
}

/**
 * Bundles the upload command into `outfile` as one ES module with a shebang: the package then
 * needs nothing but Node. Answers the packages whose code the bundle carries, for their notices.
 */
async function bundle(outfile: string, version: string): Promise<BundledPackage[]> {
  // Loaded here, not at the top: the server imports this module but builds at most once.
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    outfile,
    // Paths in the bundle's comments are relative to this, so the bytes do not depend on the
    // directory the server was started from.
    absWorkingDir: ROOT,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
    define: { ASSAY_CLI_VERSION: JSON.stringify(version) },
    legalComments: "none",
    logLevel: "silent",
    metafile: true,
    plugins: [packagesWithoutSideEffects],
  });
  const carried = Object.values(result.metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([name]) => name),
  );
  return bundledPackages(carried);
}

/** The notices of the packages the bundle carries, as the MIT and ISC licenses ask. */
function noticesOf(packages: BundledPackage[]): string {
  const sections = packages.map((p) => `## ${p.name} ${p.version} (${p.license})\n\n${p.licenseText}\n`);
  if (sections.length === 0)
    return "# Third-party notices\n\nbin/assay.mjs carries code of no other package.\n";
  return `# Third-party notices\n\nbin/assay.mjs carries code of these packages.\n\n${sections.join("\n")}`;
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
    const carried = await bundle(path.join(packageDir, "bin", "assay.mjs"), version);
    await fs.writeFile(path.join(packageDir, "THIRD-PARTY-NOTICES.md"), noticesOf(carried));
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
