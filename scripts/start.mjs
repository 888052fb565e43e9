/**
 * `npm start`: runs src/main.ts from the compiled server under plain node (scripts/launch.mjs
 * builds the tree first when the sources changed, and falls back to tsx if it cannot).
 */
import { launch } from "./launch.mjs";

await launch("src/main.ts");
