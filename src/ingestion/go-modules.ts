import type { ArtifactKind, GoModuleRow } from "../db/types-ingestion.ts";
import { UploadError } from "./errors.ts";

/**
 * The Go modules a coverage upload names (`goModules`; docs/ingestion-coverage.md "Go modules in
 * subdirectories"): each module path with the directory its go.mod is in, relative to the
 * repository root. A Go profile names files by import path, so these say where each lies.
 */

/** At most this many modules in one upload: far more than any repository's go.mod files. */
export const MAX_GO_MODULES = 1000;

/** At most this many characters in a module path or a directory. */
const MAX_LENGTH = 1024;

/**
 * The modules of `goModules` as kept: trimmed, a directory's `./` prefix and trailing `/` dropped
 * and "." written "", in the order given; null when the upload names none. Throws INVALID_INPUT
 * naming the field for an upload other than a Go coverage report, and for an entry that is not a
 * module path or not a repository-relative directory, or a module path named twice.
 */
export function readGoModules(
  modules: readonly GoModuleRow[] | null | undefined,
  upload: { kind: ArtifactKind; languageKey: string | null },
): GoModuleRow[] | null {
  if (modules === null || modules === undefined || modules.length === 0) return null;
  if (upload.kind !== "COVERAGE" || upload.languageKey !== "go") {
    throw invalid(
      "goModules places the files of a Go cover profile: send it only with analyzer test-coverage and key go",
    );
  }
  if (modules.length > MAX_GO_MODULES) {
    throw invalid(`goModules lists ${modules.length} modules; at most ${MAX_GO_MODULES} are taken`);
  }
  const kept = new Map<string, GoModuleRow>();
  for (const [index, raw] of modules.entries()) {
    const modulePath = raw.modulePath.trim();
    const pathProblem = modulePathProblem(modulePath);
    if (pathProblem !== null) {
      throw invalid(
        `goModules[${index}].modulePath ${JSON.stringify(raw.modulePath.slice(0, 200))} ${pathProblem}`,
      );
    }
    const directory = raw.directory
      .trim()
      .replace(/^(\.\/)+/, "")
      .replace(/\/+$/, "")
      .replace(/^\.$/, "");
    const directoryProblemText = directoryProblem(directory);
    if (directoryProblemText !== null) {
      throw invalid(
        `goModules[${index}].directory ${JSON.stringify(raw.directory.slice(0, 200))} ${directoryProblemText}`,
      );
    }
    const seen = kept.get(modulePath);
    if (seen !== undefined) {
      throw invalid(
        `goModules names the module path ${modulePath} twice (directories "${seen.directory}" and "${directory}"): a module path says where its files are only when one directory has it`,
      );
    }
    kept.set(modulePath, { modulePath, directory });
  }
  return [...kept.values()];
}

/** Why `path` is not a module path as a go.mod's `module` line writes it, or null. */
function modulePathProblem(path: string): string | null {
  if (path === "") return "is empty: send the path of the go.mod's module line (example.com/shop)";
  if (path.length > MAX_LENGTH) return `is longer than ${MAX_LENGTH} characters`;
  if (/[\s"'`\\]/.test(path) || hasControlCharacter(path)) {
    return "holds a space, a quote, a backslash or a control character, which no module path does";
  }
  if (path.split("/").some((segment) => segment === "" || segment === "." || segment === "..")) {
    return 'has an empty, "." or ".." element: send the path of the go.mod\'s module line (example.com/shop)';
  }
  return null;
}

/** Why `directory` (normalised) is not a repository-relative directory, or null. */
function directoryProblem(directory: string): string | null {
  if (directory === "") return null; // the repository root
  if (directory.length > MAX_LENGTH) return `is longer than ${MAX_LENGTH} characters`;
  if (directory.startsWith("/") || /^[A-Za-z]:/.test(directory)) {
    return 'is absolute: send the directory of the module\'s go.mod relative to the repository root ("backend", or "" for the root)';
  }
  if (directory.includes("\\")) return 'has a "\\": separate directories with "/"';
  if (directory.split("/").some((segment) => segment === "" || segment === "." || segment === "..")) {
    return 'has an empty, "." or ".." segment: send the directory relative to the repository root ("backend", or "" for the root)';
  }
  if (hasControlCharacter(directory)) return "holds a control character";
  return null;
}

function hasControlCharacter(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  return /[\u0000-\u001f\u007f]/.test(text);
}

function invalid(message: string): UploadError {
  return new UploadError("INVALID_INPUT", message);
}
