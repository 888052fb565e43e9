/**
 * `npm start`: runs src/main.ts from the compiled server (src/compiled/tree.mjs) under plain node.
 * When the tree is missing or older than the sources (an edit since `npm ci`), it builds it first,
 * in a process of its own (scripts/compile-server.ts), so that nothing the build loads stays in the
 * server's memory. If that fails the server still starts, from the TypeScript under tsx, as it
 * did before the tree existed, after saying why.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { compiledModule, ROOT } from "../src/compiled/tree.mjs";

const ENTRY = "src/main.ts";

let main = compiledModule(ENTRY);
if (!main) {
  const build = spawnSync(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "scripts", "compile-server.ts")],
    {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  main = build.status === 0 ? compiledModule(ENTRY) : undefined;
}
if (main) {
  await import(pathToFileURL(main).href);
} else {
  process.stderr.write(
    "The compiled server could not be built (see above); running the TypeScript under tsx.\n",
  );
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(path.join(ROOT, ENTRY)).href);
}
