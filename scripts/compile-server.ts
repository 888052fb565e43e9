/**
 * Builds the compiled server (src/compiled/build.ts) and says where. Run by scripts/start.mjs when
 * the tree is older than the sources; `npm ci` builds it from scripts/embedded-template.ts.
 */
import path from "node:path";
import { buildCompiledTree } from "../src/compiled/build.ts";
import { ROOT } from "../src/compiled/tree.mjs";

const started = performance.now();
const { directory, sources } = await buildCompiledTree();
const seconds = ((performance.now() - started) / 1000).toFixed(1);
process.stderr.write(
  `Compiled the server (${sources.length} modules) in ${seconds} s: ${path.relative(ROOT, directory)}\n`,
);
