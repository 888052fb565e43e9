/**
 * `npm run cli:pack`: builds the standalone package of `assay upload` (src/cli/cli-package.ts)
 * and writes its tarball to dist/, for installing with `npm install` or `npx` anywhere.
 */
import path from "node:path";
import { buildCliPackage } from "../src/cli/cli-package.ts";
import { formatBytes } from "../src/cli/upload-progress.ts";

const destination = path.resolve(import.meta.dirname, "..", "dist");
const built = await buildCliPackage(destination);
process.stdout.write(
  `${path.join(destination, built.fileName)} (${formatBytes(built.bytes.length)}, sha256 ${built.sha256})\n`,
);
