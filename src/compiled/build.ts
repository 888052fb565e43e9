/**
 * Builds the compiled server (see tree.mjs): each module under src/ compiled by esbuild to one
 * JavaScript file, at the same place in a tree inside the install's cache.
 *
 * Each module is compiled on its own, as tsx compiles it, with two differences that keep its
 * meaning where it now lives:
 * - its imports of our TypeScript modules name their compiled files (`./x.ts` becomes `./x.js`);
 *   other files of ours (tree.mjs) are imported from the sources by absolute path;
 * - `import.meta.url`, `dirname` and `filename` are the source's, so that a module that reads a
 *   file beside it (the playground's assets, docs/examples, package.json) reads the same file.
 *
 * A new tree is written under a temporary name and renamed into place, then the manifest; a
 * process that reads the manifest meanwhile sees the old tree or the new one, never a part.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { hashSources, MANIFEST, ROOT, TREE_CACHE, TREE_FORMAT } from "./tree.mjs";

/**
 * Packages whose published ES modules plain node cannot load: js-cvss's imports its own files
 * without their extensions, which only tsx's resolver accepts. They are compiled into the modules
 * that import them instead of being imported from node_modules.
 */
const INLINED_PACKAGES = ["@pandatix/js-cvss"];

/**
 * Packages bundled into one module each in the tree (`vendor/<name>.js`), which our modules import
 * instead of the package's own files. Kysely publishes its ES build as about a thousand small
 * modules: loaded file by file they cost a process about 16 MB more than as one module, and every
 * importer of ours shares the one module, so there is still a single Kysely. A vendored package
 * must be imported by our modules alone (no package in node_modules imports it), and by its name
 * only; the packages it imports stay in node_modules.
 */
export const VENDORED_PACKAGES: readonly { name: string; hasDefault: boolean }[] = [
  { name: "kysely", hasDefault: false },
  { name: "@pothos/core", hasDefault: true },
];

/**
 * What the tree's hash covers besides the sources: the manifests (so the versions) of the packages
 * whose code is built into the tree, vendored or inlined; an upgrade of one builds a new tree.
 */
export function builtInPackageManifests(): string[] {
  return [...VENDORED_PACKAGES.map(({ name }) => name), ...INLINED_PACKAGES].map((name) =>
    path.posix.join("node_modules", name, "package.json"),
  );
}

/** The vendored module of `name`, relative to the tree's root. */
function vendorFile(name: string): string {
  return path.posix.join("vendor", `${name.replace(/^@/, "").replace("/", "-")}.js`);
}

/** Trees kept besides the current one, for servers still running from them (they import lazily). */
const OLDER_TREES_KEPT = 2;

/** A partial tree or manifest this old is left by a build that died: one takes seconds. */
const ABANDONED_AFTER_MS = 10 * 60_000;

export interface CompiledTree {
  /** The tree's directory. */
  directory: string;
  /** The sources compiled, relative to the repository's root. */
  sources: string[];
}

/** Every TypeScript module under src/ that the server may load: not tests, not declarations. */
export function serverSources(): string[] {
  return fs
    .readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.endsWith(".d.ts"))
    .map((file) => path.posix.join("src", file.split(path.sep).join("/")))
    .sort();
}

/** What every build of the tree shares: ES modules for node 20, kept in memory until written. */
const ESBUILD_OPTIONS = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  write: false,
} as const;

async function compileModule(
  esbuild: typeof import("esbuild"),
  source: string,
): Promise<{ code: Uint8Array; map: Uint8Array }> {
  const file = path.join(ROOT, source);
  const result = await esbuild.build({
    entryPoints: [file],
    ...ESBUILD_OPTIONS,
    outfile: path.join(ROOT, source.replace(/\.ts$/, ".js")),
    sourcemap: "linked",
    logLevel: "silent",
    define: {
      "import.meta.url": JSON.stringify(pathToFileURL(file).href),
      "import.meta.dirname": JSON.stringify(path.dirname(file)),
      "import.meta.filename": JSON.stringify(file),
    },
    plugins: [
      {
        name: "one-module",
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === "entry-point") return undefined;
            if (args.importer.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
            if (INLINED_PACKAGES.some((name) => args.path === name || args.path.startsWith(`${name}/`))) {
              return undefined;
            }
            if (VENDORED_PACKAGES.some(({ name }) => name === args.path)) {
              const from = path.posix.dirname(source);
              return { path: `./${path.posix.relative(from, vendorFile(args.path))}`, external: true };
            }
            if (!args.path.startsWith(".")) return { path: args.path, external: true };
            if (args.path.endsWith(".ts")) return { path: args.path.replace(/\.ts$/, ".js"), external: true };
            return { path: pathToFileURL(path.resolve(args.resolveDir, args.path)).href, external: true };
          });
        },
      },
    ],
  });
  const code = result.outputFiles.find((output) => output.path.endsWith(".js"));
  const map = result.outputFiles.find((output) => output.path.endsWith(".js.map"));
  if (!code || !map) throw new Error(`esbuild wrote no module for ${source}`);
  // Anything else of the module's meta object (resolve, main) would describe the compiled file.
  if (/import\.meta(?!\.(?:url|dirname|filename)\b)/.test(code.text)) {
    throw new Error(`${source} reads its module's meta object beyond url, dirname and filename`);
  }
  return { code: code.contents, map: map.contents };
}

