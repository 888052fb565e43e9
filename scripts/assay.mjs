/**
 * `npm run assay -- <command>`: the admin CLI (src/cli/assay.ts) from the compiled server under
 * plain node, as `npm start` runs the server (scripts/launch.mjs).
 */
import { launch } from "./launch.mjs";

await launch("src/cli/assay.ts");
