// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { compileAffected, smallestFix, versionAffected } from "./affected.ts";
import { cvssScore } from "./cvss.ts";
import { type AffectedPackage, OsvRecordError, readOsvRecord } from "./record.ts";
import { parseVersion } from "./versions.ts";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures");
const record = (id: string) =>
  readOsvRecord(JSON.parse(readFileSync(path.join(FIXTURES, `${id}.json`), "utf8")));

test("a real GitHub advisory reads into ids, aliases, dates, ratings and affected packages", () => {
  const lodash = record("GHSA-jf85-cpcp-j695");
  assert.equal(lodash.id, "GHSA-jf85-cpcp-j695");
  assert.deepEqual(lodash.aliases, ["CVE-2019-10744"]);
  assert.equal(lodash.modified.toISOString(), "2023-09-05T22:24:55.000Z");
  assert.equal(lodash.published.toISOString(), "2019-07-10T19:45:23.000Z");
  assert.equal(lodash.withdrawn, null);
  assert.equal(lodash.severity, "CRITICAL");
  assert.deepEqual(lodash.cvssV3, {
    vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:H/A:H",
    score: 9.1,
    severity: "CRITICAL",
  });
  assert.deepEqual(
    lodash.affected.map((a) => [a.ecosystem, a.name]),
    [
      ["NPM", "lodash"],
      ["NPM", "lodash-es"],
      ["NPM", "lodash-amd"],
      ["NPM", "lodash.defaultsdeep"],
    ],
  );
  assert.equal(lodash.references.length, 9);
  const jinja = record("GHSA-h5c8-rqwp-cp95");
  assert.equal(jinja.severity, "MEDIUM", "GitHub's MODERATE is the API's MEDIUM");
  assert.equal(jinja.cvssV3?.score, 5.4);
  const newtonsoft = record("GHSA-5crp-9r3c-p9vr");
  assert.deepEqual(newtonsoft.aliases, []);
  assert.equal(newtonsoft.cvssV3, null);
  assert.equal(newtonsoft.affected[0]?.ecosystem, "NUGET");
});

test("ranges: introduced/fixed, last_affected, several ranges, explicit versions, unreadable versions", () => {
  const pkg = (ranges: AffectedPackage["ranges"], versions: string[] = []): AffectedPackage => ({
    ecosystem: "PYPI",
    name: "x",
    normalisedName: "x",
    purl: null,
    ranges,
    versions,
  });
  const fixed = pkg([{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "3.1.3" }] }]);
  assert.equal(versionAffected(fixed, "3.1.2"), true);
  assert.equal(versionAffected(fixed, "3.1.3rc1"), true, "a pre-release of the fix is before it");
  assert.equal(versionAffected(fixed, "3.1.3"), false);
  assert.equal(versionAffected(fixed, "3.1.3.post1"), false);
  const lastAffected = pkg([
    { type: "ECOSYSTEM", events: [{ introduced: "1.0" }, { last_affected: "1.4" }] },
  ]);
  assert.equal(versionAffected(lastAffected, "0.9"), false);
  assert.equal(versionAffected(lastAffected, "1.4"), true);
  assert.equal(versionAffected(lastAffected, "1.4.1"), false);
  // Two ranges in one events list, written out of order: sorted before the walk.
  const twice = pkg([
    {
      type: "ECOSYSTEM",
      events: [{ introduced: "2.0" }, { fixed: "2.2" }, { introduced: "1.0" }, { fixed: "1.5" }],
    },
  ]);
  assert.deepEqual(
    ["0.5", "1.0", "1.5", "1.9", "2.1", "2.2"].map((v) => versionAffected(twice, v)),
    [false, true, false, false, true, false],
  );
  const listed = pkg([], ["1.0-custom", "2.0"]);
  assert.equal(versionAffected(listed, "1.0-custom"), true, "an explicit version matches even unreadable");
  assert.equal(versionAffected(listed, "2.0.0"), false, "explicit versions match by string");
  assert.equal(versionAffected(fixed, "not a version"), false);
});

test("the smallest fixing upgrade is the lowest fix above the version that no range affects", () => {
  const affected = compileAffected({
    ecosystem: "NPM",
    name: "x",
    normalisedName: "x",
    purl: null,
    ranges: [
      { type: "SEMVER", events: [{ introduced: "0" }, { fixed: "1.2.3" }] },
      { type: "SEMVER", events: [{ introduced: "2.0.0" }, { fixed: "2.0.5" }] },
      { type: "SEMVER", events: [{ introduced: "1.5.0" }, { fixed: "2.0.0-beta.1" }] },
    ],
    versions: [],
  });
  const fix = (v: string) => smallestFix([affected], parseVersion("NPM", v)!);
  assert.equal(fix("1.0.0"), "1.2.3");
  assert.equal(fix("1.6.0"), "2.0.0-beta.1");
  assert.equal(fix("2.0.1"), "2.0.5");
  assert.equal(fix("3.0.0"), null);
});

test("CVSS vectors of every version score as FIRST's calculators do; bad ones give no rating", () => {
  assert.deepEqual(cvssScore("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"), {
    vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
    score: 9.8,
    severity: "CRITICAL",
  });
  // FIRST's v3.1 calculator: 3.8, LOW.
  assert.deepEqual(cvssScore("CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:L/I:L/A:N")?.severity, "LOW");
  assert.equal(cvssScore("CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:L/I:L/A:N")?.score, 3.8);
  assert.deepEqual(cvssScore("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"), {
    vector: "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N",
    score: 9.3,
    severity: "CRITICAL",
  });
  assert.deepEqual(cvssScore("AV:N/AC:L/Au:N/C:P/I:P/A:P"), {
    vector: "AV:N/AC:L/Au:N/C:P/I:P/A:P",
    score: 7.5,
    severity: "HIGH",
  });
  assert.equal(cvssScore("CVSS:3.1/AV:X"), null);
});

test("a record without id or modified is refused naming the problem", () => {
  assert.throws(
    () => readOsvRecord({}),
    (e: unknown) => e instanceof OsvRecordError && /needs an "id"/.test(e.message),
  );
  assert.throws(
    () => readOsvRecord({ id: "GHSA-x", modified: "yesterday" }),
    /GHSA-x: "modified" is not an RFC 3339 time/,
  );
  const other = readOsvRecord({
    id: "DSA-1",
    modified: "2024-01-01T00:00:00Z",
    affected: [
      { package: { ecosystem: "Debian:12", name: "openssl" } },
      { package: { ecosystem: "Go", name: "x" } },
    ],
  });
  assert.equal(other.skippedAffected, 1);
  assert.deepEqual(
    other.affected.map((a) => a.ecosystem),
    ["GO"],
  );
});
