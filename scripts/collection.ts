/**
 * `npm run collection`: writes the Postman collection and its environments (scripts/collection-build.ts)
 * to docs/collection. Committed; test/collection.test.ts fails when they differ from what this makes.
 */
import fs from "node:fs";
import path from "node:path";
import { buildCollectionFiles, COLLECTION_DIR } from "./collection-build.ts";

const dir = path.resolve(import.meta.dirname, "..", COLLECTION_DIR);
fs.mkdirSync(dir, { recursive: true });
for (const [file, text] of Object.entries(buildCollectionFiles())) {
  fs.writeFileSync(path.join(dir, file), text);
  process.stdout.write(`wrote ${path.join(COLLECTION_DIR, file)}\n`);
}
