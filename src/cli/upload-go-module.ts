import path from "node:path";
import type { Git, ReadText } from "./ci-environment.ts";

/**
 * The Go modules `assay upload` sends with a Go cover profile (`goModules`;
 * docs/ingestion-coverage.md "Go modules in subdirectories"). `go test -coverprofile` names each
 * file by its import path, which says nothing of where its module lies in the repository: the
 * profile's `example.com/shop/internal/cart/cart.go` is `backend/internal/cart/cart.go` when
 * `backend/go.mod` declares `module example.com/shop`. Every module of the checkout is sent, since
 * one profile may name several (go.work, `-coverpkg`), and the server places each file in the
 * directory of the longest module path it lies under.
 */

/** A module of the checkout: its path and its directory relative to the repository root ("" for the root). */
export interface GoModuleFound {
  modulePath: string;
  directory: string;
}

/** What the checkout says of its Go modules. */
export interface GoModulesOfCheckout {
  modules: GoModuleFound[];
  /** Module paths declared in several directories, left out: none of them says where its files are. */
  ambiguous: string[];
}

/** The server takes at most this many modules (MAX_GO_MODULES). */
const MAX_GO_MODULES = 1000;

const MODULE_LINE = /^\s*module\s+"?([^\s"]+)"?\s*(?:\/\/.*)?$/m;

/**
 * The modules of the checkout at `root` when `head` starts a Go cover profile: every `go.mod` git
 * tracks (outside directories the go command ignores: `testdata`, `vendor`, and names starting
 * with `.` or `_`), or, outside a git work tree, the root's and those go.work uses. Null when the
 * text is no profile or no module is found.
 */
export function goModulesOf(
  head: string,
  around: { root: string; git: Git; readText: ReadText },
): GoModulesOfCheckout | null {
  if (!/^mode: \w+$/.test(head.split(/\r?\n/, 1)[0]?.trim() ?? "")) return null;
  const byPath = new Map<string, string[]>();
  for (const directory of moduleDirectories(around)) {
    const goMod = around.readText(path.join(around.root, directory, "go.mod"));
    const modulePath = goMod === null ? undefined : MODULE_LINE.exec(goMod)?.[1];
    if (modulePath === undefined) continue;
    byPath.set(modulePath, [...(byPath.get(modulePath) ?? []), directory]);
  }
  const modules: GoModuleFound[] = [];
  const ambiguous: string[] = [];
  for (const [modulePath, directories] of byPath) {
    if (directories.length === 1) modules.push({ modulePath, directory: directories[0]! });
    else ambiguous.push(modulePath);
  }
  if (modules.length === 0 || modules.length > MAX_GO_MODULES) return null;
  modules.sort((a, b) => a.directory.localeCompare(b.directory));
  return { modules, ambiguous: ambiguous.sort() };
}

/** The repository-relative directories that may hold a module's go.mod. */
function moduleDirectories(around: { root: string; git: Git; readText: ReadText }): string[] {
  const listed = around.git([
    "-C",
    around.root,
    "ls-files",
    "-z",
    "--full-name",
    "--",
    ":(top)go.mod",
    ":(top)*/go.mod",
  ]);
  if (listed !== null) {
    return listed
      .split("\0")
      .filter((file) => file !== "")
      .map((file) => path.posix.dirname(file))
      .map((directory) => (directory === "." ? "" : directory))
      .filter((directory) => !directory.split("/").some(ignoredByGo));
  }
  return ["", ...workspaceDirectories(around.readText(path.join(around.root, "go.work")))];
}

/** Whether the go command skips a directory of this name when it matches packages. */
function ignoredByGo(segment: string): boolean {
  return segment === "testdata" || segment === "vendor" || segment.startsWith(".") || segment.startsWith("_");
}

/** The directories a go.work's `use` directives name, relative to the root (the go.work's own directory). */
function workspaceDirectories(goWork: string | null): string[] {
  if (goWork === null) return [];
  const directories: string[] = [];
  const uses = /^\s*use\s*(?:\(([^)]*)\)|(\S+))/gm;
  for (const match of goWork.matchAll(uses)) {
    const names = match[1] === undefined ? [match[2]!] : match[1].split(/\r?\n/);
    for (const name of names) {
      const cleaned = name
        .replace(/\/\/.*$/, "")
        .trim()
        .replace(/^"|"$/g, "");
      if (cleaned === "") continue;
      const directory = path.posix.normalize(cleaned);
      if (directory === "." || directory.startsWith("../") || path.posix.isAbsolute(directory)) continue;
      directories.push(directory.replace(/\/+$/, ""));
    }
  }
  return directories;
}

/** What `assay upload` says it sends: the modules (the first five), and those left out as ambiguous. */
export function goModulesNote(found: GoModulesOfCheckout): string {
  const shown = found.modules
    .slice(0, 5)
    .map((m) => `${m.modulePath} in ${m.directory === "" ? "." : m.directory}`);
  const more = found.modules.length > shown.length ? `, and ${found.modules.length - shown.length} more` : "";
  const ambiguous =
    found.ambiguous.length === 0
      ? ""
      : `; left out, declared in several directories: ${found.ambiguous.join(", ")}`;
  return `Go modules sent to place the profile's files: ${shown.join(", ")}${more}${ambiguous}`;
}
