// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { test } from "node:test";
import { compareVersions, normalisePackageName, type OsvEcosystem, parseVersion } from "./versions.ts";

/**
 * Each table lists versions in ascending order as the ecosystem's own documentation orders them;
 * every pair is checked both ways. `equal` lists pairs the ecosystem treats as the same version.
 */
interface Table {
  source: string;
  ascending: string[];
  equal?: [string, string][];
  unreadable?: string[];
}

const TABLES: Record<OsvEcosystem, Table> = {
  NPM: {
    source: "semver.org 2.0.0 §11 (the example ordering) and §10 (build metadata is ignored)",
    ascending: [
      "0.9.9",
      "1.0.0-alpha",
      "1.0.0-alpha.1",
      "1.0.0-alpha.beta",
      "1.0.0-beta",
      "1.0.0-beta.2",
      "1.0.0-beta.11",
      "1.0.0-rc.1",
      "1.0.0",
      "2.0.0",
      "2.1.0",
      "2.1.1",
      "4.17.12",
      "10.0.0",
    ],
    equal: [
      ["1.0.0+20130313144700", "1.0.0"],
      ["1.0.0-beta+exp.sha.5114f85", "1.0.0-beta"],
      ["v1.2.3", "1.2.3"],
    ],
    unreadable: ["latest", "1.2.3.4.5", ""],
  },
  CRATES_IO: {
    source:
      "The Cargo Book, SemVer compatibility (semver.org 2.0.0 precedence): pre-releases before the release",
    ascending: [
      "0.2.22",
      "0.2.23-alpha.1",
      "0.2.23-beta",
      "0.2.23",
      "0.3.0",
      "1.0.0-rc.9",
      "1.0.0",
      "1.10.0",
    ],
    equal: [["1.0.0+build.5", "1.0.0"]],
  },
  GO: {
    source:
      "Go Modules Reference, Versions and Pseudo-versions: a pseudo-version is a pre-release of the next version; +incompatible is build metadata",
    ascending: [
      "v0.0.0-20191109021931-daa7c04131f5",
      "v0.1.0",
      "v1.2.3",
      "v1.2.4-0.20191109021931-daa7c04131f5",
      "v1.2.4-pre",
      "v1.2.4",
      "v2.0.0-beta.1",
      "v2.0.0+incompatible",
      "v2.1.0",
    ],
    equal: [
      ["v2.0.0+incompatible", "v2.0.0"],
      ["1.2.3", "v1.2.3"],
    ],
  },
  NUGET: {
    source:
      "NuGet docs, Package versioning: Version precedence (four parts; pre-release labels case-insensitive; metadata ignored)",
    ascending: [
      "1.0.0-alpha",
      "1.0.0-alpha.1",
      "1.0.0-beta",
      "1.0.0-rc.1",
      "1.0.0",
      "1.0.0.1",
      "1.0.1",
      "1.0.10",
      "13.0.1",
    ],
    equal: [
      ["1.0", "1.0.0.0"],
      ["1.0.0-Beta", "1.0.0-beta"],
      ["1.0.0+githash", "1.0.0"],
    ],
  },
  PYPI: {
    source: "PEP 440, Summary of permitted suffixes and relative ordering (the example list), and epochs",
    ascending: [
      "1.dev0",
      "1.0.dev456",
      "1.0a1",
      "1.0a2.dev456",
      "1.0a12.dev456",
      "1.0a12",
      "1.0b1.dev456",
      "1.0b2",
      "1.0b2.post345.dev456",
      "1.0b2.post345",
      "1.0rc1.dev456",
      "1.0rc1",
      "1.0",
      "1.0+abc.5",
      "1.0+abc.7",
      "1.0+5",
      "1.0.post456.dev34",
      "1.0.post456",
      "1.0.15",
      "1.1.dev1",
      "2.0",
      "1!0.5",
    ],
    equal: [
      ["1.0", "1.0.0"],
      ["1.0-alpha.1", "1.0a1"],
      ["1.0c1", "1.0rc1"],
      ["1.0-1", "1.0.post1"],
      ["v2.0", "2.0"],
    ],
    unreadable: ["dev-master", "1.0 beta"],
  },
  MAVEN: {
    source:
      "Maven ComparableVersion javadoc (qualifier order alpha < beta < milestone < rc = cr < snapshot < release < sp; a/b/m shorthands) and its test suite's qualifier list",
    ascending: [
      "1-alpha2snapshot",
      "1-alpha2",
      "1-alpha-123",
      "1-beta-2",
      "1-beta123",
      "1-m2",
      "1-m11",
      "1-rc",
      "1-cr2",
      "1-rc123",
      "1-SNAPSHOT",
      "1",
      "1-sp",
      "1-sp2",
      "1-sp123",
      "1-abc",
      "1-def",
      "1-pom-1",
      "1-1-snapshot",
      "1-1",
      "1-2",
      "1-123",
      "2.0",
      "2.0.2",
      "2.0.123",
      "2.1.0",
      "2.1.0.1",
      "2.2",
      "2.15.0-rc1",
      "2.15.0",
      "2.17.1",
      "2.123",
    ],
    equal: [
      ["1", "1.0.0"],
      ["1-ga", "1"],
      ["1-final", "1"],
      ["1-a1", "1-alpha-1"],
      ["1-cr1", "1-rc1"],
      ["1.0.RELEASE", "1"],
    ],
  },
  RUBYGEMS: {
    source:
      "RubyGems Gem::Version docs: letters make a pre-release that sorts before its release; segments compare numerically; '-' reads as .pre.",
    ascending: [
      "0.9",
      "1.0.a.1",
      "1.0.a.2",
      "1.0.a9",
      "1.0.a10",
      "1.0.b1",
      "1.0.rc1",
      "1.0",
      "1.0.1",
      "1.2.10",
      "1.10",
      "7.0.8.1",
    ],
    equal: [
      ["1.0", "1.0.0"],
      ["1.0-beta", "1.0.pre.beta"],
      ["1.0.a", "1.0.a.0"],
    ],
    unreadable: ["junk", "1..2"],
  },
  PACKAGIST: {
    source:
      "Composer docs (Versions and constraints: stabilities dev < alpha < beta < RC < stable; patch after) via VersionParser::normalize and PHP version_compare",
    ascending: [
      "1.0.0-dev",
      "1.0.0-alpha1",
      "1.0.0-alpha2",
      "1.0.0-beta2",
      "1.0.0-beta10",
      "1.0.0-RC1",
      "1.0.0",
      "1.0.0-p1",
      "1.0.1",
      "1.0.10",
      "2.0.0.1",
      "5.4.47",
    ],
    equal: [
      ["v1.0", "1.0.0.0"],
      ["1.0.0-b2", "1.0.0-beta2"],
      ["1.0.0-patch1", "1.0.0-pl1"],
    ],
    unreadable: ["dev-master"],
  },
};

