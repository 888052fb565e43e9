/**
 * Version ordering per package ecosystem, as each registry defines it. OSV ranges are only
 * meaningful in the ecosystem's own order ("1.10" is after "1.9" everywhere, "1.0rc1" is before
 * "1.0" in PyPI, "1.0-SNAPSHOT" before "1.0" in Maven…), so every comparison goes through
 * {@link compareVersions}. A version an ecosystem cannot read parses to null and matches no range
 * (an explicit `versions` list still matches it by string equality).
 */

/** Assay's ecosystem names (the API's `Ecosystem`). */
export type OsvEcosystem = "NPM" | "PYPI" | "MAVEN" | "GO" | "RUBYGEMS" | "NUGET" | "PACKAGIST" | "CRATES_IO";

/** OSV's ecosystem names (the `affected[].package.ecosystem` values) → Assay's. */
export const OSV_ECOSYSTEMS: Readonly<Record<string, OsvEcosystem>> = {
  npm: "NPM",
  PyPI: "PYPI",
  Maven: "MAVEN",
  Go: "GO",
  RubyGems: "RUBYGEMS",
  NuGet: "NUGET",
  Packagist: "PACKAGIST",
  "crates.io": "CRATES_IO",
};

/** The ecosystem of an OSV `package.ecosystem` value (`Debian:12` style suffixes ignored), or null. */
export function ecosystemOf(osvName: string): OsvEcosystem | null {
  const base = osvName.split(":")[0] ?? "";
  return OSV_ECOSYSTEMS[base] ?? null;
}

/**
 * A package name as the registry compares names: PyPI by PEP 503 (case-insensitive, runs of `-_.`
 * equal), NuGet, Packagist and crates.io case-insensitively (crates.io also equates `-` and `_`),
 * Maven `group:artifact` as written, npm, Go and RubyGems exactly.
 */
export function normalisePackageName(ecosystem: OsvEcosystem, name: string): string {
  const trimmed = name.trim();
  switch (ecosystem) {
    case "PYPI":
      return trimmed.toLowerCase().replace(/[-_.]+/g, "-");
    case "NUGET":
    case "PACKAGIST":
      return trimmed.toLowerCase();
    case "CRATES_IO":
      return trimmed.toLowerCase().replace(/_/g, "-");
    default:
      return trimmed;
  }
}

type Parsed = unknown;

interface Scheme {
  parse(version: string): Parsed | null;
  compare(a: Parsed, b: Parsed): number;
}

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** Digits without leading zeros ("007" → "7", "0" stays); most have none, so no regex for them. */
function withoutLeadingZeros(digits: string): string {
  return digits.length > 1 && digits.charCodeAt(0) === 48 ? digits.replace(/^0+(?=\d)/, "") : digits;
}

function compareBig(a: string, b: string): number {
  const x = withoutLeadingZeros(a);
  const y = withoutLeadingZeros(b);
  if (x.length !== y.length) return sign(x.length - y.length);
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Semantic Versioning 2.0.0 (npm, crates.io, Go) and NuGet's SemVer 2 with a fourth number.

interface SemverLike {
  numbers: string[];
  pre: string[];
}

/** SemVer §11: identifiers compared numerically when both are numeric, numeric before text. */
function comparePrerelease(a: string[], b: string[], caseInsensitive: boolean): number {
  if (a.length === 0 || b.length === 0) return sign(b.length - a.length);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) {
      const c = compareBig(x, y);
      if (c !== 0) return c;
    } else if (xn !== yn) {
      return xn ? -1 : 1;
    } else {
      const c = caseInsensitive ? compareText(x.toLowerCase(), y.toLowerCase()) : compareText(x, y);
      if (c !== 0) return c;
    }
  }
  return 0;
}

function compareSemverLike(a: SemverLike, b: SemverLike, caseInsensitive: boolean): number {
  for (let i = 0; i < Math.max(a.numbers.length, b.numbers.length); i++) {
    const c = compareBig(a.numbers[i] ?? "0", b.numbers[i] ?? "0");
    if (c !== 0) return c;
  }
  return comparePrerelease(a.pre, b.pre, caseInsensitive);
}

const SEMVER = /^[=v]?\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

const semver: Scheme = {
  parse(version) {
    const m = SEMVER.exec(version.trim());
    if (!m) return null;
    return {
      numbers: [m[1]!, m[2] ?? "0", m[3] ?? "0"],
      pre: m[4] ? m[4].split(".") : [],
    } satisfies SemverLike;
  },
  compare: (a, b) => compareSemverLike(a as SemverLike, b as SemverLike, false),
};

/** Go modules: semver with a `v`; pseudo-versions are pre-releases already; `+incompatible` is build metadata. */
const go: Scheme = {
  parse: (version) => semver.parse(version.trim().replace(/^v/, "")),
  compare: semver.compare,
};

