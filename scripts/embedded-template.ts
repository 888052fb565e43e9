/**
 * Run by `npm ci` and `npm install` (the package's postinstall): builds the embedded database's
 * template, initdb and every migration once per install, so that a first start copies it instead
 * of running initdb (src/db/embedded-template.ts), and compiles the server so that it and the
 * embedded database's process run without tsx (src/compiled/build.ts), and builds the addon with
 * which both give freed memory back (src/native/malloc-trim.ts; `CC` names the C compiler, `cc`
 * by default). The template is left alone when it exists. A failure is reported and does not fail
 * the install: the first start then initialises the database itself, compiles the server or runs
 * it under tsx, and the processes keep what they freed.
 */
import fs from "node:fs";
import path from "node:path";
import { buildCompiledTree } from "../src/compiled/build.ts";
import { prepareEmbeddedTemplate } from "../src/db/database.ts";
import { CACHE_DIRECTORY } from "../src/db/embedded-template.ts";
import { buildMallocTrim } from "../src/native/malloc-trim.ts";

const root = path.resolve(import.meta.dirname, "..");
const started = performance.now();
try {
  const { template, built } = await prepareEmbeddedTemplate();
  if (built) {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(
      `Prepared the embedded database template in ${seconds} s: ${path.relative(root, template)}\n`,
    );
  }
} catch (error) {
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `Could not prepare the embedded database template (${reason}); the embedded database's first start will initialise it instead.\n`,
  );
}

try {
  await buildCompiledTree();
  // What earlier versions built instead (a bundle of the database's process), left by npm install.
  for (const file of fs.readdirSync(CACHE_DIRECTORY)) {
    if (file === "embedded-server.json" || /^embedded-server-[0-9a-f]+\.mjs$/.test(file)) {
      fs.rmSync(path.join(CACHE_DIRECTORY, file), { force: true });
    }
  }
} catch (error) {
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `Could not compile the server (${reason}); npm start will try again, or run it under tsx.\n`,
  );
}

try {
  const { file, built } = buildMallocTrim({ cc: process.env.CC || "cc" });
  if (built) process.stdout.write(`Built the malloc_trim addon: ${path.relative(root, file)}\n`);
} catch (error) {
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `Could not build the malloc_trim addon (${reason}); the server and its embedded database will hold 30-40 MB more at idle.\n`,
  );
}
