import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

/**
 * Node's arguments for what `npm start` runs, read from package.json's start script, so that the
 * tests that start the server as a process start it as a user does (from the compiled server,
 * scripts/start.mjs), without npm in between. Run them with the repository's root as the directory.
 */
export function npmStartArgs(): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  const [command, ...args] = manifest.scripts.start.split(" ");
  if (command !== "node")
    throw new Error(`npm start runs ${command}, not node: update ${import.meta.filename}`);
  return args;
}