const NUGET = /^[vV]?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

const nuget: Scheme = {
  parse(version) {
    const m = NUGET.exec(version.trim());
    if (!m) return null;
    return {
      numbers: [m[1]!, m[2] ?? "0", m[3] ?? "0", m[4] ?? "0"],
      pre: m[5] ? m[5].split(".") : [],
    } satisfies SemverLike;
  },
  compare: (a, b) => compareSemverLike(a as SemverLike, b as SemverLike, true),
};

// ---------------------------------------------------------------------------------------------
// PyPI: PEP 440.

interface Pep440 {
  epoch: number;
  release: number[];
  /** [rank, number]: dev-only release [-2], alpha -1…, none [+∞]. */
  pre: [number, number];
  post: number;
  dev: number;
  local: (number | string)[] | null;
}

const PEP440 =
  /^v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|alpha|b|beta|c|rc|pre|preview)[-_.]?(\d+)?)?(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d+)?)?(?:[-_.]?(dev)[-_.]?(\d+)?)?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$/;

const PRE_RANK: Record<string, number> = { a: 0, alpha: 0, b: 1, beta: 1, c: 2, rc: 2, pre: 2, preview: 2 };

const pypi: Scheme = {
  parse(version) {
    const m = PEP440.exec(version.trim().toLowerCase());
    if (!m) return null;
    const release = m[2]!.split(".").map(Number);
    while (release.length > 1 && release[release.length - 1] === 0) release.pop();
    const hasPost = m[5] !== undefined || m[6] !== undefined;
    const hasDev = m[8] !== undefined;
    let pre: [number, number];
    if (m[3] !== undefined) pre = [PRE_RANK[m[3]]!, Number(m[4] ?? 0)];
    else if (hasDev && !hasPost) pre = [-1, 0];
    else pre = [Number.POSITIVE_INFINITY, 0];
    return {
      epoch: Number(m[1] ?? 0),
      release,
      pre,
      post: hasPost ? Number(m[5] ?? m[7] ?? 0) : Number.NEGATIVE_INFINITY,
      dev: hasDev ? Number(m[9] ?? 0) : Number.POSITIVE_INFINITY,
      local: m[10] ? m[10].split(/[-_.]/).map((part) => (/^\d+$/.test(part) ? Number(part) : part)) : null,
    } satisfies Pep440;
  },
  compare(x, y) {
    const a = x as Pep440;
    const b = y as Pep440;
    if (a.epoch !== b.epoch) return sign(a.epoch - b.epoch);
    for (let i = 0; i < Math.max(a.release.length, b.release.length); i++) {
      const c = (a.release[i] ?? 0) - (b.release[i] ?? 0);
      if (c !== 0) return sign(c);
    }
    for (const [p, q] of [
      [a.pre[0], b.pre[0]],
      [a.pre[1], b.pre[1]],
      [a.post, b.post],
      [a.dev, b.dev],
    ] as const) {
      if (p !== q) return p < q ? -1 : 1;
    }
    if (a.local === null || b.local === null) return a.local === b.local ? 0 : a.local === null ? -1 : 1;
    for (let i = 0; i < Math.max(a.local.length, b.local.length); i++) {
      const p = a.local[i];
      const q = b.local[i];
      if (p === undefined) return -1;
      if (q === undefined) return 1;
      if (typeof p !== typeof q) return typeof p === "number" ? 1 : -1;
      if (p !== q) return p < q ? -1 : 1;
    }
    return 0;
  },
};

// ---------------------------------------------------------------------------------------------
// Maven: org.apache.maven.artifact.versioning.ComparableVersion's rules.

type MavenItem =
  | { kind: "int"; value: string }
  | { kind: "str"; value: string }
  | { kind: "list"; items: MavenItem[] };

const MAVEN_QUALIFIERS = ["alpha", "beta", "milestone", "rc", "snapshot", "", "sp"];
const MAVEN_ALIASES: Record<string, string> = { ga: "", final: "", release: "", cr: "rc" };
const MAVEN_RELEASE = String(MAVEN_QUALIFIERS.indexOf(""));

function mavenString(value: string, followedByDigit: boolean): MavenItem {
  let v = value;
  if (followedByDigit && v.length === 1) v = { a: "alpha", b: "beta", m: "milestone" }[v] ?? v;
  v = MAVEN_ALIASES[v] ?? v;
  return { kind: "str", value: v };
}

function qualifierKey(value: string): string {
  const i = MAVEN_QUALIFIERS.indexOf(value);
  return i === -1 ? `${MAVEN_QUALIFIERS.length}-${value}` : String(i);
}

