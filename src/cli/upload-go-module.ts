import path from "node:path";
import type { ReadText } from "./ci-environment.ts";

/**
 * The workDir a Go cover profile is sent with when `--work-dir` is not given: the module path of
 * the `go.mod` at the root (`module example.com/warehouse`), when the profile (as far as `head`
 * holds it) names a file under it. `go test -coverprofile` names each file by its import path, so
 * a module whose path is not the repository's page (a vanity path, another host's, a fork's) would
 * keep that prefix and match none of the run's changed files; the server removes the workDir, as it removes the
 * repository's conventional module path (docs/ingestion-coverage.md "Paths"). Null when there is
 * no such `go.mod` or the profile names files elsewhere (a module in a subdirectory, whose paths
 * would lose the directory).
 */
export function goModuleWorkDir(head: string, root: string, readText: ReadText): string | null {
  const lines = head.split(/\r?\n/);
  if (!/^mode: \w+$/.test(lines[0]?.trim() ?? "")) return null;
  const goMod = readText(path.join(root, "go.mod"));
  if (goMod === null) return null;
  const modulePath = /^\s*module\s+"?([^\s"]+)"?\s*(?:\/\/.*)?$/m.exec(goMod)?.[1];
  if (modulePath === undefined) return null;
  // With -coverpkg=all the profile also names other modules' files, which the server leaves out.
  return lines.slice(1).some((line) => line.startsWith(`${modulePath}/`)) ? modulePath : null;
}
