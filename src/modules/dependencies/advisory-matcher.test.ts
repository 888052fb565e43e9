// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Ecosystem } from "../../db/types.ts";
import type { StoredRange } from "../../db/types-advisories.ts";
import { versionCache } from "../../formats/osv/versions.ts";
import { advisoryLookups, matchVersions } from "./advisory-matcher.ts";
import type { AdvisoryPackageMatch, CheckDependency } from "./advisory-store.ts";

let ids = 0;

function dependency(ecosystem: Ecosystem, name: string, version: string, packageId = `${ecosystem}:${name}`) {
  return {
    package_version_id: `${packageId}@${version}`,
    package_id: packageId,
    ecosystem,
    name,
    version,
  } satisfies CheckDependency;
}

function candidate(
  vulnerabilityId: string,
  ecosystem: Ecosystem,
  name: string,
  events: Record<string, string>[][],
  versions: string[] = [],
): AdvisoryPackageMatch {
  const ranges: StoredRange[] = events.map((e) => ({ type: "ECOSYSTEM", events: e }));
  return { id: String(++ids), vulnerability_id: vulnerabilityId, ecosystem, name, ranges, versions };
}

/** `package_version_id → "vulnerability fix"` lines, sorted, for readable comparisons. */
function summary(matches: ReturnType<typeof matchVersions>): string[] {
  return [...matches]
    .flatMap(([id, list]) => list.map((m) => `${id} ${m.vulnerabilityId} fix=${m.fixVersion}`))
    .sort();
}

test("two versions of one package are decided each against the same advisories", () => {
  const candidates = [
    candidate("V1", "NPM", "left-pad", [[{ introduced: "0" }, { fixed: "1.3.0" }]]),
    candidate("V2", "NPM", "left-pad", [[{ introduced: "1.2.0" }, { fixed: "1.2.5" }]]),
  ];
  const versions = [
    dependency("NPM", "left-pad", "1.1.0"),
    dependency("NPM", "left-pad", "1.2.1"),
    dependency("NPM", "left-pad", "1.3.0"),
  ];
  assert.deepEqual(summary(matchVersions(versions, candidates)), [
    "NPM:left-pad@1.1.0 V1 fix=1.3.0",
    "NPM:left-pad@1.2.1 V1 fix=1.3.0",
    "NPM:left-pad@1.2.1 V2 fix=1.2.5",
  ]);
});

test("one name in two ecosystems: each version read and matched in its own ecosystem only", () => {
  // "1.0rc1" is a PyPI pre-release of 1.0 (affected: the fix is 1.0); npm cannot read it, so the
  // npm advisory's range does not match it (only an explicit `versions` entry could).
  const candidates = [
    candidate("PY", "PYPI", "shared", [[{ introduced: "0" }, { fixed: "1.0" }]]),
    candidate("JS", "NPM", "shared", [[{ introduced: "0" }, { fixed: "1.0.0" }]]),
  ];
  const versions = [
    dependency("PYPI", "shared", "1.0rc1"),
    dependency("NPM", "shared", "1.0rc1"),
    dependency("NPM", "shared", "0.9.0"),
  ];
  assert.deepEqual(summary(matchVersions(versions, candidates)), [
    "NPM:shared@0.9.0 JS fix=1.0.0",
    "PYPI:shared@1.0rc1 PY fix=1.0",
  ]);
  // The same order of inputs the other way round gives the same answer (no cache leaks across).
  assert.deepEqual(
    summary(matchVersions([...versions].reverse(), [...candidates].reverse())),
    summary(matchVersions(versions, candidates)),
  );
});

test("a version cache keys by ecosystem and answers the same parse again", () => {
  const read = versionCache();
  assert.equal(read("NPM", "1.0rc1"), null);
  assert.notEqual(read("PYPI", "1.0rc1"), null);
  assert.equal(read("PYPI", "1.0rc1"), read("PYPI", "1.0rc1"));
  assert.equal(read("PYPI", "1.0rc1")?.ecosystem, "PYPI");
});

test("names meet as the registry compares them; the lookups are one per package", () => {
  const versions = [
    dependency("PYPI", "Jinja2", "3.1.2"),
    dependency("PYPI", "jinja2", "3.1.2", "other-row"),
    dependency("PYPI", "Jinja2", "3.1.4"),
  ];
  assert.deepEqual(advisoryLookups(versions), [{ ecosystem: "PYPI", name: "jinja2" }]);
  const candidates = [candidate("J", "PYPI", "jinja2", [[{ introduced: "0" }, { fixed: "3.1.3" }]])];
  assert.deepEqual(summary(matchVersions(versions, candidates)), [
    "PYPI:Jinja2@3.1.2 J fix=3.1.3",
    "other-row@3.1.2 J fix=3.1.3",
  ]);
});

test("an advisory naming a package twice is one match; its fix must leave every range", () => {
  const candidates = [
    candidate("V", "NPM", "twice", [[{ introduced: "0" }, { fixed: "1.0.1" }]]),
    candidate("V", "NPM", "twice", [[{ introduced: "1.0.1" }, { fixed: "1.0.2" }]]),
  ];
  const matches = matchVersions([dependency("NPM", "twice", "1.0.0")], candidates);
  assert.deepEqual(summary(matches), ["NPM:twice@1.0.0 V fix=1.0.2"]);
});

test("a version listed twice is decided once; explicit versions match even unreadable ones", () => {
  const candidates = [candidate("X", "PACKAGIST", "v/p", [], ["dev-main"])];
  const version = dependency("PACKAGIST", "v/p", "dev-main");
  const matches = matchVersions([version, version], candidates);
  assert.deepEqual(summary(matches), ["PACKAGIST:v/p@dev-main X fix=null"]);
  assert.equal(matches.get(version.package_version_id)?.length, 1);
  assert.equal(matchVersions([dependency("PACKAGIST", "v/p", "1.0.0")], candidates).size, 0);
});
