// test-runner: execution-mode independent (SARIF processing is SQL inside a transaction, no GraphQL)
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type Kysely, sql } from "kysely";
import type { Database } from "../src/db/types.ts";
import { readToolFixture, toolFixture } from "../src/formats/fixtures.ts";
import { SarifFormatError } from "../src/formats/sarif/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { fingerprintOf, messageContext } from "../src/ingestion/fingerprint.ts";
import { readCheckAsStaged } from "../src/ingestion/sarif/already-reported.ts";
import { findingsWorthReading } from "../src/ingestion/sarif/finding-pages.ts";
import { readBase, recomputeFindingStates } from "../src/ingestion/sarif/finding-states.ts";
import { type SarifSummary, validateSarif } from "../src/ingestion/sarif-validate.ts";
import { insertArtifactAnalyzedPaths } from "../src/modules/artifacts/artifact-analyzed-path-store.ts";
import { findFindingsVersionOf } from "../src/modules/checks/check-store.ts";
import { anAccount, aRepository } from "./helpers/builders.ts";
import { anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import { type OpenTestDatabase, openTestDatabase } from "./helpers/database.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { aResult, chunks, type StoredOccurrence, sarifLog, sarifScenes } from "./helpers/sarif-scene.ts";

/**
 * `processSarif` on a real database: SARIF that ESLint and Biome write during the test, and
 * hand-made logs for the edge cases (docs/ingestion.md "Fingerprints", "States against the base").
 */

let database: OpenTestDatabase;
let db: Kysely<Database>;

before(async () => {
  database = await openTestDatabase();
  db = database.handle.db;
});

after(() => database?.close());

// ---------------------------------------------------------------------------------------------
// Fixtures

const { aScene, aNextScene, anArtifact, processText, stageText, ingest, occurrencesOf, summaryOf } =
  sarifScenes(() => db);

/** How many rows the artifact has written so far (a step hook's cue). */
async function rowsWrittenBy(artifactId: string): Promise<number> {
  return (await db.selectFrom("occurrences").select("id").where("artifact_id", "=", artifactId).execute())
    .length;
}

const execFileAsync = promisify(execFile);
const require = createRequire(import.meta.url);

// ---------------------------------------------------------------------------------------------
// Real analyzers

/** The part of ESLint 8's API the test drives (ESLint ships no types; it comes with the formatter). */
interface ESLintApi {
  lintFiles(patterns: string[]): Promise<unknown[]>;
  getRulesMetaForResults(results: unknown[]): unknown;
}
type ESLintClass = new (options: Record<string, unknown>) => ESLintApi;
type SarifFormatter = (results: unknown[], data: { cwd: string; rulesMeta: unknown }) => string;

/** A temp checkout with `files`, its real path (ESLint and Biome report real paths). */
async function aCheckout(prefix: string, files: Record<string, string>): Promise<string> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  for (const [name, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await fs.writeFile(path.join(dir, name), text);
  }
  return dir;
}

async function eslintSarif(dir: string): Promise<string> {
  const { ESLint } = require("eslint") as { ESLint: ESLintClass };
  const formatSarif = require("@microsoft/eslint-formatter-sarif") as SarifFormatter;
  const eslint = new ESLint({
    cwd: dir,
    useEslintrc: false,
    overrideConfig: {
      parserOptions: { ecmaVersion: 2022 },
      rules: { "no-unused-vars": "error", "no-undef": "error", eqeqeq: "warn", "no-debugger": "warn" },
    },
  });
  const results = await eslint.lintFiles(["src"]);
  return formatSarif(results, { cwd: dir, rulesMeta: eslint.getRulesMetaForResults(results) });
}

/**
 * Biome's SARIF for `dir`, with the checkout's own configuration (`--config-path`): the temp
 * directory is outside the project, so the project's biome.json does not apply.
 */
async function biomeSarif(dir: string): Promise<string> {
  await fs.writeFile(
    path.join(dir, "biome.json"),
    JSON.stringify({
      vcs: { enabled: false },
      files: { includes: ["src/**"] },
      linter: { enabled: true, rules: { suspicious: { noDoubleEquals: "error", noVar: "warn" } } },
    }),
  );
  const biome = require.resolve("@biomejs/biome/bin/biome");
  try {
    const { stdout } = await execFileAsync(
      process.execPath,
      [biome, "lint", "--reporter=sarif", `--config-path=${dir}`, "."],
      { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
    );
    return stdout;
  } catch (error) {
    // Biome exits 1 when it found errors; the report is still on stdout.
    const stdout = (error as { stdout?: string }).stdout;
    if (typeof stdout === "string" && stdout.trimStart().startsWith("{")) return stdout;
    throw error;
  }
}

describe("SARIF written by real analyzers", () => {
  it("stores ESLint's findings with repository paths, lines, issues and categories", async () => {
    const dir = await aCheckout("assay-eslint-", {
      "src/app.js": "const unused = 1;\nif (x == null) {\n  debugger;\n}\n",
      "src/my file.js": "debugger;\n",
    });
    try {
      const sarif = await eslintSarif(dir);
      assert.match(sarif, /my%20file\.js/, "ESLint percent-encodes the file URI");
      const scene = await aScene();
      const { result } = await ingest(scene, sarif, { workDir: dir });
      assert.deepEqual(result, {
        read: 5,
        stored: 5,
        skipped: {},
        warnings: [],
        counts: { suppressed: 0, introduced: 5, existing: 0, resolved: 0, rules: 4 },
      });
      const rows = await occurrencesOf(scene.check.id);
      assert.deepEqual(
        rows.map(
          (o) => `${o.rule} ${o.path}:${o.begin_line}:${o.begin_column}-${o.end_line}:${o.end_column}`,
        ),
        [
          "no-unused-vars src/app.js:1:7-1:13",
          "no-undef src/app.js:2:5-2:6",
          "eqeqeq src/app.js:2:7-2:9",
          "no-debugger src/app.js:3:3-3:12",
          "no-debugger src/my file.js:1:1-1:10",
        ],
      );
      assert.equal(rows.find((o) => o.rule === "no-undef")?.title, "'x' is not defined.");
      assert.ok(rows.every((o) => /^[0-9a-f]{32}$/.test(o.fingerprint) && o.state === "INTRODUCED"));
      // ESLint's core rules by their type, each finding by its configured level (docs/ingestion-sarif.md).
      assert.deepEqual(
        rows.map((o) => `${o.rule} ${o.category} ${o.severity}`),
        [
          "no-unused-vars BUG_RISK MAJOR",
          "no-undef BUG_RISK MAJOR",
          "eqeqeq ANTI_PATTERN MINOR",
          "no-debugger BUG_RISK MINOR",
          "no-debugger BUG_RISK MINOR",
        ],
      );
      const issue = await db
        .selectFrom("issues")
        .selectAll()
        .where("analyzer_id", "=", scene.analyzer.id)
        .where("shortcode", "=", "no-debugger")
        .executeTakeFirstOrThrow();
      assert.equal(issue.title, "Disallow the use of `debugger`");
      assert.match(issue.description, /https:\/\/eslint\.org\/docs\/latest\/rules\/no-debugger/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("stores Biome's findings, its absolute paths made relative to the work directory", async () => {
    const dir = await aCheckout("assay-biome-", {
      "src/app.js": "const unused = 1;\nif (x == 1) {\n  debugger;\n}\nvar y = 2;\nexport { y };\n",
      "src/my dir/b.js": "debugger;\n",
    });
    try {
      const sarif = await biomeSarif(dir);
      const scene = await aScene();
      const { result } = await ingest(scene, sarif, { workDir: dir });
      assert.equal(result.read, 5);
      assert.equal(result.stored, 5);
      assert.deepEqual(
        (await occurrencesOf(scene.check.id)).map(
          (o) => `${o.rule} ${o.path}:${o.begin_line}:${o.begin_column} ${o.category} ${o.severity}`,
        ),
        [
          "lint/correctness/noUnusedVariables src/app.js:1:7 BUG_RISK MINOR",
          "lint/suspicious/noDoubleEquals src/app.js:2:7 BUG_RISK MAJOR",
          "lint/suspicious/noDebugger src/app.js:3:3 BUG_RISK MAJOR",
          "lint/suspicious/noVar src/app.js:5:1 BUG_RISK MINOR",
          "lint/suspicious/noDebugger src/my dir/b.js:1:1 BUG_RISK MAJOR",
        ],
      );
      // Without the work directory Biome's absolute paths lie outside the repository.
      const blind = await aScene();
      const { result: skipped } = await ingest(blind, sarif);
      assert.equal(skipped.stored, 0);
      assert.deepEqual(skipped.skipped, { OUTSIDE_REPOSITORY: 5 });
      assert.equal(skipped.warnings.length, 1);
      assert.match(
        skipped.warnings[0]!,
        /^5 result\(s\) lie outside the repository .*\(first: \/.*\/src\/.*this upload gave none\.$/,
      );
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe("messages as the tool's own output reads them", () => {
  it("renders Staticcheck's embedded links as their text in the title, and keeps the fingerprint of the text as written", async () => {
    const fixture = toolFixture("sarif", "staticcheck", "staticcheck.sarif");
    const sarif = readToolFixture("sarif", "staticcheck", "staticcheck.sarif");
    const written =
      "possible nil pointer dereference\n\t[this check suggests that the pointer can be nil](1)";
    assert.ok(sarif.includes(JSON.stringify(written).slice(1, -1)), "the report links a related location");
    const scene = await aScene();
    await ingest(scene, sarif, { workDir: fixture.workDir });
    const row = (await occurrencesOf(scene.check.id)).find((o) => o.rule === "SA5011");
    assert.ok(row);
    // Staticcheck's text output prints the related location's text on the next line, as here.
    assert.equal(
      row.title,
      "possible nil pointer dereference\n\tthis check suggests that the pointer can be nil",
    );
    assert.equal(
      row.fingerprint,
      fingerprintOf(
        {
          analyzer: scene.analyzer.shortcode,
          ruleId: "SA5011",
          path: row.path,
          context: messageContext(written),
        },
        0,
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Hand-made edge cases

describe("hand-made SARIF", () => {
  it("stores the results of every run in the file", async () => {
    const scene = await aScene();
    const sarif = sarifLog([
      { tool: "first", rules: [{ id: "A1" }], results: [aResult("A1", "src/a.py", 3)] },
      {
        tool: "second",
        rules: [{ id: "B1" }],
        results: [aResult("B1", "src/b.py", 4), aResult("A1", "src/c.py", 5)],
      },
    ]);
    const { result } = await ingest(scene, sarif);
    assert.equal(result.read, 3);
    assert.equal(result.counts.rules, 2);
    assert.deepEqual(await summaryOf(scene.check.id), [
      "A1 src/a.py:3:3 INTRODUCED",
      "A1 src/c.py:5:3 INTRODUCED",
      "B1 src/b.py:4:3 INTRODUCED",
    ]);
  });

  it("puts a finding without a region at line 1, column 1", async () => {
    const scene = await aScene();
    await ingest(scene, sarifLog([{ results: [aResult("R", "README.md", null)] }]));
    const [row] = await occurrencesOf(scene.check.id);
    assert.deepEqual([row?.begin_line, row?.begin_column, row?.end_line, row?.end_column], [1, 1, 1, 1]);
  });

  it("decodes percent-encoded URIs and resolves base ids; a plain path is a file name as written", async () => {
    const scene = await aScene();
    const sarif = sarifLog([
      {
        originalUriBaseIds: { SRC: { uri: "src/" } },
        results: [
          {
            ...aResult("R", "lib/my%20file%2B1.ts", 2),
            locations: [
              {
                physicalLocation: {
                  artifactLocation: { uri: "lib/my%20file%2B1.ts", uriBaseId: "%SRCROOT%" },
                  region: { startLine: 2 },
                },
              },
            ],
          },
          aResult("R", "plain/100%25.ts", 5),
          {
            ...aResult("R", "caf%C3%A9.ts", 3),
            locations: [
              { physicalLocation: { artifactLocation: { uri: "caf%C3%A9.ts", uriBaseId: "SRC" } } },
            ],
          },
          aResult("R", "file:///ci/checkout/pkg/x%23y.go", 4),
        ],
      },
    ]);
    await ingest(scene, sarif, { workDir: "/ci/checkout" });
    assert.deepEqual((await occurrencesOf(scene.check.id)).map((o) => o.path).sort(), [
      "lib/my file+1.ts",
      "pkg/x#y.go",
      "plain/100%25.ts",
      "src/café.ts",
    ]);
  });

  it("skips results outside the repository, without a path, or absent per baselineState", async () => {
    const scene = await aScene();
    const sarif = sarifLog([
      {
        results: [
          aResult("R", "/usr/lib/node/x.js", 1),
          aResult("R", "../outside.js", 1),
          { ruleId: "R", message: { text: "whole repository" } },
          {
            ruleId: "R",
            message: { text: "logical only" },
            locations: [{ logicalLocations: [{ name: "f" }] }],
          },
          aResult("R", "src/gone.js", 1, { baselineState: "absent" }),
          aResult("R", "src/new.js", 1, { baselineState: "new" }),
          aResult("R", "src/kept.js", 2, { baselineState: "unchanged" }),
        ],
      },
    ]);
    const { result } = await ingest(scene, sarif, { workDir: "/ci/checkout" });
    assert.equal(result.read, 7);
    assert.deepEqual(result.skipped, { OUTSIDE_REPOSITORY: 2, NO_LOCATION: 2, ABSENT: 1 });
    assert.deepEqual(result.warnings, [
      '2 result(s) lie outside the repository and were not stored (first: /usr/lib/node/x.js); paths are made relative to the upload\'s workDir "/ci/checkout".',
      '2 result(s) name no file (no location, or only logical ones) and were not stored (first: "whole repository" of rule R).',
    ]);
    // The tool's baselineState does not decide the state: Assay compares with its own base.
    assert.deepEqual(await summaryOf(scene.check.id), [
      "R src/kept.js:2:3 INTRODUCED",
      "R src/new.js:1:3 INTRODUCED",
    ]);
  });

  it("skips results with text PostgreSQL cannot store, counted, rather than storing it altered", async () => {
    const scene = await aScene();
    const sarif = sarifLog([
      {
        results: [
          aResult("R", "src/a\u0000.js", 1),
          aResult("R", "src/b.js", 2, { message: "nul \u0000 in the message" }),
          aResult("R\u0000", "src/c.js", 3),
          aResult("R", "src/d.js", 4, { message: "lone \ud800 surrogate" }),
          aResult("R", "src/kept.js", 5),
        ],
      },
    ]);
    const { result } = await ingest(scene, sarif);
    assert.equal(result.read, 5);
    assert.deepEqual(result.skipped, { UNSTORABLE_TEXT: 4 });
    assert.deepEqual(await summaryOf(scene.check.id), ["R src/kept.js:5:3 INTRODUCED"]);
  });

  it("stores a result at its primary location, not at its related locations", async () => {
    const scene = await aScene();
    const sarif = sarifLog([
      {
        results: [
          aResult("R", "src/sink.js", 10, {
            relatedLocations: [
              {
                id: 1,
                physicalLocation: { artifactLocation: { uri: "src/source.js" }, region: { startLine: 3 } },
              },
            ],
          }),
        ],
      },
    ]);
    await ingest(scene, sarif);
    assert.deepEqual(await summaryOf(scene.check.id), ["R src/sink.js:10:3 INTRODUCED"]);
  });

  it("marks SARIF suppressions: accepted or without status, not under review or rejected", async () => {
    const scene = await aScene();
    const sarif = sarifLog([
      {
        results: [
          aResult("R", "src/accepted.js", 1, { suppressions: [{ kind: "inSource", status: "accepted" }] }),
          aResult("R", "src/plain.js", 1, { suppressions: [{ kind: "external" }] }),
          aResult("R", "src/review.js", 1, {
            suppressions: [{ kind: "inSource" }, { kind: "external", status: "underReview" }],
          }),
          aResult("R", "src/rejected.js", 1, { suppressions: [{ kind: "inSource", status: "rejected" }] }),
          aResult("R", "src/none.js", 1),
        ],
      },
    ]);
    const { result } = await ingest(scene, sarif);
    assert.equal(result.counts.suppressed, 2);
    assert.deepEqual(
      (await occurrencesOf(scene.check.id)).map((o) => `${o.path} ${o.is_suppressed}`),
      [
        "src/accepted.js true",
        "src/none.js false",
        "src/plain.js true",
        "src/rejected.js false",
        "src/review.js false",
      ],
    );
  });

  it("applies the repository's ignore rules and the team's suppressions in force when the run began", async () => {
    const analyzer = await anAnalyzer(db, { type: "COMMUNITY" });
    const ignored = await anIssue(db, analyzer, { shortcode: "IGNORED" });
    const team = await anIssue(db, analyzer, { shortcode: "TEAM" });
    const late = await anIssue(db, analyzer, { shortcode: "LATE" });
    const repository = await aRepository(db, await anAccount(db));
    const earlier = new Date(Date.now() - 60_000);
    await db
      .insertInto("ignore_rules")
      .values([
        {
          key: newRowKey(),
          repository_id: repository.id,
          issue_id: ignored.id,
          level: "REPOSITORY",
          type: "PATTERN",
          file_path: null,
          glob_pattern: "tests/**",
          created_at: earlier,
        },
      ])
      .execute();
    await db
      .insertInto("team_suppressed_issues")
      .values({ key: newRowKey(), account_id: repository.account_id, issue_id: team.id, created_at: earlier })
      .execute();
    const scene = await aScene({ analyzer, repository });
    // Made after the run began: not in force for it.
    await db
      .insertInto("ignore_rules")
      .values({
        key: newRowKey(),
        repository_id: repository.id,
        issue_id: late.id,
        level: "REPOSITORY",
        type: "FOREVER",
        file_path: null,
        glob_pattern: null,
        created_at: new Date(Date.now() + 60_000),
      })
      .execute();
    const { result } = await ingest(
      scene,
      sarifLog([
        {
          results: [
            aResult("IGNORED", "tests/a.test.js", 1),
            aResult("IGNORED", "src/a.js", 1),
            aResult("TEAM", "src/b.js", 1),
            aResult("LATE", "src/c.js", 1),
          ],
        },
      ]),
    );
    assert.equal(result.counts.suppressed, 2);
    assert.deepEqual(
      (await occurrencesOf(scene.check.id)).map((o) => `${o.rule} ${o.path} ${o.is_suppressed}`),
      ["IGNORED src/a.js false", "TEAM src/b.js true", "LATE src/c.js false", "IGNORED tests/a.test.js true"],
    );
  });

  it("skips findings of a category or priority the repository does not report", async () => {
    const scene = await aScene();
    await db
      .insertInto("repository_issue_category_settings")
      .values({
        repository_id: scene.repository.id,
        category: "STYLE",
        is_reported: false,
        can_fail_check: false,
      })
      .execute();
    await db
      .insertInto("repository_issue_priority_settings")
      .values({
        repository_id: scene.repository.id,
        priority_type: "HIGH",
        is_reported: false,
        can_fail_check: false,
      })
      .execute();
    const sarif = sarifLog([
      {
        rules: [
          { id: "naming", properties: { tags: ["style"] } },
          { id: "sqli", properties: { tags: ["security"], "security-severity": "9.8" } },
          { id: "xss", properties: { tags: ["security"], "security-severity": "6.1" } },
          { id: "bug", defaultConfiguration: { level: "error" } },
        ],
        results: [
          aResult("naming", "src/a.js", 1),
          aResult("sqli", "src/a.js", 2),
          aResult("xss", "src/a.js", 3),
          aResult("bug", "src/a.js", 4, { level: "error" }),
        ],
      },
    ]);
    const { result } = await ingest(scene, sarif);
    assert.deepEqual(result.skipped, { NOT_REPORTED: 2 });
    assert.deepEqual(
      (await occurrencesOf(scene.check.id)).map((o) => `${o.rule} ${o.category} ${o.severity}`),
      ["xss SECURITY MAJOR", "bug BUG_RISK MAJOR"],
    );
  });

  it("files a rule the driver does not describe under its id, and keeps identical findings distinct", async () => {
    const scene = await aScene();
    const sarif = sarifLog([
      {
        results: [
          aResult("custom/undescribed", "src/a.js", 1, { level: "error", message: "Same." }),
          aResult("custom/undescribed", "src/a.js", 1, { level: "error", message: "Same." }),
        ],
      },
    ]);
    const { result } = await ingest(scene, sarif);
    assert.equal(result.stored, 2);
    const issue = await db
      .selectFrom("issues")
      .selectAll()
      .where("analyzer_id", "=", scene.analyzer.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [issue.shortcode, issue.title, issue.category, issue.severity],
      ["custom/undescribed", "custom/undescribed", "BUG_RISK", "MAJOR"],
    );
    const rows = await occurrencesOf(scene.check.id);
    const identity = {
      analyzer: scene.analyzer.shortcode,
      ruleId: "custom/undescribed",
      path: "src/a.js",
      context: "Same.",
    };
    assert.deepEqual(
      rows.map((o) => o.fingerprint).sort(),
      [fingerprintOf(identity, 0), fingerprintOf(identity, 1)].sort(),
    );
  });

  it("gives a rule met undescribed the description a later run of the file brings", async () => {
    const scene = await aScene();
    await ingest(
      scene,
      sarifLog([
        { results: [aResult("LATE", "a.js", 1)] },
        {
          rules: [{ id: "LATE", shortDescription: { text: "Described late" } }],
          results: [aResult("LATE", "b.js", 1)],
        },
      ]),
    );
    const issues = await db
      .selectFrom("issues")
      .select(["shortcode", "title"])
      .where("analyzer_id", "=", scene.analyzer.id)
      .execute();
    assert.deepEqual(issues, [{ shortcode: "LATE", title: "Described late" }]);
    assert.equal((await occurrencesOf(scene.check.id)).length, 2);
  });

  it("updates a community analyzer's issues when its rules change, never a core analyzer's", async () => {
    const community = await aScene({ analyzerType: "COMMUNITY" });
    const core = await aScene({ analyzerType: "CORE" });
    const known = await anIssue(db, core.analyzer, {
      shortcode: "KNOWN",
      title: "Catalog title",
      category: "PERFORMANCE",
    });
    const rules = (title: string) => [
      { id: "KNOWN", shortDescription: { text: title }, properties: { tags: ["security"] } },
      { id: "NEW", shortDescription: { text: title } },
    ];
    const results = [aResult("KNOWN", "a.js", 1), aResult("NEW", "a.js", 2)];
    await ingest(community, sarifLog([{ rules: rules("First"), results }]));
    await ingest(community, sarifLog([{ rules: rules("Second"), results }]));
    await ingest(core, sarifLog([{ rules: rules("First"), results }]));
    await ingest(core, sarifLog([{ rules: rules("Second"), results }]));
    const issues = await db
      .selectFrom("issues")
      .select(["analyzer_id", "shortcode", "title", "category", "key"])
      .where("analyzer_id", "in", [community.analyzer.id, core.analyzer.id])
      .orderBy("analyzer_id")
      .orderBy("shortcode")
      .execute();
    assert.deepEqual(
      issues
        .map(
          (i) =>
            `${i.analyzer_id === core.analyzer.id ? "core" : "community"} ${i.shortcode} ${i.title} ${i.category}`,
        )
        .sort(),
      [
        "community KNOWN Second SECURITY",
        "community NEW Second ANTI_PATTERN",
        "core KNOWN Catalog title PERFORMANCE",
        "core NEW First ANTI_PATTERN",
      ],
    );
    assert.equal(
      issues.find((i) => i.shortcode === "KNOWN" && i.analyzer_id === core.analyzer.id)?.key,
      known.key,
    );
  });

  it("uses the rule's description when the message is empty, cuts long messages, skips a message with NUL", async () => {
    const scene = await aScene();
    const sarif = sarifLog([
      {
        rules: [{ id: "R", shortDescription: { text: "Rule R." } }],
        results: [
          { ...aResult("R", "a.js", 1), message: { text: "" } },
          aResult("R", "b.js", 1, { message: `x${"y".repeat(5000)}` }),
          aResult("R", "c.js", 1, { message: "nul\u0000here" }),
        ],
      },
    ]);
    const { result } = await ingest(scene, sarif);
    const titles = (await occurrencesOf(scene.check.id)).map((o) => o.title);
    assert.equal(titles.length, 2);
    assert.equal(titles[0], "Rule R.");
    assert.equal(titles[1]?.length, 4000);
    assert.ok(titles[1]?.endsWith("…"));
    assert.deepEqual(result.skipped, { UNSTORABLE_TEXT: 1 });
  });

  it("writes the same rows whatever the batch size", async () => {
    const results = Array.from({ length: 23 }, (_, i) => aResult(`R${i % 3}`, `src/f${i % 4}.js`, i + 1));
    const sarif = sarifLog([{ results }]);
    const small = await aScene();
    const large = await aNextScene(small);
    await ingest(small, sarif, { batchSize: 2 });
    await ingest(large, sarif);
    const strip = (rows: StoredOccurrence[]) => rows.map(({ key: _k, artifact_id: _a, ...rest }) => rest);
    const smallRows = await occurrencesOf(small.check.id);
    assert.equal(smallRows.length, 23);
    assert.deepEqual(strip(smallRows), strip(await occurrencesOf(large.check.id)));
  });

  it("writes the same rows and result in steps of their own with two batches in flight", async () => {
    const results = Array.from({ length: 23 }, (_, i) => aResult(`R${i % 3}`, `src/f${i % 4}.js`, i + 1));
    const sarif = sarifLog([{ results }]);
    const whole = await aScene();
    const stepped = await aNextScene(whole);
    const { result: wholeResult } = await ingest(whole, sarif);
    const artifact = await anArtifact(stepped);
    const publish = await stageText(stepped, artifact, sarif, { batchSize: 2, inFlight: 2 });
    const steppedResult = await db.transaction().execute((tx) => publish(tx));
    const strip = (rows: StoredOccurrence[]) => rows.map(({ key: _k, artifact_id: _a, ...rest }) => rest);
    const steppedRows = await occurrencesOf(stepped.check.id);
    assert.equal(steppedRows.length, 23);
    assert.deepEqual(strip(steppedRows), strip(await occurrencesOf(whole.check.id)));
    assert.deepEqual(steppedResult, wholeResult);
  });

  it("fails with the database's error when a batch cannot be written", async () => {
    const scene = await aScene();
    const artifact = await anArtifact(scene);
    const results = Array.from({ length: 5 }, (_, i) => aResult("R", "src/a.js", i + 1));
    // A check that does not exist: the first batch breaks its foreign key while the next one fills.
    const ghost = { ...scene, check: { ...scene.check, id: "999999999" } };
    await assert.rejects(
      processText(ghost, artifact, sarifLog([{ results }]), { batchSize: 2 }),
      /foreign key/,
    );
    assert.deepEqual(await occurrencesOf(scene.check.id), []);
  });
});

// ---------------------------------------------------------------------------------------------
// States against the base, and processing again

describe("states against the base check", () => {
  const baseSarif = sarifLog([
    {
      rules: [{ id: "unused" }, { id: "eq" }],
      results: [
        aResult("unused", "src/a.js", 3, { message: "'a' is unused.", snippet: "const a = 1;" }),
        aResult("eq", "src/a.js", 8, { message: "Use ===.", snippet: "if (x == y)" }),
        aResult("eq", "src/a.js", 12, { message: "Use ===.", snippet: "if (x == y)" }),
        aResult("unused", "src/gone.js", 1, { message: "'g' is unused." }),
      ],
    },
  ]);
  // Two lines were added at the top of a.js; one `==` was fixed; gone.js was deleted; new.js came.
  const headSarif = sarifLog([
    {
      rules: [{ id: "unused" }, { id: "eq" }],
      results: [
        aResult("unused", "src/a.js", 5, { message: "'a' is unused.", snippet: "  const a = 1;" }),
        aResult("eq", "src/a.js", 10, { message: "Use ===.", snippet: "if (x == y)" }),
        aResult("unused", "src/new.js", 2, { message: "'n' is unused." }),
      ],
    },
  ]);

  it("marks moved findings EXISTING, new ones INTRODUCED, and copies gone ones as RESOLVED", async () => {
    const base = await aScene();
    await ingest(base, baseSarif);
    const head = await aNextScene(base);
    const { artifact, result } = await ingest(head, headSarif, { baseCheckId: base.check.id });
    assert.deepEqual(
      [result.counts.introduced, result.counts.existing, result.counts.resolved, result.stored],
      [1, 2, 2, 3],
    );
    assert.deepEqual(await summaryOf(head.check.id), [
      "eq src/a.js:10:3 EXISTING",
      // The second `==` of the base: identical findings are told apart by their order.
      "eq src/a.js:12:3 RESOLVED",
      "unused src/a.js:5:3 EXISTING",
      "unused src/gone.js:1:3 RESOLVED",
      "unused src/new.js:2:3 INTRODUCED",
    ]);
    const rows = await occurrencesOf(head.check.id);
    const baseRows = await occurrencesOf(base.check.id);
    for (const resolved of rows.filter((o) => o.state === "RESOLVED")) {
      assert.equal(resolved.artifact_id, null);
      const original = baseRows.find((o) => o.fingerprint === resolved.fingerprint);
      assert.ok(original);
      assert.notEqual(resolved.key, original.key);
      assert.deepEqual(
        [resolved.rule, resolved.path, resolved.begin_line, resolved.end_column, resolved.title],
        [original.rule, original.path, original.begin_line, original.end_column, original.title],
      );
    }
    assert.ok(rows.filter((o) => o.state !== "RESOLVED").every((o) => o.artifact_id === artifact.id));
  });

  it("gives the same rows when an artifact is processed again", async () => {
    const base = await aScene();
    await ingest(base, baseSarif);
    const head = await aNextScene(base);
    const { artifact, result } = await ingest(head, headSarif, { baseCheckId: base.check.id });
    const first = await occurrencesOf(head.check.id);
    const again = await processText(head, artifact, headSarif, { baseCheckId: base.check.id });
    assert.deepEqual(again, result);
    const strip = (rows: StoredOccurrence[]) => rows.map(({ key: _key, ...rest }) => rest);
    assert.deepEqual(strip(await occurrencesOf(head.check.id)), strip(first));
  });

  it("judges every artifact of the check together", async () => {
    const base = await aScene();
    await ingest(base, baseSarif);
    const head = await aNextScene(base);
    await ingest(head, headSarif, { baseCheckId: base.check.id });
    // A second artifact of the same check brings back gone.js's finding: no longer RESOLVED.
    const { result } = await ingest(
      head,
      sarifLog([{ results: [aResult("unused", "src/gone.js", 1, { message: "'g' is unused." })] }]),
      { baseCheckId: base.check.id },
    );
    assert.deepEqual([result.counts.introduced, result.counts.existing, result.counts.resolved], [1, 3, 1]);
    assert.deepEqual(await summaryOf(head.check.id), [
      "eq src/a.js:10:3 EXISTING",
      "eq src/a.js:12:3 RESOLVED",
      "unused src/a.js:5:3 EXISTING",
      "unused src/gone.js:1:3 EXISTING",
      "unused src/new.js:2:3 INTRODUCED",
    ]);
  });

  it("re-judges the check's other artifacts against the base it is given", async () => {
    const base = await aScene();
    await ingest(base, baseSarif);
    const head = await aNextScene(base);
    await ingest(head, headSarif);
    const { result } = await ingest(
      head,
      sarifLog([{ results: [aResult("unused", "src/other.js", 1, { message: "'o' is unused." })] }]),
      { baseCheckId: base.check.id },
    );
    assert.deepEqual([result.counts.introduced, result.counts.existing, result.counts.resolved], [2, 2, 2]);
  });

  /** The rows the first test above expects of the head check. */
  const headSummary = [
    "eq src/a.js:10:3 EXISTING",
    "eq src/a.js:12:3 RESOLVED",
    "unused src/a.js:5:3 EXISTING",
    "unused src/gone.js:1:3 RESOLVED",
    "unused src/new.js:2:3 INTRODUCED",
  ];

  it("finds the base's missing findings at publication when there were too many to remember", async () => {
    for (const [rememberedMissing, rememberedBase] of [
      [1, undefined],
      [2, undefined],
      [1, 0],
      [100, 0],
    ] as const) {
      const base = await aScene();
      await ingest(base, baseSarif);
      const head = await aNextScene(base);
      const { result } = await ingest(head, headSarif, {
        baseCheckId: base.check.id,
        rememberedMissing,
        ...(rememberedBase === undefined ? {} : { rememberedBase }),
      });
      assert.deepEqual([result.counts.introduced, result.counts.existing, result.counts.resolved], [1, 2, 2]);
      assert.deepEqual(await summaryOf(head.check.id), headSummary);
    }
  });

  it("replaces the RESOLVED copies of a check that had found nothing", async () => {
    const base = await aScene();
    await ingest(base, baseSarif);
    const head = await aNextScene(base);
    const empty = await ingest(head, sarifLog([{ rules: [{ id: "unused" }], results: [] }]), {
      baseCheckId: base.check.id,
    });
    assert.deepEqual([empty.result.counts.introduced, empty.result.counts.resolved], [0, 4]);
    const { result } = await ingest(head, headSarif, { baseCheckId: base.check.id });
    assert.deepEqual([result.counts.introduced, result.counts.existing, result.counts.resolved], [1, 2, 2]);
    assert.deepEqual(await summaryOf(head.check.id), headSummary);
  });

  it("judges the report again when its base gained findings while it was staged", async () => {
    const base = await aScene();
    await ingest(base, baseSarif);
    const head = await aNextScene(base);
    const artifact = await anArtifact(head);
    const publish = await stageText(head, artifact, headSarif, { baseCheckId: base.check.id });
    // Another artifact of the base check, published meanwhile, has new.js's finding.
    await ingest(
      base,
      sarifLog([{ results: [aResult("unused", "src/new.js", 2, { message: "'n' is unused." })] }]),
    );
    const result = await db.transaction().execute((tx) => publish(tx));
    assert.deepEqual([result.counts.introduced, result.counts.existing, result.counts.resolved], [0, 3, 2]);
    assert.deepEqual(
      await summaryOf(head.check.id),
      headSummary.map((row) => row.replace("new.js:2:3 INTRODUCED", "new.js:2:3 EXISTING")),
    );
  });

  for (const [judged, rememberedBase] of [
    ["in Node", undefined],
    ["by PostgreSQL", 0],
  ] as const) {
    it(`judges the report again when its base gained findings between two of its steps (the base judged ${judged})`, async () => {
      const base = await aScene();
      await ingest(base, baseSarif);
      const head = await aNextScene(base);
      const artifact = await anArtifact(head);
      let gained = false;
      const publish = await stageText(head, artifact, headSarif, {
        baseCheckId: base.check.id,
        batchSize: 1,
        ...(rememberedBase === undefined ? {} : { rememberedBase }),
        // Once the report's rows are written, before staging is done: another artifact of the base
        // check is published with new.js's finding. The rows were judged without it.
        betweenSteps: async () => {
          const written = await rowsWrittenBy(artifact.id);
          // Checked after the await: two steps in flight both end here.
          if (gained || written < 3) return;
          gained = true;
          await ingest(
            base,
            sarifLog([{ results: [aResult("unused", "src/new.js", 2, { message: "'n' is unused." })] }]),
          );
        },
      });
      assert.equal(gained, true, "the base gained its artifact while the report was staged");
      const result = await db.transaction().execute((tx) => publish(tx));
      assert.deepEqual([result.counts.introduced, result.counts.existing, result.counts.resolved], [0, 3, 2]);
      assert.deepEqual(
        await summaryOf(head.check.id),
        headSummary.map((row) => row.replace("new.js:2:3 INTRODUCED", "new.js:2:3 EXISTING")),
      );
    });
  }

  it("recomputes states when the base changes, and makes everything INTRODUCED without one", async () => {
    const base = await aScene();
    await ingest(base, baseSarif);
    const head = await aNextScene(base);
    await ingest(head, headSarif);
    assert.deepEqual(await summaryOf(head.check.id), [
      "eq src/a.js:10:3 INTRODUCED",
      "unused src/a.js:5:3 INTRODUCED",
      "unused src/new.js:2:3 INTRODUCED",
    ]);
    const counts = await db
      .transaction()
      .execute((tx) => recomputeFindingStates(tx, head.check.id, base.check.id));
    assert.deepEqual(counts, { introduced: 1, existing: 2, resolved: 2, carried: 0 });
    const withoutBase = await db
      .transaction()
      .execute((tx) => recomputeFindingStates(tx, head.check.id, null));
    assert.deepEqual(withoutBase, { introduced: 3, existing: 0, resolved: 0, carried: 0 });
  });
});

describe("publishing into a check that already holds findings", () => {
  const rules = [{ id: "unused" }, { id: "eq" }];
  const finding = {
    a: aResult("unused", "src/a.js", 3, { message: "'a' is unused." }),
    eq: aResult("eq", "src/a.js", 8, { message: "Use ===." }),
    b: aResult("unused", "src/b.js", 1, { message: "'b' is unused." }),
    gone: aResult("unused", "src/gone.js", 1, { message: "'g' is unused." }),
    added: aResult("unused", "src/new.js", 2, { message: "'n' is unused." }),
    c: aResult("eq", "src/c.js", 4, { message: "Use ===." }),
  };
  const log = (...results: unknown[]) => sarifLog([{ rules, results }]);

  /** The check's rows once every state is set again from the base, as a rebase sets them. */
  async function recomputed(checkId: string, baseCheckId: string): Promise<string[]> {
    await db.transaction().execute((tx) => recomputeFindingStates(tx, checkId, baseCheckId));
    return summaryOf(checkId);
  }

  /** Keys of the check's RESOLVED rows, by path. */
  async function resolvedIds(checkId: string): Promise<Record<string, string>> {
    const rows = (await occurrencesOf(checkId)).filter((o) => o.state === "RESOLVED");
    return Object.fromEntries(rows.map((o) => [o.path, o.key]));
  }

  it("leaves the earlier shards' states and RESOLVED copies as setting them all again would, and removes the copies the new shard found again", async () => {
    const base = await aScene();
    await ingest(base, log(finding.a, finding.eq, finding.b, finding.gone));
    const head = await aNextScene(base);
    await ingest(head, log(finding.a, finding.added), { baseCheckId: base.check.id });
    const copies = await resolvedIds(head.check.id);
    assert.deepEqual(Object.keys(copies).sort(), ["src/a.js", "src/b.js", "src/gone.js"]);
    const { result } = await ingest(head, log(finding.b, finding.c), { baseCheckId: base.check.id });
    assert.deepEqual([result.counts.introduced, result.counts.existing, result.counts.resolved], [2, 2, 2]);
    const summary = await summaryOf(head.check.id);
    assert.deepEqual(summary, [
      "eq src/a.js:8:3 RESOLVED",
      "eq src/c.js:4:3 INTRODUCED",
      "unused src/a.js:3:3 EXISTING",
      "unused src/b.js:1:3 EXISTING",
      "unused src/gone.js:1:3 RESOLVED",
      "unused src/new.js:2:3 INTRODUCED",
    ]);
    // Written once: the copies the new shard did not find are the same rows.
    const kept = await resolvedIds(head.check.id);
    assert.deepEqual(kept, { "src/a.js": copies["src/a.js"], "src/gone.js": copies["src/gone.js"] });
    await assertIssueCountsMatchFindings(db, "a second shard");
    assert.deepEqual(await recomputed(head.check.id, base.check.id), summary);
  });

  it("keeps the check's issue counts, by the findings' own severity and suppression, as its findings give them shard after shard", async () => {
    const suppressed = { suppressions: [{ kind: "inSource" }] };
    const base = await aScene();
    await ingest(
      base,
      log(
        finding.a,
        { ...finding.eq, level: "error" },
        { ...finding.b, ...suppressed },
        { ...finding.gone, level: "error" },
      ),
    );
    const head = await aNextScene(base);
    const shards = [
      log(finding.a, { ...finding.added, level: "error", ...suppressed }),
      // b.js's copy is of a suppressed finding, a.js's line 8 one of an error: both found again.
      log({ ...finding.b, ...suppressed }, { ...finding.c, level: "note" }),
      log({ ...finding.eq, level: "error" }, { ...finding.c, level: "note" }),
    ];
    const totals: Array<Array<number | undefined>> = [];
    for (const [index, shard] of shards.entries()) {
      const { result } = await ingest(head, shard, { baseCheckId: base.check.id });
      totals.push([result.counts.introduced, result.counts.existing, result.counts.resolved, result.stored]);
      await assertIssueCountsMatchFindings(db, `shard ${index + 1}`);
    }
    // The third shard's c.js finding is the second's: left out, not counted twice.
    assert.deepEqual(totals, [
      [1, 1, 3, 2],
      [2, 2, 2, 2],
      [2, 3, 1, 1],
    ]);
    const counts = await db
      .selectFrom("check_issue_counts")
      .select(["severity", "state", "is_suppressed", "occurrences"])
      .where("check_id", "=", head.check.id)
      .orderBy("state")
      .orderBy("severity")
      .orderBy("is_suppressed")
      .execute();
    assert.deepEqual(
      counts.map(
        (k) => `${k.state} ${k.severity} ${k.is_suppressed ? "suppressed" : "shown"} ${k.occurrences}`,
      ),
      [
        "EXISTING MAJOR shown 1",
        "EXISTING MINOR shown 1",
        "EXISTING MINOR suppressed 1",
        "INTRODUCED MAJOR suppressed 1",
        "INTRODUCED MINOR shown 1",
        "RESOLVED MAJOR shown 1",
      ],
    );
  });

  it("reads the base and the check's own findings only while they are worth reading against the report's size; looked up instead, the rows are the same", async () => {
    const step = <T>(work: (tx: Kysely<Database>) => Promise<T>) => work(db);
    const base = await aScene();
    await ingest(base, log(finding.a, finding.eq, finding.b, finding.gone));
    const version = await findFindingsVersionOf(db, base.check.id);
    const read = await readBase(step, base.check.id, { pageSize: 2, worthReading: 4 });
    assert.deepEqual([read.baseVersion, read.findings?.size], [version, 4]);
    const lookedUp = await readBase(step, base.check.id, { pageSize: 2, worthReading: 3 });
    assert.deepEqual([lookedUp.baseVersion, lookedUp.findings], [version, null]);

    // Two heads, each a first shard and then a report of a, b.js and c.js: one of an unknown size,
    // read; one of 100 bytes (worth 2 findings read), which looks up the check's 3 and the base's 4.
    const summaries = [];
    for (const reportBytes of [null, 100]) {
      const head = await aNextScene(base);
      await ingest(head, log(finding.a, finding.eq, finding.added), { baseCheckId: base.check.id });
      const artifact = await anArtifact(head);
      await db
        .updateTable("artifacts")
        .set({ report_bytes: reportBytes })
        .where("id", "=", artifact.id)
        .execute();
      const staged = await readCheckAsStaged(step, head.check.id, artifact.id, {
        pageSize: 2,
        worthReading: findingsWorthReading(reportBytes),
      });
      assert.equal(staged.held === null, reportBytes !== null);
      const result = await processText(head, artifact, log(finding.a, finding.b, finding.c), {
        baseCheckId: base.check.id,
      });
      assert.deepEqual([result.stored, result.skipped], [2, { ALREADY_REPORTED: 1 }]);
      summaries.push(await summaryOf(head.check.id));
      await assertIssueCountsMatchFindings(db, `a report of ${reportBytes ?? "unknown"} bytes`);
    }
    assert.deepEqual(summaries[1], summaries[0]);
    assert.deepEqual(summaries[0], [
      "eq src/a.js:8:3 EXISTING",
      "eq src/c.js:4:3 INTRODUCED",
      "unused src/a.js:3:3 EXISTING",
      "unused src/b.js:1:3 EXISTING",
      "unused src/gone.js:1:3 RESOLVED",
      "unused src/new.js:2:3 INTRODUCED",
    ]);
  });

  it("sets every state again when the base's findings changed since the check's last publication", async () => {
    const base = await aScene();
    await ingest(base, log(finding.a, finding.gone));
    const head = await aNextScene(base);
    await ingest(head, log(finding.a, finding.b), { baseCheckId: base.check.id });
    assert.ok((await summaryOf(head.check.id)).includes("unused src/b.js:1:3 INTRODUCED"));
    // The base check gains a report holding b.js's finding: the head's row of it is no longer new.
    await ingest(base, log(finding.b));
    await ingest(head, log(finding.c), { baseCheckId: base.check.id });
    const summary = await summaryOf(head.check.id);
    assert.deepEqual(summary, [
      "eq src/c.js:4:3 INTRODUCED",
      "unused src/a.js:3:3 EXISTING",
      "unused src/b.js:1:3 EXISTING",
      "unused src/gone.js:1:3 RESOLVED",
    ]);
    assert.deepEqual(await recomputed(head.check.id, base.check.id), summary);
  });

  it("judges the report again when an artifact of its base was staged and failed while it was staged", async () => {
    const base = await aScene();
    await ingest(base, log(finding.a, finding.gone));
    const head = await aNextScene(base);
    const artifact = await anArtifact(head);
    let failing: { id: string } | undefined;
    let staged = false;
    const publish = await stageText(head, artifact, log(finding.a, finding.b), {
      baseCheckId: base.check.id,
      batchSize: 1,
      // PostgreSQL looks the rows up as they are written: b.js's row finds the failing report's.
      rememberedBase: 0,
      betweenSteps: async () => {
        const written = await rowsWrittenBy(artifact.id);
        // Checked after the await: two steps in flight both end here.
        if (staged || written < 1) return;
        staged = true;
        const uploaded = await anArtifact(base);
        failing = uploaded;
        await stageText(base, uploaded, log(finding.b));
      },
    });
    assert.ok(staged && failing, "the base's report was uploaded and staged while the head's was");
    assert.ok((await summaryOf(head.check.id)).includes("unused src/b.js:1:3 EXISTING"));
    // It fails: its rows are deleted while it is QUEUED, then it is marked FAILED.
    await db.deleteFrom("occurrences").where("artifact_id", "=", failing.id).execute();
    await db.updateTable("artifacts").set({ status: "FAILED" }).where("id", "=", failing.id).execute();
    await db.transaction().execute((tx) => publish(tx));
    const summary = await summaryOf(head.check.id);
    assert.deepEqual(summary, [
      "unused src/a.js:3:3 EXISTING",
      "unused src/b.js:1:3 INTRODUCED",
      "unused src/gone.js:1:3 RESOLVED",
    ]);
    assert.deepEqual(await recomputed(head.check.id, base.check.id), summary);
  });
});

describe("the same findings reported again", () => {
  /** Results of a report made in `root`, which names files by absolute path, as ESLint and Biome do. */
  function reportIn(
    root: string,
    results: Array<[rule: string, file: string, line: number, message: string]>,
  ) {
    return sarifLog([
      {
        rules: [{ id: "unused" }, { id: "eq" }],
        results: results.map(([rule, file, line, message]) =>
          aResult(rule, `file://${root}/${file}`, line, { message }),
        ),
      },
    ]);
  }
  const first: Array<[string, string, number, string]> = [
    ["unused", "src/a.js", 3, "'a' is unused."],
    ["eq", "src/a.js", 8, "Use ===."],
    ["eq", "src/a.js", 12, "Use ===."],
    ["unused", "src/b.js", 1, "'b' is unused."],
  ];

  function alreadyReported(count: number, artifact: { key: string }): string {
    return `${count} result(s) were already reported by artifact ${encodeGlobalId("Artifact", artifact.key)} of this check (the same findings, by fingerprint) and were not counted again.`;
  }

  for (const [judged, rememberedHeld] of [
    ["in Node", undefined],
    ["by PostgreSQL", 0],
  ] as const) {
    const lookup = rememberedHeld === undefined ? {} : { rememberedHeld };

    it(`stores none of a report's findings that the check holds, says which artifact holds them, and leaves the states as they were (the check's findings looked up ${judged})`, async () => {
      const base = await aScene();
      await ingest(base, reportIn("/ci/one", first.slice(0, 2)), { workDir: "/ci/one", ...lookup });
      const head = await aNextScene(base);
      const held = await ingest(head, reportIn("/ci/one", first), {
        baseCheckId: base.check.id,
        workDir: "/ci/one",
      });
      const before = await summaryOf(head.check.id);
      const { result } = await ingest(head, reportIn("/ci/two", first), {
        baseCheckId: base.check.id,
        workDir: "/ci/two",
        ...lookup,
      });
      assert.deepEqual(
        [result.read, result.stored, result.skipped, result.warnings],
        [4, 0, { ALREADY_REPORTED: 4 }, [alreadyReported(4, held.artifact)]],
      );
      assert.deepEqual([result.counts.introduced, result.counts.existing, result.counts.resolved], [2, 2, 0]);
      assert.deepEqual(await summaryOf(head.check.id), before);
      assert.ok((await occurrencesOf(head.check.id)).every((o) => o.artifact_id === held.artifact.id));
    });

    it(`keeps every finding any report of the check gave: a re-run with one fewer adds nothing, one with one more adds it (the check's findings looked up ${judged})`, async () => {
      const scene = await aScene();
      const held = await ingest(scene, reportIn("/ci/one", first), { workDir: "/ci/one", ...lookup });
      const fewer = await ingest(scene, reportIn("/ci/two", first.slice(1)), {
        workDir: "/ci/two",
        ...lookup,
      });
      assert.deepEqual(
        [fewer.result.stored, fewer.result.skipped, fewer.result.counts.introduced],
        [0, { ALREADY_REPORTED: 3 }, 4],
      );
      const more = await ingest(
        scene,
        reportIn("/ci/three", [...first, ["unused", "src/c.js", 2, "'c' is unused."]]),
        { workDir: "/ci/three", ...lookup },
      );
      assert.deepEqual(
        [more.result.stored, more.result.skipped, more.result.warnings, more.result.counts.introduced],
        [1, { ALREADY_REPORTED: 4 }, [alreadyReported(4, held.artifact)], 5],
      );
      assert.deepEqual(await summaryOf(scene.check.id), [
        "eq src/a.js:12:3 INTRODUCED",
        "eq src/a.js:8:3 INTRODUCED",
        "unused src/a.js:3:3 INTRODUCED",
        "unused src/b.js:1:3 INTRODUCED",
        "unused src/c.js:2:3 INTRODUCED",
      ]);
    });

    it(`tells identical findings apart by their order in each report: one fewer of them adds nothing, one more adds one (the check's findings looked up ${judged})`, async () => {
      const scene = await aScene();
      const same = (n: number) =>
        Array.from({ length: n }, (_, i): [string, string, number, string] => [
          "eq",
          "src/a.js",
          8 + i,
          "Use ===.",
        ]);
      const twice = await ingest(scene, reportIn("/ci/one", same(2)), { workDir: "/ci/one", ...lookup });
      assert.deepEqual([twice.result.stored, twice.result.counts.introduced], [2, 2]);
      const once = await ingest(scene, reportIn("/ci/two", same(1)), { workDir: "/ci/two", ...lookup });
      assert.deepEqual(
        [once.result.stored, once.result.skipped, once.result.counts.introduced],
        [0, { ALREADY_REPORTED: 1 }, 2],
      );
      const thrice = await ingest(scene, reportIn("/ci/three", same(3)), { workDir: "/ci/three", ...lookup });
      assert.deepEqual(
        [thrice.result.stored, thrice.result.skipped, thrice.result.counts.introduced],
        [1, { ALREADY_REPORTED: 2 }, 3],
      );
    });

    it(`leaves out at publication what another report, published while this one was staged, holds (the check's findings looked up ${judged})`, async () => {
      const scene = await aScene();
      const earlier = await anArtifact(scene, "/ci/one");
      const later = await anArtifact(scene, "/ci/two");
      const publishEarlier = await stageText(scene, earlier, reportIn("/ci/one", first));
      const publishLater = await stageText(scene, later, reportIn("/ci/two", first.slice(1)), lookup);
      await db.transaction().execute((tx) => publishEarlier(tx));
      const result = await db.transaction().execute((tx) => publishLater(tx));
      assert.deepEqual(
        [result.stored, result.skipped, result.warnings, result.counts.introduced],
        [0, { ALREADY_REPORTED: 3 }, [alreadyReported(3, earlier)], 4],
      );
      assert.ok((await occurrencesOf(scene.check.id)).every((o) => o.artifact_id === earlier.id));
    });

    it(`leaves out what another report, published between two of this one's steps, holds (the check's findings looked up ${judged})`, async () => {
      const scene = await aScene();
      const earlier = await anArtifact(scene, "/ci/one");
      const later = await anArtifact(scene, "/ci/two");
      const publishEarlier = await stageText(scene, earlier, reportIn("/ci/one", first));
      let published = false;
      const publishLater = await stageText(scene, later, reportIn("/ci/two", first.slice(1)), {
        ...lookup,
        batchSize: 1,
        // Once the later report wrote its first row: the earlier one, holding all of its findings, is published.
        betweenSteps: async () => {
          const written = await rowsWrittenBy(later.id);
          // Checked after the await: two steps in flight both end here.
          if (published || written < 1) return;
          published = true;
          await db.transaction().execute((tx) => publishEarlier(tx));
        },
      });
      assert.equal(published, true, "the earlier report was published while the later one was staged");
      const result = await db.transaction().execute((tx) => publishLater(tx));
      assert.deepEqual(
        [result.stored, result.skipped, result.warnings, result.counts.introduced],
        [0, { ALREADY_REPORTED: 3 }, [alreadyReported(3, earlier)], 4],
      );
      assert.ok((await occurrencesOf(scene.check.id)).every((o) => o.artifact_id === earlier.id));
    });
  }
});

describe("the files a report says its tool analyzed", () => {
  /** The artifact's analyzed files (`artifact_analyzed_paths`), sorted. */
  async function analyzedPathsOf(artifactId: string): Promise<string[]> {
    const rows = await db
      .selectFrom("artifact_analyzed_paths")
      .select("path")
      .where("artifact_id", "=", artifactId)
      .orderBy("path")
      .execute();
    return rows.map((row) => row.path);
  }

  const at = (uri: string) => [{ physicalLocation: { artifactLocation: { uri } } }];

  it("are its findings' files and the files its runs list, less those a notification of the tool names", async () => {
    const scene = await aScene();
    const artifact = await anArtifact(scene);
    const listed = ["src/a.js", "src/clean.js", "src/ignored.js", "src/unparsed.js", "src/more.js"];
    const sarif = JSON.stringify({
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "demo", rules: [{ id: "R" }] } },
          artifacts: [
            ...listed.map((uri) => ({ location: { uri } })),
            { location: { uri: "demo.config.js" }, roles: ["userSpecifiedConfiguration"] },
          ],
          results: [aResult("R", "src/a.js", 1), aResult("R", "src/a.js", 2), aResult("R", "src/b.js", 3)],
          invocations: [
            {
              toolExecutionNotifications: [
                { level: "warning", message: { text: "File ignored." }, locations: at("src/ignored.js") },
                { level: "error", message: { text: "Parsing error." }, locations: at("src/unparsed.js") },
              ],
            },
          ],
        },
      ],
    });
    // Batches of two files, a step each; what an earlier attempt staged is replaced.
    await stageText(scene, artifact, sarifLog([{ results: [aResult("R", "src/old.js", 1)] }]), {
      batchSize: 2,
    });
    assert.deepEqual(await analyzedPathsOf(artifact.id), ["src/old.js"]);
    const publish = await stageText(scene, artifact, sarif, { batchSize: 2 });
    const result = await db.transaction().execute((tx) => publish(tx));
    assert.equal(result.read, 3, "the listed files are not results");
    assert.deepEqual(await analyzedPathsOf(artifact.id), [
      "src/a.js",
      "src/b.js",
      "src/clean.js",
      "src/more.js",
    ]);
  });

  it("a report listing 20,000 files keeps every one of them, written a batch at a time", async () => {
    const scene = await aScene();
    const files = 20_000;
    const artifacts = Array.from({ length: files }, (_, n) => ({
      location: { uri: `file:///ci/checkout/packages/pkg-${n % 97}/src/module-${n}.js` },
    }));
    const sarif = JSON.stringify({
      version: "2.1.0",
      runs: [{ tool: { driver: { name: "ESLint" } }, artifacts, results: [aResult("R", "src/a.js", 1)] }],
    });
    const { artifact } = await ingest(scene, sarif, { workDir: "/ci/checkout", batchSize: 1000 });
    const { rows } = await sql<{ n: number; a: number }>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE path = 'src/a.js')::int AS a
      FROM artifact_analyzed_paths WHERE artifact_id = ${artifact.id}`.execute(db);
    assert.deepEqual(rows[0], { n: files + 1, a: 1 });
  });

  it("keep a path whatever characters it holds, once however often it is written", async () => {
    const scene = await aScene();
    const artifact = await anArtifact(scene);
    // What array text quotes or escapes: separators, braces, quotes, backslashes, blanks, NULL.
    const odd = [
      "a,b.js",
      "{x}.js",
      'q"uote.js',
      "back\\slash.js",
      " spaced .js",
      "NULL",
      "tab\there.js",
      "é/ü.js",
    ];
    await db.transaction().execute((tx) => insertArtifactAnalyzedPaths(tx, artifact.id, odd));
    await db
      .transaction()
      .execute((tx) => insertArtifactAnalyzedPaths(tx, artifact.id, ["NULL", "a,b.js", "plain.js"]));
    assert.deepEqual((await analyzedPathsOf(artifact.id)).sort(), [...odd, "plain.js"].sort());
  });
});

/** What validateSarif counted, with the tool's own errors as their number. */
function countsOf(summary: SarifSummary): Omit<SarifSummary, "toolErrors"> & { toolErrors: number } {
  return { ...summary, toolErrors: summary.toolErrors.count };
}

describe("GCC's header warnings repeated by a whole build", () => {
  it("after an upgrade, the copies an earlier version stored as findings of their own are resolved once; the finding stays", async () => {
    const fixture = toolFixture("sarif", "gcc", "gcc.json");
    const message = "comparison of unsigned expression in ‘< 0’ is always false";
    // What a version without REPEATED stored from the build: the header's warning twice, the
    // second copy told apart by its ordinal (the same rule, file and message).
    const copy = aResult("-Wtype-limits", "src/pricing.h", 8, { message });
    const base = await aScene();
    await ingest(base, sarifLog([{ results: [copy, copy] }]), { workDir: fixture.workDir });
    assert.deepEqual(await summaryOf(base.check.id), [
      "-Wtype-limits src/pricing.h:8:3 INTRODUCED",
      "-Wtype-limits src/pricing.h:8:3 INTRODUCED",
    ]);
    const head = await aNextScene(base);
    const { result } = await ingest(head, readToolFixture("sarif", "gcc", "gcc.json"), {
      baseCheckId: base.check.id,
      workDir: fixture.workDir,
    });
    assert.deepEqual(result.skipped, { REPEATED: 2 });
    const header = (await summaryOf(head.check.id)).filter((line) => line.includes("-Wtype-limits"));
    assert.deepEqual(header, [
      "-Wtype-limits src/pricing.h:8:3 RESOLVED",
      "-Wtype-limits src/pricing.h:8:31 EXISTING",
    ]);
    assert.equal(result.counts.resolved, 1);
  });
});

describe("validateSarif", () => {
  it("counts runs, results and rules of a valid report", async () => {
    const sarif = sarifLog([
      { rules: [{ id: "A" }, { id: "B" }], results: [aResult("A", "a.js", 1)] },
      { rules: [{ id: "C" }], results: [aResult("C", "a.js", 1), aResult("X", "b.js", 2)] },
    ]);
    assert.deepEqual(countsOf(await validateSarif(chunks(sarif), { root: null, directory: null })), {
      format: "sarif",
      runs: 2,
      results: 3,
      rules: 3,
      placed: 3,
      unplaced: {},
      firstOutside: null,
      firstNoLocation: null,
      toolErrors: 0,
    });
  });

  it("counts where results would go with the upload's workDir, as processing places them", async () => {
    const sarif = sarifLog([
      {
        results: [
          aResult("R", "file:///ci/checkout/src/a.js", 1),
          aResult("R", "file:///usr/include/stdio.h", 1),
          aResult("R", "/usr/lib/x.js", 1),
          { ruleId: "R", message: { text: "whole repository" } },
          aResult("R", "src/gone.js", 1, { baselineState: "absent" }),
        ],
      },
    ]);
    assert.deepEqual(
      countsOf(await validateSarif(chunks(sarif), { root: "/ci/checkout", directory: null })),
      {
        format: "sarif",
        runs: 1,
        results: 5,
        rules: 0,
        placed: 1,
        unplaced: { OUTSIDE_REPOSITORY: 2, NO_LOCATION: 1, ABSENT: 1 },
        firstOutside: "file:///usr/include/stdio.h",
        firstNoLocation: '"whole repository" of rule R',
        toolErrors: 0,
      },
    );
    const withoutWorkDir = await validateSarif(chunks(sarif), { root: null, directory: null });
    assert.equal(withoutWorkDir.placed, 0, "an absolute path has no place without a workDir");
    assert.equal(withoutWorkDir.firstOutside, "file:///ci/checkout/src/a.js");
  });

  it("reads cppcheck's XML as findings, and says so", async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<results version="2"><cppcheck version="2.10"/><errors>
<error id="nullPointer" severity="error" msg="Null pointer dereference: p" cwe="476"><location file="/ci/checkout/src/a.c" line="3" column="5"/></error>
<error id="missingIncludeSystem" severity="information" msg="Cppcheck cannot find all the include files"/>
</errors></results>`;
    assert.deepEqual(countsOf(await validateSarif(chunks(xml), { root: "/ci/checkout", directory: null })), {
      format: "cppcheck-xml",
      runs: 1,
      results: 2,
      rules: 0,
      placed: 1,
      unplaced: { NO_LOCATION: 1 },
      firstOutside: null,
      firstNoLocation: '"Cppcheck cannot find all the include files" of rule missingIncludeSystem',
      toolErrors: 0,
    });
    await assert.rejects(validateSarif(chunks('<results version="1"/>'), { root: null, directory: null }), {
      name: "CppcheckFormatError",
      problem: "UNSUPPORTED_VERSION",
    });
  });

  it("reads go vet's JSON as findings, and a package vet could not analyze as the tool's error", async () => {
    const vet = [
      "# example.com/a",
      "vet: a/a.go:3:9: undefined: x",
      "# example.com/b",
      JSON.stringify({
        "example.com/b": { printf: [{ posn: "/ci/checkout/b/b.go:4:2", message: "wrong verb" }] },
      }),
      "",
    ].join("\n");
    assert.deepEqual(countsOf(await validateSarif(chunks(vet), { root: "/ci/checkout", directory: null })), {
      format: "go-vet-json",
      runs: 1,
      results: 1,
      rules: 0,
      placed: 1,
      unplaced: {},
      firstOutside: null,
      firstNoLocation: null,
      toolErrors: 1,
    });
    await assert.rejects(
      validateSarif(chunks('# example.com/a\n{"example.com/a": 1}\n'), { root: null, directory: null }),
      {
        name: "GoVetFormatError",
        problem: "INVALID_STRUCTURE",
      },
    );
  });

  it("reads GCC's JSON as findings, and a file that does not compile as the tool's error", async () => {
    const gcc = [
      JSON.stringify([
        {
          kind: "error",
          message: "‘x’ undeclared",
          locations: [{ caret: { file: "a.c", line: 3, column: 9 } }],
        },
      ]),
      JSON.stringify([
        {
          kind: "warning",
          message: "leak",
          option: "-Wanalyzer-malloc-leak",
          metadata: { cwe: 401 },
          locations: [{ caret: { file: "/ci/checkout/b.c", line: 4, column: 2 } }],
        },
      ]),
      "",
    ].join("\n");
    assert.deepEqual(countsOf(await validateSarif(chunks(gcc), { root: "/ci/checkout", directory: null })), {
      format: "gcc-json",
      runs: 1,
      results: 1,
      rules: 0,
      placed: 1,
      unplaced: {},
      firstOutside: null,
      firstNoLocation: null,
      toolErrors: 1,
    });
  });

  it("throws the reader's SarifFormatError unchanged", async () => {
    await assert.rejects(
      validateSarif(chunks('{"version":"2.0.0","runs":[]}'), { root: null, directory: null }),
      (error: unknown) => {
        assert.ok(error instanceof SarifFormatError);
        assert.equal(error.problem, "UNSUPPORTED_VERSION");
        assert.match(error.message, /only "2\.1\.0"/);
        return true;
      },
    );
    await assert.rejects(
      validateSarif(chunks('{"version":"2.1.0","runs":[{"results":[]'), { root: null, directory: null }),
      {
        name: "SarifFormatError",
        problem: "INVALID_JSON",
      },
    );
  });
});

it("every check's issue counts equal its published findings after the tests above", () =>
  assertIssueCountsMatchFindings(db, "the tests above"));
