import type { SbomEcosystem } from "./types.ts";

/**
 * The manifest and lockfile a dependency comes from (a repository target). An SBOM that names
 * the file a component was found in (syft's `syft:location:0:path`, cdxgen's `SrcFile`) gives it;
 * otherwise each ecosystem's usual lockfile at the repository root stands in (npm's
 * `package-lock.json`, Go's `go.sum`...). Pure.
 */

/** A target as an SBOM implies it. */
export interface SbomTarget {
  ecosystem: SbomEcosystem;
  /** The PackageManager enum value ("NPM", "YARN", "GO_MOD"...). */
  packageManager: string;
  manifestPath: string | null;
  lockfilePath: string;
}

/** Known files by name: the package manager, and the manifest beside a lockfile. */
const FILES: Record<string, { manager: string; ecosystem: SbomEcosystem; manifest: string | null }> = {
  "package-lock.json": { manager: "NPM", ecosystem: "NPM", manifest: "package.json" },
  "npm-shrinkwrap.json": { manager: "NPM", ecosystem: "NPM", manifest: "package.json" },
  "package.json": { manager: "NPM", ecosystem: "NPM", manifest: "package.json" },
  "yarn.lock": { manager: "YARN", ecosystem: "NPM", manifest: "package.json" },
  "pnpm-lock.yaml": { manager: "PNPM", ecosystem: "NPM", manifest: "package.json" },
  "bun.lock": { manager: "BUN", ecosystem: "NPM", manifest: "package.json" },
  "bun.lockb": { manager: "BUN", ecosystem: "NPM", manifest: "package.json" },
  "requirements.txt": { manager: "REQUIREMENTS_TXT", ecosystem: "PYPI", manifest: null },
  "poetry.lock": { manager: "POETRY", ecosystem: "PYPI", manifest: "pyproject.toml" },
  "Pipfile.lock": { manager: "PIPFILE", ecosystem: "PYPI", manifest: "Pipfile" },
  "pdm.lock": { manager: "PDM", ecosystem: "PYPI", manifest: "pyproject.toml" },
  "uv.lock": { manager: "UV", ecosystem: "PYPI", manifest: "pyproject.toml" },
  "pom.xml": { manager: "MAVEN", ecosystem: "MAVEN", manifest: "pom.xml" },
  "gradle.lockfile": { manager: "GRADLE", ecosystem: "MAVEN", manifest: "build.gradle" },
  "build.gradle": { manager: "GRADLE", ecosystem: "MAVEN", manifest: "build.gradle" },
  "build.gradle.kts": { manager: "GRADLE", ecosystem: "MAVEN", manifest: "build.gradle.kts" },
  "go.sum": { manager: "GO_MOD", ecosystem: "GO", manifest: "go.mod" },
  "go.mod": { manager: "GO_MOD", ecosystem: "GO", manifest: "go.mod" },
  "Gemfile.lock": { manager: "RUBY_GEMS", ecosystem: "RUBYGEMS", manifest: "Gemfile" },
  "packages.lock.json": { manager: "NUGET", ecosystem: "NUGET", manifest: null },
  "composer.lock": { manager: "PACKAGIST", ecosystem: "PACKAGIST", manifest: "composer.json" },
  "Cargo.lock": { manager: "CARGO", ecosystem: "CRATES_IO", manifest: "Cargo.toml" },
};

/**
 * True when the file at `path` (repository-relative, `/`-separated) is a manifest or lockfile
 * target detection knows by its name: the files `assay upload` lists with an SBOM.
 */
export function isDependencyFile(path: string): boolean {
  return Object.hasOwn(FILES, path.slice(path.lastIndexOf("/") + 1));
}

/** Each ecosystem's usual lockfile, for an SBOM that names none. */
const DEFAULT_LOCKFILE: Record<SbomEcosystem, string> = {
  NPM: "package-lock.json",
  PYPI: "requirements.txt",
  MAVEN: "pom.xml",
  GO: "go.sum",
  RUBYGEMS: "Gemfile.lock",
  NUGET: "packages.lock.json",
  PACKAGIST: "composer.lock",
  CRATES_IO: "Cargo.lock",
};

/**
 * The ecosystem's usual target in the directory the SBOM was made in: at the repository root, or
 * in `directory` (repository-relative, src/formats/report-placement.ts).
 */
export function defaultTarget(ecosystem: SbomEcosystem, directory: string | null = null): SbomTarget {
  const lockfile = DEFAULT_LOCKFILE[ecosystem];
  return targetOfPath(directory ? `${directory}/${lockfile}` : lockfile, ecosystem) as SbomTarget;
}

/**
 * The target of a file a component was found in, as a repository-relative path: the placement's
 * root (the upload's workDir, or the checkout's root it named) is taken off an absolute path under
 * it; any other path is relative to the directory the SBOM was made in (`directory`, else the
 * root), a leading "/" dropped. Null when the file is not a known manifest or lockfile of
 * `ecosystem`, or lies above the root.
 */
export function targetOfLocation(
  location: string,
  ecosystem: SbomEcosystem,
  placement: { root: string | null; directory: string | null } = { root: null, directory: null },
): SbomTarget | null {
  let path = location.trim().replace(/\\/g, "/");
  const base = placement.root?.trim().replace(/\\/g, "/").replace(/\/+$/, "");
  if (base && path.startsWith(`${base}/`)) path = path.slice(base.length + 1);
  else if (placement.directory) path = `${placement.directory}/${path.replace(/^\/+/, "")}`;
  path = path.replace(/^\/+/, "").replace(/^(\.\/)+/, "");
  if (path === "" || path.split("/").includes("..")) return null;
  return targetOfPath(path, ecosystem);
}

function targetOfPath(path: string, ecosystem: SbomEcosystem): SbomTarget | null {
  const slash = path.lastIndexOf("/");
  const directory = slash === -1 ? "" : path.slice(0, slash + 1);
  const known = FILES[path.slice(slash + 1)];
  if (!known || known.ecosystem !== ecosystem) return null;
  return {
    ecosystem,
    packageManager: known.manager,
    manifestPath: known.manifest === null ? null : `${directory}${known.manifest}`,
    lockfilePath: path,
  };
}
