/**
 * The benchmark's servers run as `npm start` runs Assay: plain node over the compiled server
 * (src/compiled/, docs/architecture.md "The compiled server"), not under tsx. tsx compiles each
 * module when it is loaded and keeps function names with a helper call at every function it
 * creates, closures made per request included, which costs a server about a tenth of its CPU a
 * request (docs/benchmarks.md "The benchmark's servers compiled"); production never pays it.
 *
 * Each child script (bench/server.ts, bench/apollo-server.ts, bench/bare-server.ts) is bundled
 * with esbuild into one ES module whose imports of Assay's sources point at the compiled tree's
 * modules, so Apollo Server runs the very modules Assay runs (one `graphql`, one schema's code),
 * and whose packages stay imports of node_modules.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildCompiledTree } from "../src/compiled/build.ts";
import { compiledModule, ROOT, TREE_CACHE } from "../src/compiled/tree.mjs";

/** Where the bundled children are written: beside the compiled tree, so packages resolve. */
const CHILDREN_DIR = path.join(path.dirname(TREE_CACHE), "bench");

/** Paths of the bundled children, by the bench script they were made from. */
export type CompiledChildren = ReadonlyMap<string, string>;

/**
 * Builds the compiled tree when the sources changed (as `npm start` does), then bundles each of
 * `scripts` (paths relative to bench/) against it. Returns the path of each bundle.
 */
export async function compileBenchChildren(scripts: readonly string[]): Promise<CompiledChildren> {
  if (!compiledModule("src/app.ts")) await buildCompiledTree();
  const esbuild = await import("esbuild");
  fs.mkdirSync(CHILDREN_DIR, { recursive: true });
  const children = new Map<string, string>();
  for (const script of scripts) {
    const entry = path.join(ROOT, "bench", script);
    const result = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      write: false,
      logLevel: "silent",
      define: {
        "import.meta.url": JSON.stringify(pathToFileURL(entry).href),
        "import.meta.dirname": JSON.stringify(path.dirname(entry)),
        "import.meta.filename": JSON.stringify(entry),
      },
      plugins: [
        {
          name: "compiled-server",
          setup(build) {
            build.onResolve({ filter: /.*/ }, (args) => {
              if (args.kind === "entry-point") return undefined;
              if (!args.path.startsWith(".")) return { path: args.path, external: true };
              const source = path.relative(ROOT, path.resolve(args.resolveDir, args.path));
              if (!source.startsWith(`src${path.sep}`)) return undefined;
              const compiled = compiledModule(source.split(path.sep).join("/"));
              if (!compiled) throw new Error(`the compiled server has no module for ${source}`);
              return { path: pathToFileURL(compiled).href, external: true };
            });
          },
        },
      ],
    });
    const code = result.outputFiles[0]?.contents;
    if (!code) throw new Error(`esbuild wrote nothing for bench/${script}`);
    const digest = createHash("sha256").update(code).digest("hex").slice(0, 12);
    const file = path.join(CHILDREN_DIR, `${path.basename(script, ".ts")}-${digest}.mjs`);
    if (!fs.existsSync(file)) fs.writeFileSync(file, code);
    children.set(script, file);
  }
  return children;
}
