// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { COVERAGE_FORMATS, type CoverageFormat, parseCoverage } from "./coverage/index.ts";
import { readFindings } from "./findings.ts";
import {
  FIXTURE_KINDS,
  FIXTURE_WORK_ROOT,
  type FixtureKind,
  fixtureDir,
  listToolFixtures,
  listToolRuns,
  readRunSummary,
  readToolFixture,
  readToolSummary,
  type ToolFixture,
} from "./fixtures.ts";
import type { SarifEvent } from "./sarif/types.ts";

function text(kind: FixtureKind, relative: string): string {
  return fs.readFileSync(path.join(fixtureDir(kind), relative), "utf8");
}

/** The fixture's file name inside its tool folder, as the loader takes it. */
function nameOf(fixture: ToolFixture): string {
  return fixture.file.slice(fixture.tool.length + 1);
}

async function sarifEvents(document: string, workDir: string | null): Promise<SarifEvent[]> {
  const events: SarifEvent[] = [];
  for await (const event of readFindings([document], { workDir })) events.push(event);
  return events;
}

function isCoverageFormat(format: string): format is CoverageFormat {
  return (COVERAGE_FORMATS as readonly string[]).includes(format);
}

describe("real-tool fixtures", () => {
  for (const kind of FIXTURE_KINDS) {
    test(`the ${kind} manifest lists files that exist, each in its tool's folder`, () => {
      const fixtures = listToolFixtures(kind);
      assert.ok(fixtures.length > 0, `${kind} lists no fixture`);
      for (const fixture of fixtures) {
        for (const relative of [fixture.file, fixture.summary, fixture.toolOutput]) {
          assert.ok(
            fs.existsSync(path.join(fixtureDir(kind), relative)),
            `${kind}/fixtures/${relative} is missing`,
          );
        }
        assert.ok(fixture.file.startsWith(`${fixture.tool}/`), fixture.file);
        assert.ok(text(kind, fixture.toolOutput).trim().length > 0, `${fixture.toolOutput} is empty`);
      }
    });

    test(`each ${kind} summary names the tool, its version, the command and the fixed workDir`, () => {
      for (const fixture of listToolFixtures(kind)) {
        const summary = readToolSummary(kind, fixture.tool, nameOf(fixture));
        assert.match(summary.tool, /\S/, fixture.summary);
        assert.match(summary.version, /\d+\.\d+/, `${fixture.summary} has no version number`);
        assert.match(summary.command, /\S/, fixture.summary);
        assert.equal(summary.workDir, fixture.workDir, fixture.summary);
        assert.ok(fixture.workDir.startsWith(`${FIXTURE_WORK_ROOT}/`), fixture.workDir);
        assert.ok(Object.keys(summary.figures).length > 0, `${fixture.summary} has no figures`);
      }
    });
  }

  test("each run of reports uploaded together names manifest files, its tool's summary and output", () => {
    for (const kind of FIXTURE_KINDS) {
      const files = new Set(listToolFixtures(kind).map((fixture) => fixture.file));
      for (const run of listToolRuns(kind)) {
        assert.ok(run.files.length > 1, `${run.name} uploads more than one report`);
        for (const file of run.files) assert.ok(files.has(file), `${run.name}: ${file} is in the manifest`);
        assert.ok(text(kind, run.toolOutput).trim().length > 0, `${run.toolOutput} is empty`);
        const summary = readRunSummary(run);
        assert.match(summary.version, /\d+\.\d+/, `${run.summary} has no version number`);
        assert.ok(Object.keys(summary.figures).length > 0, `${run.summary} has no figures`);
      }
    }
  });

  test("every findings fixture is read whole by our reader, every located result inside the tool's workDir", async () => {
    for (const fixture of listToolFixtures("sarif")) {
      const document = readToolFixture("sarif", fixture.tool, nameOf(fixture));
      const events = await sarifEvents(document, fixture.workDir);
      const runs = events.filter((event) => event.type === "run");
      const results = events.flatMap((event) => (event.type === "result" ? [event.result] : []));
      assert.equal(runs.length, 1, fixture.file);
      assert.ok(results.length > 0, `${fixture.file} has no results`);
      // Only what the tool itself printed without a file (cppcheck's "nofile") has no location.
      const { figures } = readToolSummary("sarif", fixture.tool, nameOf(fixture));
      const located = results.filter((result) => result.locations.length > 0);
      assert.equal(results.length - located.length, Number(figures.withoutFile ?? 0), fixture.file);
      for (const result of located) {
        const location = result.locations[0]!;
        assert.equal(location.outsideRepository, false, `${fixture.file}: ${location.path} is outside`);
      }
    }
  });

  test("SARIF fixtures with absolute paths need the workDir; relative ones do not", async () => {
    for (const fixture of listToolFixtures("sarif")) {
      const events = await sarifEvents(readToolFixture("sarif", fixture.tool, nameOf(fixture)), null);
      const outside = events.flatMap((event) =>
        event.type === "result" ? event.result.locations.map((location) => location.outsideRepository) : [],
      );
      const expected = fixture.paths !== "relative";
      assert.ok(
        outside.every((value) => value === expected),
        fixture.file,
      );
    }
  });

  test("every coverage fixture parses as its format with files in it", () => {
    for (const fixture of listToolFixtures("coverage")) {
      if (!isCoverageFormat(fixture.format)) {
        assert.equal(fixture.format, "unified-diff", fixture.file);
        continue;
      }
      const report = parseCoverage(readToolFixture("coverage", fixture.tool, nameOf(fixture)), {
        workDir: fixture.workDir,
        stripPrefixes: fixture.stripPrefixes ?? [],
      });
      assert.equal(report.format, fixture.format, fixture.file);
      assert.ok(report.files.length > 0, `${fixture.file} has no files`);
      assert.ok(report.totals.lines.total > 0, `${fixture.file} has no coverable lines`);
    }
  });

  test("the SBOM fixtures are npm's CycloneDX and SPDX documents", () => {
    const [cyclonedx, spdx] = ["cyclonedx.json", "spdx.json"].map(
      (name) => JSON.parse(readToolFixture("sbom", "npm", name)) as Record<string, unknown>,
    );
    assert.equal(cyclonedx?.bomFormat, "CycloneDX");
    assert.match(String(spdx?.spdxVersion), /^SPDX-2\.\d$/);
  });
});
