/**
 * Tests only: the real tools' reports under src/formats/<kind>/fixtures/, made by
 * scripts/make-fixtures.sh (test/fixtures/tools/README.md), with each kind's manifest and each
 * run's summary as the tool itself gave it.
 */
import fs from "node:fs";
import path from "node:path";
import type { CoverageReport, FileCoverage, GoModule } from "./coverage/types.ts";

/**
 * The directory every fixture tool ran under (`<root>/<project>`), so absolute paths in the reports
 * are the same wherever the script ran. scripts/make-fixtures.sh sets the same value.
 */
export const FIXTURE_WORK_ROOT = "/tmp/assay-fixtures";

/** The folders of src/formats/ that hold real-tool fixtures. */
export type FixtureKind = "sarif" | "coverage" | "sbom" | "checkstyle";

/** The kinds, in the order the script makes them. */
export const FIXTURE_KINDS: readonly FixtureKind[] = ["sarif", "coverage", "sbom", "checkstyle"];

/**
 * How a report names files: `file://` URIs or plain absolute paths (under the run's `workDir`),
 * paths relative to the directory the tool ran in, relative to the report's own `<sources>`, to
 * the Java package, Go import paths, or none (an SBOM).
 */
export type FixturePaths =
  | "absolute-file-uri"
  | "absolute-path"
  | "relative"
  | "relative-to-sources"
  | "package-relative"
  | "import-path"
  | "none";

/** One manifest entry: a report a tool wrote, and where its summary and raw output are. */
export interface ToolFixture {
  kind: FixtureKind;
  /** The fixture's folder, named after the tool (`clang`, `c8`, `coverage-py`, `gcc-lcov` ...). */
  tool: string;
  /** Path of the report inside its kind's fixtures folder, e.g. `clang/inventory.sarif`. */
  file: string;
  /** `sarif`, a coverage format (`lcov`, `cobertura`, `clover`, `jacoco`, `go`), `unified-diff`, `cyclonedx`, `spdx`. */
  format: string;
  /** The directory the tool ran in: the upload's `workDir` for this report. */
  workDir: string;
  paths: FixturePaths;
  /** The run's summary (`*.summary.json`), relative to the kind's fixtures folder. */
  summary: string;
  /** The tool's raw printed output (`*.tool-output.txt`), relative to the kind's fixtures folder. */
  toolOutput: string;
  /** Prefixes a reader must remove besides `workDir` (the Go module path). */
  stripPrefixes?: string[];
  /** The Go modules an upload sends with a profile of modules in subdirectories (`go list -m`). */
  goModules?: GoModule[];
  /**
   * A build's report made of one output per compiler invocation (GCC's JSON): each invocation's
   * output alone, in order, relative to the kind's fixtures folder; `file` is them one after another.
   */
  byFile?: string[];
}

/**
 * Reports of a kind's manifest that go into one run together (a coverage report and the changed
 * lines it is read with, or the reports of two test runs), and the summary of the tool that read
 * them together (diff-cover, `lcov -a`). Listed in the kind's `runs.json`.
 */
export interface ToolRun {
  kind: FixtureKind;
  name: string;
  /** The manifest's files, in upload order. */
  files: string[];
  summary: string;
  toolOutput: string;
}

/** A run's summary as the script extracted it from the tool's own output. */
export interface ToolSummary {
  tool: string;
  version: string;
  command: string;
  workDir: string;
  /** The tool's figures; their shape depends on the tool (see test/fixtures/tools/README.md). */
  figures: Record<string, unknown>;
}

const FORMATS_DIR = import.meta.dirname;
const LEGACY_COVERAGE_DIR = path.resolve(FORMATS_DIR, "../../test/fixtures/coverage");

/** The fixtures folder of a kind. */
export function fixtureDir(kind: FixtureKind): string {
  return path.join(FORMATS_DIR, kind, "fixtures");
}

/** Every fixture a kind's manifest lists. */
export function listToolFixtures(kind: FixtureKind): ToolFixture[] {
  const text = fs.readFileSync(path.join(fixtureDir(kind), "manifest.json"), "utf8");
  const entries = JSON.parse(text) as Omit<ToolFixture, "kind">[];
  return entries.map((entry) => ({ ...entry, kind }));
}

/** Every run of reports uploaded together that a kind's `runs.json` lists (none when it has none). */
export function listToolRuns(kind: FixtureKind): ToolRun[] {
  const file = path.join(fixtureDir(kind), "runs.json");
  if (!fs.existsSync(file)) return [];
  const entries = JSON.parse(fs.readFileSync(file, "utf8")) as Omit<ToolRun, "kind">[];
  return entries.map((entry) => ({ ...entry, kind }));
}

/** The summary of a run of reports uploaded together. */
export function readRunSummary(run: ToolRun): ToolSummary {
  return JSON.parse(fs.readFileSync(path.join(fixtureDir(run.kind), run.summary), "utf8")) as ToolSummary;
}

/** The manifest entry of `<tool>/<name>`, failing the test when the manifest has none. */
export function toolFixture(kind: FixtureKind, tool: string, name: string): ToolFixture {
  const file = `${tool}/${name}`;
  const fixture = listToolFixtures(kind).find((entry) => entry.file === file);
  if (fixture === undefined) throw new Error(`no ${kind} fixture ${file} in the manifest`);
  return fixture;
}

/** The text of a real tool's report, e.g. `readToolFixture("sarif", "clang", "inventory.sarif")`. */
export function readToolFixture(kind: FixtureKind, tool: string, name: string): string {
  return fs.readFileSync(path.join(fixtureDir(kind), toolFixture(kind, tool, name).file), "utf8");
}

/** The text of a file of a kind's fixtures folder a manifest entry names (`byFile`'s reports). */
export function readFixtureFile(kind: FixtureKind, file: string): string {
  return fs.readFileSync(path.join(fixtureDir(kind), file), "utf8");
}

/** The summary of the run that made `<tool>/<name>`. */
export function readToolSummary(kind: FixtureKind, tool: string, name: string): ToolSummary {
  const summary = toolFixture(kind, tool, name).summary;
  return JSON.parse(fs.readFileSync(path.join(fixtureDir(kind), summary), "utf8")) as ToolSummary;
}

/** The older coverage fixtures under test/fixtures/coverage/ (origin unknown; kept for the parser tests). */
export function readFixture(name: string): string {
  return fs.readFileSync(path.join(LEGACY_COVERAGE_DIR, name), "utf8");
}

/** The file of a report with this path, failing the test when there is none. */
export function fileOf(report: CoverageReport, filePath: string): FileCoverage {
  const file = report.files.find((f) => f.path === filePath);
  if (file === undefined) {
    throw new Error(`no file ${filePath} in report; files: ${report.files.map((f) => f.path).join(", ")}`);
  }
  return file;
}

/** Line number → hits, for compact assertions. */
export function hitsOf(file: FileCoverage): Record<number, number | null> {
  return Object.fromEntries(file.lines.map((l) => [l.line, l.hits]));
}
