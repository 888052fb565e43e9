import { PackageURL } from "packageurl-js";
import type { SbomEcosystem } from "./types.ts";

/**
 * Package URLs (https://github.com/package-url/purl-spec), parsed with packageurl-js. A package
 * is named as OSV names it in its ecosystem, so advisories and SBOMs meet on one name: npm
 * `@scope/name`, Maven `group:artifact`, Go the module path, Composer `vendor/name`.
 */

const ECOSYSTEM_OF_TYPE: Record<string, SbomEcosystem> = {
  npm: "NPM",
  pypi: "PYPI",
  maven: "MAVEN",
  golang: "GO",
  gem: "RUBYGEMS",
  nuget: "NUGET",
  composer: "PACKAGIST",
  cargo: "CRATES_IO",
};

/** A parsed package URL. */
export interface ParsedPurl {
  /** The purl's type ("npm", "deb"...). */
  type: string;
  /** The registry, when Assay stores packages of this type; null otherwise. */
  ecosystem: SbomEcosystem | null;
  /** The package's name in its ecosystem (see above). */
  name: string;
  version: string | null;
  /** The canonical purl without version, qualifiers or subpath: the package's identity. */
  packagePurl: string;
}

/** Parses `purl`; null when it is not a valid package URL. */
export function parsePurl(purl: string): ParsedPurl | null {
  let parsed: PackageURL;
  try {
    parsed = PackageURL.fromString(purl.trim());
  } catch {
    return null;
  }
  const type = parsed.type;
  const namespace = parsed.namespace ?? null;
  const ecosystem = ECOSYSTEM_OF_TYPE[type] ?? null;
  const name =
    namespace === null || namespace === ""
      ? parsed.name
      : ecosystem === "MAVEN"
        ? `${namespace}:${parsed.name}`
        : `${namespace}/${parsed.name}`;
  const packagePurl = new PackageURL(
    type,
    namespace,
    parsed.name,
    undefined,
    undefined,
    undefined,
  ).toString();
  return { type, ecosystem, name, version: parsed.version ?? null, packagePurl };
}
