/**
 * Run by `npm ci` and `npm install` (the package's postinstall): builds the embedded database's
 * template, initdb and every migration once per install, so that a first start copies it instead
 * of running initdb (src/db/embedded-template.ts). Does nothing when the template exists. A
 * failure is reported and does not fail the install: the first start then initialises the
 * database itself, as it would without the template.
 */
import path from "node:path";
import { prepareEmbeddedTemplate } from "../src/db/database.ts";

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
