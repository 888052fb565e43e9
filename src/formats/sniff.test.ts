import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FIXTURE_KINDS, listToolFixtures, readFixtureFile, readToolFixture } from "./fixtures.ts";
import { type SniffedFormat, sniffFormat } from "./sniff.ts";

/** What the sniffer must call each manifest format (an SBOM's JSON or XML is told by its text). */
const EXPECTED: Record<string, SniffedFormat[]> = {
  sarif: ["sarif"],
  "cppcheck-xml": ["cppcheck-xml"],
  "go-vet-json": ["go-vet-json"],
  "gcc-json": ["gcc-json"],
  lcov: ["lcov"],
  cobertura: ["cobertura"],
  clover: ["clover"],
  jacoco: ["jacoco"],
  go: ["go-cover"],
  "unified-diff": ["unified-diff"],
  cyclonedx: ["cyclonedx-json", "cyclonedx-xml"],
  spdx: ["spdx-json", "spdx-tag-value"],
  "checkstyle-xml": ["checkstyle-xml"],
  "shellcheck-json1": ["shellcheck-json1"],
  "shellcheck-json": ["shellcheck-json"],
  "shellcheck-gcc": ["shellcheck-gcc"],
};

describe("sniffFormat", () => {
  it("names every real tool's report in the fixtures as the format it is", () => {
    const fixtures = FIXTURE_KINDS.flatMap((kind) => listToolFixtures(kind));
    assert.ok(fixtures.length >= 15, "the manifests list the fixtures");
    for (const fixture of fixtures) {
      const [tool, name] = fixture.file.split("/") as [string, string];
      const text = readToolFixture(fixture.kind, tool, name);
      const sniffed = sniffFormat(text);
      assert.ok(EXPECTED[fixture.format]?.includes(sniffed.format), `${fixture.file}: ${sniffed.format}`);
      assert.equal(
        sniffFormat(text.slice(0, 300)).format,
        sniffed.format,
        `${fixture.file}: from its head only`,
      );
    }
  });

  it("tells each family apart, with the article a sentence needs", () => {
    const lcov = sniffFormat(readToolFixture("coverage", "node-test", "lcov.info"));
    assert.deepEqual(lcov, { format: "lcov", family: "coverage", description: "an LCOV coverage report" });
    const sarif = sniffFormat(readToolFixture("sarif", "clang", "main.sarif"));
    assert.deepEqual(sarif, { format: "sarif", family: "findings", description: "a SARIF log" });
    const cppcheck = sniffFormat(readToolFixture("sarif", "cppcheck", "cppcheck.xml"));
    assert.deepEqual(cppcheck, {
      format: "cppcheck-xml",
      family: "findings",
      description: "a cppcheck XML report",
    });
    const vet = sniffFormat(readToolFixture("sarif", "govet", "vet.json"));
    assert.deepEqual(vet, { format: "go-vet-json", family: "findings", description: "go vet's JSON output" });
    assert.equal(sniffFormat("# Release notes\n\nSome text.\n").format, "unknown", "Markdown is not vet's");
    const gcc = sniffFormat(readToolFixture("sarif", "gcc", "gcc.json"));
    assert.deepEqual(gcc, { format: "gcc-json", family: "findings", description: "GCC's JSON diagnostics" });
    assert.equal(sniffFormat("[1, 2]").format, "json", "another list is not GCC's");
    const checkstyle = sniffFormat(readToolFixture("checkstyle", "phpcs", "phpcs.xml"));
    assert.deepEqual(checkstyle, {
      format: "checkstyle-xml",
      family: "findings",
      description: "a checkstyle XML report",
    });
    assert.equal(
      sniffFormat(readToolFixture("checkstyle", "shellcheck", "shellcheck.json1")).family,
      "findings",
    );
    const diff = sniffFormat(readToolFixture("coverage", "git-diff", "changes.diff"));
    assert.equal(diff.family, "changes");
  });

  it("reads a JSON document's top-level members even when the head ends mid-document", () => {
    const eslint = readToolFixture("sarif", "eslint", "eslint.sarif");
    assert.equal(sniffFormat(eslint.slice(0, eslint.indexOf('"runs"') + 8)).format, "sarif");
    assert.equal(sniffFormat('{"files": {"src/a.js": [[1, 3]]}}').format, "line-ranges");
    assert.equal(sniffFormat('{"name": "x", "items": []}').format, "json");
    assert.equal(sniffFormat("[1, 2").format, "json");
  });

  it("answers empty, XML and unknown for what it cannot name", () => {
    assert.equal(sniffFormat(" \n").format, "empty");
    assert.equal(sniffFormat('<?xml version="1.0"?>\n<!-- x -->\n<project/>').format, "xml");
    assert.equal(sniffFormat("hello, world\n").format, "unknown");
  });

  it("names pylint's and Bandit's JSON, which are findings (python-lint fixtures)", () => {
    const pylint = sniffFormat(readFixtureFile("sarif", "python-lint/pylint.json"));
    assert.deepEqual(pylint, {
      format: "pylint-json",
      family: "findings",
      description: "pylint's JSON output",
    });
    const bandit = sniffFormat(readFixtureFile("sarif", "python-lint/bandit.json"));
    assert.deepEqual(bandit, {
      format: "bandit-json",
      family: "findings",
      description: "a Bandit JSON report",
    });
  });
});