function isNullItem(item: MavenItem): boolean {
  if (item.kind === "int") return /^0+$/.test(item.value);
  if (item.kind === "str") return item.value === "";
  return item.items.length === 0;
}

function normaliseList(list: MavenItem[]): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list[i]!;
    if (isNullItem(item)) list.splice(i, 1);
    else if (item.kind !== "list") break;
  }
}

function parseMaven(version: string): MavenItem {
  const text = version.trim().toLowerCase();
  const root: MavenItem[] = [];
  let list = root;
  const stack: MavenItem[][] = [root];
  let isDigit = false;
  let start = 0;
  const item = (digit: boolean, s: string): MavenItem =>
    digit ? { kind: "int", value: s } : mavenString(s, false);
  const push = () => {
    const sub: MavenItem[] = [];
    list.push({ kind: "list", items: sub });
    list = sub;
    stack.push(sub);
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ".") {
      list.push(i === start ? { kind: "int", value: "0" } : item(isDigit, text.slice(start, i)));
      start = i + 1;
    } else if (c === "-") {
      list.push(i === start ? { kind: "int", value: "0" } : item(isDigit, text.slice(start, i)));
      start = i + 1;
      push();
    } else if (c >= "0" && c <= "9") {
      if (!isDigit && i > start) {
        list.push(mavenString(text.slice(start, i), true));
        start = i;
        push();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.push(item(true, text.slice(start, i)));
        start = i;
        push();
      }
      isDigit = false;
    }
  }
  if (text.length > start) list.push(item(isDigit, text.slice(start)));
  while (stack.length > 0) normaliseList(stack.pop()!);
  return { kind: "list", items: root };
}

function compareMaven(a: MavenItem, b: MavenItem | undefined): number {
  if (a.kind === "int") {
    if (b === undefined) return /^0+$/.test(a.value) ? 0 : 1;
    if (b.kind === "int") return compareBig(a.value, b.value);
    return 1;
  }
  if (a.kind === "str") {
    if (b === undefined) return compareText(qualifierKey(a.value), MAVEN_RELEASE);
    if (b.kind === "str") return compareText(qualifierKey(a.value), qualifierKey(b.value));
    return -1;
  }
  if (b === undefined) return a.items.length === 0 ? 0 : compareMaven(a.items[0]!, undefined);
  if (b.kind === "int") return -1;
  if (b.kind === "str") return 1;
  for (let i = 0; i < Math.max(a.items.length, b.items.length); i++) {
    const l = a.items[i];
    const r = b.items[i];
    const c = l === undefined ? (r === undefined ? 0 : -compareMaven(r, undefined)) : compareMaven(l, r);
    if (c !== 0) return c;
  }
  return 0;
}

const maven: Scheme = {
  parse: (version) => (version.trim() === "" ? null : parseMaven(version)),
  compare: (a, b) => compareMaven(a as MavenItem, b as MavenItem),
};

// ---------------------------------------------------------------------------------------------
// RubyGems: Gem::Version.

type GemSegment = number | string;

function canonicalGem(segments: GemSegment[]): GemSegment[] {
  const firstString = segments.findIndex((s) => typeof s === "string");
  const numeric = firstString === -1 ? segments : segments.slice(0, firstString);
  const rest = firstString === -1 ? [] : segments.slice(firstString);
  const trim = (list: GemSegment[]) => {
    const out = [...list];
    while (out.length > 0 && out[out.length - 1] === 0) out.pop();
    return out;
  };
  return [...trim(numeric), ...trim(rest)];
}

const rubygems: Scheme = {
  parse(version) {
    const text = version.trim();
    if (!/^[0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/.test(text)) return null;
    const normal = text.replace(/-/g, ".pre.");
    const segments = (normal.match(/[0-9]+|[a-z]+/gi) ?? []).map((s) => (/^\d/.test(s) ? Number(s) : s));
    return canonicalGem(segments);
  },
  compare(x, y) {
    const a = x as GemSegment[];
    const b = y as GemSegment[];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const l = a[i] ?? 0;
      const r = b[i] ?? 0;
      if (l === r) continue;
      if (typeof l === "string" && typeof r === "number") return -1;
      if (typeof l === "number" && typeof r === "string") return 1;
      return l < r ? -1 : 1;
    }
    return 0;
  },
};

// ---------------------------------------------------------------------------------------------
// Packagist: Composer's VersionParser::normalize, then PHP's version_compare.

const COMPOSER =
  /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:[._-]?(stable|beta|b|rc|alpha|a|patch|pl|p|dev)((?:[.-]?\d+)*))?(?:[.-]?dev)?(?:\+[0-9A-Za-z.-]+)?$/i;

const PHP_SPECIAL: Record<string, number> = {
  dev: 0,
  alpha: 1,
  a: 1,
  beta: 2,
  b: 2,
  rc: 3,
  "#": 4,
  pl: 5,
  p: 5,
};

