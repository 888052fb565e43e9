import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** Node's arguments for package.json's script `name`, which must run node. */
function nodeScriptArgs(name: "start" | "assay"): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const [command, ...args] = (manifest.scripts[name] ?? "").split(" ");
  if (command !== "node")
    throw new Error(`npm run ${name} runs ${command}, not node: update ${import.meta.filename}`);
  return args;
}

/**
 * Node's arguments for what `npm start` runs, read from package.json's start script, so that the
 * tests that start the server as a process start it as a user does (from the compiled server,
 * scripts/start.mjs), without npm in between. Run them with the repository's root as the directory.
 */
export function npmStartArgs(): string[] {
  return nodeScriptArgs("start");
}

/**
 * Node's arguments for `npm run assay -- <args>` (scripts/assay.mjs: the admin CLI from the compiled
 * server), read from package.json like {@link npmStartArgs}. Run them from the repository's root.
 */
export function assayArgs(...args: string[]): string[] {
  return [...nodeScriptArgs("assay"), ...args];
}
