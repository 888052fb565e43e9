/**
 * Run by `npm ci` and `npm install` (the package's postinstall): builds the embedded database's
 * template, initdb and every migration once per install, so that a first start copies it instead
 * of running initdb (src/db/embedded-template.ts), and bundles the embedded database's process so
 * that it runs without tsx (src/db/embedded-server-bundle.ts). The template is left alone when it
 * exists. A failure is reported and does not fail the install: the first start then initialises
 * the database itself, and the database's process runs under tsx, as they would without these.
 */
import path from "node:path";
import { prepareEmbeddedTemplate } from "../src/db/database.ts";
import { buildEmbeddedServerBundle } from "../src/db/embedded-server-bundle.ts";

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
  await buildEmbeddedServerBundle();
} catch (error) {
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `Could not bundle the embedded database's process (${reason}); it will run under tsx instead.\n`,
  );
}