/** The package bundled into one ES module, the packages it imports left to node_modules. */
async function bundlePackage(
  esbuild: typeof import("esbuild"),
  { name, hasDefault }: { name: string; hasDefault: boolean },
): Promise<Uint8Array> {
  const specifier = JSON.stringify(name);
  const contents = `export * from ${specifier};${hasDefault ? ` export { default } from ${specifier};` : ""}`;
  const result = await esbuild.build({
    stdin: { contents, resolveDir: ROOT, loader: "js" },
    ...ESBUILD_OPTIONS,
    logLevel: "silent",
    plugins: [
      {
        name: "others-external",
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path === name || args.path.startsWith(`${name}/`)
              ? undefined
              : { path: args.path, external: true },
          );
        },
      },
    ],
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error(`esbuild wrote no module for ${name}`);
  return output.contents;
}

/**
 * Compiles every server module into a new tree in `cache` and makes it the current one. Returns
 * where it is. Two builds of the same sources at once (two servers started after an edit) make the
 * same tree; the second finds it in place and uses it.
 */
export async function buildCompiledTree(cache = TREE_CACHE): Promise<CompiledTree> {
  const esbuild = await import("esbuild");
  const sources = serverSources();
  const hashed = [...sources, ...builtInPackageManifests()];
  const sha256 = hashSources(hashed);
  // Named by the sources and where they are: compiled modules name their sources by absolute path.
  const name = `tree-${createHash("sha256").update(`${ROOT}\0${sha256}`).digest("hex").slice(0, 16)}`;
  const directory = path.join(cache, name);
  fs.mkdirSync(cache, { recursive: true });
  if (!fs.existsSync(directory)) {
    const partial = path.join(cache, `${name}.partial-${process.pid}-${randomBytes(4).toString("hex")}`);
    try {
      const compiled = await Promise.all(sources.map((source) => compileModule(esbuild, source)));
      const vendored = await Promise.all(VENDORED_PACKAGES.map((spec) => bundlePackage(esbuild, spec)));
      sources.forEach((source, index) => {
        const target = path.join(partial, source.replace(/\.ts$/, ".js"));
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, compiled[index]!.code);
        fs.writeFileSync(`${target}.map`, compiled[index]!.map);
      });
      VENDORED_PACKAGES.forEach(({ name }, index) => {
        const target = path.join(partial, vendorFile(name));
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, vendored[index]!);
      });
      fs.renameSync(partial, directory);
    } catch (error) {
      fs.rmSync(partial, { recursive: true, force: true });
      // Another build of the same sources renamed its tree into place first.
      if (!fs.existsSync(directory)) throw error;
    }
  }
  const manifest = { format: TREE_FORMAT, root: ROOT, tree: name, sources, hashed, sha256 };
  const manifestPartial = path.join(
    cache,
    `${MANIFEST}.partial-${process.pid}-${randomBytes(4).toString("hex")}`,
  );
  fs.writeFileSync(manifestPartial, JSON.stringify(manifest, null, 2));
  fs.renameSync(manifestPartial, path.join(cache, MANIFEST));
  pruneOlderTrees(cache, name);
  return { directory, sources };
}

/** Removes all but the newest older trees, and what builds that died left (a build takes seconds). */
function pruneOlderTrees(cache: string, current: string): void {
  const entries = fs.readdirSync(cache).flatMap((name) => {
    // Another build may rename or remove an entry between the listing and its stat.
    const stat = fs.statSync(path.join(cache, name), { throwIfNoEntry: false });
    return stat ? [{ name, modified: stat.mtimeMs }] : [];
  });
  const older = entries
    .filter((entry) => /^tree-[0-9a-f]{16}$/.test(entry.name) && entry.name !== current)
    .sort((a, b) => b.modified - a.modified)
    .slice(OLDER_TREES_KEPT);
  const abandoned = entries.filter(
    (entry) => entry.name.includes(".partial-") && entry.modified < Date.now() - ABANDONED_AFTER_MS,
  );
  for (const { name } of [...older, ...abandoned]) {
    fs.rmSync(path.join(cache, name), { recursive: true, force: true });
  }
}