for (const [ecosystem, table] of Object.entries(TABLES) as [OsvEcosystem, Table][]) {
  test(`${ecosystem} versions order as ${table.source}`, () => {
    const list = table.ascending;
    for (let i = 0; i < list.length; i++) {
      for (let j = 0; j < list.length; j++) {
        const expected = Math.sign(i - j);
        assert.equal(
          Math.sign(compareVersions(ecosystem, list[i]!, list[j]!)),
          expected,
          `${list[i]} vs ${list[j]}: expected ${expected}`,
        );
      }
    }
    for (const [a, b] of table.equal ?? []) {
      assert.equal(compareVersions(ecosystem, a, b), 0, `${a} = ${b}`);
      assert.equal(compareVersions(ecosystem, b, a), 0, `${b} = ${a}`);
    }
    for (const bad of table.unreadable ?? []) {
      assert.equal(parseVersion(ecosystem, bad), null, `"${bad}" is unreadable`);
    }
  });
}

test("package names compare as their registries compare them", () => {
  assert.equal(normalisePackageName("PYPI", "Django_REST.framework"), "django-rest-framework");
  assert.equal(normalisePackageName("NUGET", "Newtonsoft.Json"), "newtonsoft.json");
  assert.equal(normalisePackageName("CRATES_IO", "Serde_JSON"), "serde-json");
  assert.equal(normalisePackageName("PACKAGIST", "Symfony/HTTP-Kernel"), "symfony/http-kernel");
  assert.equal(
    normalisePackageName("MAVEN", "org.apache.logging.log4j:log4j-core"),
    "org.apache.logging.log4j:log4j-core",
  );
  assert.equal(normalisePackageName("NPM", "@Scope/Name"), "@Scope/Name");
});

test("an unreadable version makes compareVersions throw, naming it", () => {
  assert.throws(() => compareVersions("NPM", "1.0.0", "latest"), /"latest" is not a NPM version/);
});