function phpCanonical(version: string): string[] {
  const spaced = version
    .replace(/[-_+]/g, ".")
    .replace(/(\d)(?=[^\d.])/g, "$1.")
    .replace(/([^\d.])(?=\d)/g, "$1.");
  return spaced.split(".").filter((part) => part !== "");
}

function phpSpecial(part: string): number {
  return PHP_SPECIAL[part.toLowerCase()] ?? -1;
}

function phpComparePart(a: string, b: string): number {
  const an = /^\d+$/.test(a);
  const bn = /^\d+$/.test(b);
  if (an && bn) return compareBig(a, b);
  if (!an && !bn) return sign(phpSpecial(a) - phpSpecial(b));
  return an ? sign(PHP_SPECIAL["#"]! - phpSpecial(b)) : sign(phpSpecial(a) - PHP_SPECIAL["#"]!);
}

const packagist: Scheme = {
  parse(version) {
    const m = COMPOSER.exec(version.trim());
    if (!m) return null;
    const numbers = [m[1]!, m[2] ?? "0", m[3] ?? "0", m[4] ?? "0"].join(".");
    let stability = m[5]?.toLowerCase();
    if (stability === "stable") stability = undefined;
    else if (stability === "patch" || stability === "pl") stability = "p";
    else if (stability === "b") stability = "beta";
    else if (stability === "a") stability = "alpha";
    const suffix = stability ? `-${stability}${(m[6] ?? "").replace(/^[.-]/, "")}` : "";
    const dev = /[.-]?dev$/i.test(version.trim()) && stability !== "dev" ? "-dev" : "";
    return phpCanonical(`${numbers}${suffix}${dev}`);
  },
  compare(x, y) {
    const a = x as string[];
    const b = y as string[];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const l = a[i];
      const r = b[i];
      if (l === undefined) return /^\d+$/.test(r!) ? -1 : phpComparePart("#", r!);
      if (r === undefined) return /^\d+$/.test(l) ? 1 : phpComparePart(l, "#");
      const c = phpComparePart(l, r);
      if (c !== 0) return c;
    }
    return 0;
  },
};

const SCHEMES: Record<OsvEcosystem, Scheme> = {
  NPM: semver,
  CRATES_IO: semver,
  GO: go,
  NUGET: nuget,
  PYPI: pypi,
  MAVEN: maven,
  RUBYGEMS: rubygems,
  PACKAGIST: packagist,
};

/** A version read in `ecosystem`'s scheme, reusable for many comparisons; null when unreadable. */
export interface ParsedVersion {
  readonly ecosystem: OsvEcosystem;
  readonly text: string;
  readonly value: Parsed;
}

/** Reads `version` in `ecosystem`'s scheme; null when the ecosystem cannot read it. */
export function parseVersion(ecosystem: OsvEcosystem, version: string): ParsedVersion | null {
  const value = SCHEMES[ecosystem].parse(version);
  return value === null ? null : { ecosystem, text: version, value };
}

/** Reads a version of an ecosystem: {@link parseVersion} or a cache in front of it. */
export type VersionReader = (ecosystem: OsvEcosystem, version: string) => ParsedVersion | null;

/**
 * A {@link parseVersion} that reads each (ecosystem, version) once and answers the same parsed
 * value after: matching reads the same few versions ("1.0.0", "0") in thousands of ranges. Keyed
 * by ecosystem too, since one text reads differently per ecosystem ("1.0rc1" is a PyPI version,
 * not an npm one). Parsed versions are never changed, so sharing them is safe; the cache lives as
 * long as the reader (one matching), so it needs no bound beyond the versions it was given.
 */
export function versionCache(): VersionReader {
  const cache = new Map<string, ParsedVersion | null>();
  return (ecosystem, version) => {
    const key = `${ecosystem}\u0000${version}`;
    let parsed = cache.get(key);
    if (parsed === undefined) {
      parsed = parseVersion(ecosystem, version);
      cache.set(key, parsed);
    }
    return parsed;
  };
}

/** Orders two parsed versions of one ecosystem: negative, zero or positive. */
export function compareParsed(a: ParsedVersion, b: ParsedVersion): number {
  return SCHEMES[a.ecosystem].compare(a.value, b.value);
}

/** Orders two version strings of `ecosystem`; throws when either is unreadable. */
export function compareVersions(ecosystem: OsvEcosystem, a: string, b: string): number {
  const x = parseVersion(ecosystem, a);
  const y = parseVersion(ecosystem, b);
  if (!x) throw new Error(`"${a}" is not a ${ecosystem} version`);
  if (!y) throw new Error(`"${b}" is not a ${ecosystem} version`);
  return compareParsed(x, y);
}
