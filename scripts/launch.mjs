/**
 * Runs a module of src/ from the compiled tree (src/compiled/tree.mjs) under plain node: what
 * `npm start` (scripts/start.mjs) and `npm run assay` (scripts/assay.mjs) do. When the tree is
 * missing or older than the sources (an edit since `npm ci`), it is built first, in a process of
 * its own (scripts/compile-server.ts), so that nothing the build loads stays in this process's
 * memory; the build speaks on stderr only, so a command's output stays its own. If that fails the
 * module still runs, from its TypeScript under tsx, after saying why.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { compiledModule, ROOT } from "../src/compiled/tree.mjs";

/** Imports `entry` (a path under the repository's root, such as "src/main.ts"), compiled when it can be. */
export async function launch(entry) {
  let compiled = compiledModule(entry);
  if (!compiled) {
    const build = spawnSync(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "scripts", "compile-server.ts")],
      { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] },
    );
    compiled = build.status === 0 ? compiledModule(entry) : undefined;
  }
  if (compiled) {
    await import(pathToFileURL(compiled).href);
    return;
  }
  process.stderr.write(
    "The compiled server could not be built (see above); running the TypeScript under tsx.\n",
  );
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(path.join(ROOT, entry)).href);
}
