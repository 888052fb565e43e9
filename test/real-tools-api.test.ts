// test-runner: execution-mode independent (one upload flow per fixture; the read queries are ordinary and covered elsewhere in both modes)
import assert from "node:assert/strict";
import { isUtf8 } from "node:buffer";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { alternativesOf, parseCoverage } from "../src/formats/coverage/index.ts";
import {
  fixtureDir,
  listToolFixtures,
  listToolRuns,
  readRunSummary,
  type ToolFixture,
  type ToolSummary,
} from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { waitFor } from "./helpers/instance.ts";
import { assertIssueCountsMatchFindings } from "./helpers/issue-counts.ts";
import { gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Every real tool's report the fixture manifests list (src/formats/{sarif,coverage}/fixtures/,
 * made by scripts/make-fixtures.sh), uploaded through `uploadArtifact` with the directory the tool
 * ran in as `workDir`, processed by the server's worker, and read back through GraphQL: what the
 * API answers must be what the tool itself said in its summary (`*.summary.json`): how many
 * results, at which levels, per rule; how many lines and branches, and the percentages the tool
 * printed. Severities and categories follow docs/ingestion-sarif.md "Classification" and "Tool
 * families"; coverage values docs/ingestion-coverage.md "What is stored".
 *
 * The tables are driven by the manifests: a fixture added to one is uploaded and compared without
 * editing this file. A summary holding no figure this file knows how to compare, or a tool whose
 * documented mapping is not written down here, fails its test with a message saying so; nothing
 * is skipped.
 */

// --- The server ---------------------------------------------------------------------------------

let server: TestServer;
let account: AccountRow;
let token: string;

before(async () => {
  server = await startTestServer({ ASSAY_WORKER_POLL_MS: "20" });
  const user = await aUser(server.db);
  account = await anAccount(server.db, {}, [{ user, role: "MEMBER" }]);
  token = await aToken(server.db, server.config.tokenPepper, user);
});
after(() => server?.stop());

async function query<T>(text: string, variables: Record<string, unknown>): Promise<T> {
  const res = await gql<T>(server.endpoint, token, text, variables);
  assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
  return res.body.data!;
}

const UPLOAD = `mutation Upload($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error warnings artifact { id } }
}`;

const ARTIFACT_FIELDS = `status error format readCount storedCount skippedCount skipped { reason count } warnings`;

interface ArtifactOut {
  status: string;
  error: string | null;
  format: string | null;
  readCount: number | null;
  storedCount: number | null;
  skippedCount: number | null;
  skipped: Array<{ reason: string; count: number }>;
  warnings: string[];
}

/**
 * Asserts that the artifact was PROCESSED as `format`, reading `read` results and storing `stored`,
 * with these skips (none unless given) and their total.
 */
function assertProcessed(
  node: ArtifactOut,
  expected: { format: string; read: number; stored: number; skipped?: ArtifactOut["skipped"] },
): void {
  const skipped = expected.skipped ?? [];
  assert.deepEqual(
    {
      status: node.status,
      error: node.error,
      format: node.format,
      readCount: node.readCount,
      storedCount: node.storedCount,
      skippedCount: node.skippedCount,
      skipped: node.skipped,
    },
    {
      status: "PROCESSED",
      error: null,
      format: expected.format,
      readCount: expected.read,
      storedCount: expected.stored,
      skippedCount: skipped.reduce((sum, skip) => sum + skip.count, 0),
      skipped,
    },
  );
}

/**
 * Uploads a fixture's report to a repository of its own on its default branch, waits until the
 * worker has processed it (the artifact leaves QUEUED), and answers the artifact's global id.
 */
async function uploadFixture(
  fixture: ToolFixture,
  input: { analyzer: string; analyzerType?: string; key?: string },
  target?: { repository: RepositoryRow; commitOid: string },
): Promise<{ id: string; repository: RepositoryRow; warnings: string[] }> {
  const repository = target?.repository ?? (await aRepository(server.db, account));
  const data = await query<{
    uploadArtifact: { ok: boolean; error: string; warnings: string[]; artifact: { id: string } | null };
  }>(UPLOAD, {
    input: {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid: target?.commitOid ?? aCommitOid(),
      branch: repository.default_branch,
      analyzer: input.analyzer,
      analyzerType: input.analyzerType ?? null,
      key: input.key ?? null,
      workDir: fixture.workDir,
      ...(fixture.goModules ? { goModules: fixture.goModules } : {}),
      ...reportData(fixture),
    },
  });
  assert.equal(data.uploadArtifact.error, "", `${fixture.file} is accepted`);
  assert.ok(data.uploadArtifact.artifact);
  const id = data.uploadArtifact.artifact.id;
  await waitFor(
    `${fixture.file} to be processed`,
    async () => {
      const node = await query<{ node: { status: string } }>(
        `query($id: ID!) { node(id: $id) { ... on Artifact { status } } }`,
        { id },
      );
      return node.node.status !== "QUEUED";
    },
    30_000,
  );
  return { id, repository, warnings: data.uploadArtifact.warnings };
}

/**
 * The report as `uploadArtifact` data: its text, or, for a report whose bytes are not all UTF-8
 * (lcov 1.16's Latin-1 paths), those bytes gzipped, so that they reach the server as the tool
 * wrote them.
 */
function reportData(fixture: ToolFixture): { data: string; compression?: "GZIP" } {
  const bytes = fs.readFileSync(path.join(fixtureDir(fixture.kind), fixture.file));
  if (isUtf8(bytes)) return { data: bytes.toString("utf8") };
  return { data: gzipSync(bytes).toString("base64"), compression: "GZIP" };
}

function reportText(fixture: ToolFixture): string {
  return fs.readFileSync(path.join(fixtureDir(fixture.kind), fixture.file), "utf8");
}

function summaryOf(fixture: ToolFixture): ToolSummary {
  return JSON.parse(
    fs.readFileSync(path.join(fixtureDir(fixture.kind), fixture.summary), "utf8"),
  ) as ToolSummary;
}

/** A figure the summary must hold: fails the test (never skips it) when it is missing or not a number. */
function numberAt(source: string, value: unknown, ...keys: string[]): number {
  let at: unknown = value;
  for (const key of keys) at = (at as Record<string, unknown> | undefined)?.[key];
  const number = typeof at === "string" && at.trim() !== "" ? Number(at) : at;
  if (typeof number !== "number" || !Number.isFinite(number)) {
    throw new Error(
      `${source}: the summary has no number at ${keys.join(".")} (found ${JSON.stringify(at)})`,
    );
  }
  return number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// --- SARIF ---------------------------------------------------------------------------------------

type Level = "error" | "warning";
type Severity = "CRITICAL" | "MAJOR" | "MINOR";
const SEVERITY_ORDER: readonly Severity[] = ["CRITICAL", "MAJOR", "MINOR"];

/** What the tool's summary says: results per rule and level, and the warnings the upload must carry. */
interface SarifFigures {
  total: number;
  byRule: Map<string, Record<Level, number>>;
  warnings: string[];
}

/**
 * The warning ESLint's problems of no rule must give (`withoutRule`, from its JSON output), which
 * its SARIF formatter files under toolConfigurationNotifications: its unused directives, at
 * `error`, are errors about its configuration (docs/ingestion-sarif.md "The tool's own errors");
 * anything else there fails until this test says what it must give.
 */
function eslintNoticeWarnings(source: string, notices: unknown): string[] {
  if (notices === undefined) return [];
  if (!Array.isArray(notices)) throw new Error(`${source}: withoutRule is not a list`);
  const errors = notices.filter((notice) => isRecord(notice) && notice.level === "error");
  const first = errors[0] as { message: string; file: string; line: number } | undefined;
  if (first === undefined) return [];
  for (const { message } of errors as Array<{ message: string }>) {
    if (!message.startsWith("Unused eslint-disable directive"))
      throw new Error(`${source}: ESLint printed "${message}" with no rule: say what it must give`);
  }
  const what =
    errors.length === 1
      ? "1 error about its configuration, which is not a finding ("
      : `${errors.length} errors about its configuration, which are not findings (first: `;
  const notifications = errors.length === 1 ? "a notification" : "notifications";
  return [
    `The tool reported ${what}"${first.message}" at ${first.file}:${first.line}): ${notifications} about how it was set up or directed, not about code it could not analyze.`,
  ];
}

/**
 * The summary's results per rule and level. Linters (ESLint, Biome, oxlint) give errors and
 * warnings per rule; secretlint and clang give a count per rule (checker) and the totals per level,
 * from which every rule's level follows when all results share one level. Anything else fails.
 */
function sarifFigures(fixture: ToolFixture): SarifFigures {
  const { figures } = summaryOf(fixture);
  const source = fixture.summary;
  const perRule = figures.byRule ?? figures.byChecker;
  if (!isRecord(perRule))
    throw new Error(`${source}: the summary has no results per rule (byRule or byChecker)`);
  // ESLint counts its problems of no rule (an unused directive) among its errors: not results.
  const notices = Array.isArray(figures.withoutRule) ? figures.withoutRule.filter(isRecord) : [];
  const noticesAt = (level: Level) => notices.filter((notice) => notice.level === level).length;
  const errors =
    (figures.errors === undefined ? 0 : numberAt(source, figures, "errors")) - noticesAt("error");
  const warnings = numberAt(source, figures, "warnings") - noticesAt("warning");
  const total =
    figures.problems === undefined
      ? errors + warnings
      : numberAt(source, figures, "problems") - notices.length;
  assert.equal(errors + warnings, total, `${source}: the tool's problems are its errors and warnings`);
  const byRule = new Map<string, Record<Level, number>>();
  for (const [rule, counts] of Object.entries(perRule)) {
    if (isRecord(counts)) {
      byRule.set(rule, {
        error: numberAt(source, counts, "errors"),
        warning: numberAt(source, counts, "warnings"),
      });
    } else {
      const count = numberAt(source, perRule, rule);
      // A bare count per rule says the level only when every result of the run has the same one.
      if (errors === total) byRule.set(rule, { error: count, warning: 0 });
      else if (warnings === total) byRule.set(rule, { error: 0, warning: count });
      else throw new Error(`${source}: ${rule} has a bare count but the run mixes levels`);
    }
  }
  const sum = [...byRule.values()].reduce((n, c) => n + c.error + c.warning, 0);
  assert.equal(sum, total, `${source}: the per-rule figures add up to the tool's total`);
  return { total, byRule, warnings: eslintNoticeWarnings(source, figures.withoutRule) };
}

/** The parts of a SARIF log the documented mapping reads besides the rule id: the driver and its rules' properties. */
interface SarifDriver {
  name: string;
  ruleProperties: Map<string, Record<string, unknown>>;
  hasSecuritySeverity: boolean;
}

function sarifDriver(fixture: ToolFixture): SarifDriver {
  const log = JSON.parse(reportText(fixture)) as {
    runs: Array<{
      tool: { driver: { name: string; rules?: Array<{ id: string; properties?: Record<string, unknown> }> } };
      results?: Array<{ properties?: Record<string, unknown> }>;
    }>;
  };
  const names = new Set(log.runs.map((run) => run.tool.driver.name));
  assert.equal(names.size, 1, `${fixture.file}: one tool`);
  const ruleProperties = new Map<string, Record<string, unknown>>();
  let hasSecuritySeverity = false;
  for (const run of log.runs) {
    for (const rule of run.tool.driver.rules ?? []) {
      ruleProperties.set(rule.id, rule.properties ?? {});
      if (rule.properties?.["security-severity"] !== undefined) hasSecuritySeverity = true;
    }
    for (const result of run.results ?? []) {
      if (result.properties?.["security-severity"] !== undefined) hasSecuritySeverity = true;
    }
  }
  return { name: [...names][0]!, ruleProperties, hasSecuritySeverity };
}

const require = createRequire(import.meta.url);

/** ESLint's core rule types, from the ESLint installed here (its rules' `meta.type`). */
function eslintRuleType(rule: string): string | undefined {
  const { builtinRules } = require("eslint/use-at-your-own-risk") as {
    builtinRules: Map<string, { meta?: { type?: string } }>;
  };
  return builtinRules.get(rule)?.meta?.type;
}

/**
 * What typescript-eslint and stylelint said of their rules when they made the style-lint fixtures
 * (their summaries' `ruleFacts`): typescript-eslint's `meta.type` and stylistic configs,
 * stylelint's recommended config (the rules that avoid errors).
 */
function styleRuleFacts(name: string): Record<string, unknown> {
  const file = path.join(fixtureDir("sarif"), name.replace(/\.summary\.json$/, ""), name);
  const summary = JSON.parse(fs.readFileSync(file, "utf8")) as {
    figures: { ruleFacts: Record<string, unknown> };
  };
  return summary.figures.ruleFacts;
}

/** The HTMLHint rules of the style-lint fixture, by docs/ingestion-sarif.md's HTMLHint rows. */
const HTMLHINT_CATEGORY: Record<string, string> = {
  "alt-require": "BUG_RISK",
  "button-type-require": "BUG_RISK",
  "doctype-first": "BUG_RISK",
  "h1-require": "BUG_RISK",
  "html-lang-require": "BUG_RISK",
  "id-unique": "BUG_RISK",
  "input-requires-label": "BUG_RISK",
  "meta-charset-require": "BUG_RISK",
  "spec-char-escape": "BUG_RISK",
  "src-not-empty": "BUG_RISK",
  "tag-no-obsolete": "BUG_RISK",
  "tag-pair": "BUG_RISK",
  "title-require": "BUG_RISK",
  "attr-value-no-duplication": "ANTI_PATTERN",
  "inline-script-disabled": "ANTI_PATTERN",
  "inline-style-disabled": "ANTI_PATTERN",
  "style-disabled": "ANTI_PATTERN",
  "head-script-disabled": "PERFORMANCE",
  "attr-lowercase": "STYLE",
  "attr-value-double-quotes": "STYLE",
  "tagname-lowercase": "STYLE",
};

/** The lint scale (docs/ingestion-sarif.md "Severity" step 3): error → MAJOR; warning, note → MINOR. */
function lintScale(level: Level): Severity {
  return level === "error" ? "MAJOR" : "MINOR";
}

/**
 * A rule's category and the severity of its results at `level`, as docs/ingestion-sarif.md's
 * family table says for the tool. A tool the table here does not cover fails the test: write its
 * documented row down before adding its fixture.
 */
function documentedMapping(
  driver: SarifDriver,
  rule: string,
  level: Level,
): { category: string; severity: Severity } {
  const tool = driver.name.toLowerCase();
  if (["secretlint", "gitleaks", "trufflehog", "detect-secrets"].includes(tool)) {
    // secret-scanners: every rule SECRETS, CRITICAL whatever the level.
    return { category: "SECRETS", severity: "CRITICAL" };
  }
  if (tool === "clang") {
    // clang's analyzer writes no level: the family row fixes category and severity by checker.
    const bare = rule.replace(/^alpha\./, "");
    if (/^(security\.|optin\.taint\.)/.test(bare)) return { category: "SECURITY", severity: "MAJOR" };
    if (/^deadcode\./.test(bare)) return { category: "ANTI_PATTERN", severity: "MINOR" };
    if (/^optin\.performance\./.test(bare)) return { category: "PERFORMANCE", severity: "MINOR" };
    if (/^optin\.portability\./.test(bare)) return { category: "BUG_RISK", severity: "MINOR" };
    if (
      /^(core|cplusplus|unix|nullability|valist|osx|fuchsia|webkit|optin\.core|optin\.cplusplus)\./.test(bare)
    ) {
      return { category: "BUG_RISK", severity: "MAJOR" };
    }
    throw new Error(`clang checker ${rule} is in no family row this test knows`);
  }
  if (tool === "biome") {
    const group = rule.split("/")[1] ?? "";
    const category = {
      security: "SECURITY",
      correctness: "BUG_RISK",
      suspicious: "BUG_RISK",
      a11y: "BUG_RISK",
      performance: "PERFORMANCE",
      complexity: "ANTI_PATTERN",
      style: "STYLE",
    }[group];
    if (category === undefined)
      throw new Error(`Biome rule ${rule}: group ${group} is in no family row this test knows`);
    return { category, severity: lintScale(level) };
  }
  if (tool === "markdownlint-cli2" || tool === "markdownlint") {
    // markdownlint: every rule is about how Markdown is written.
    return { category: "STYLE", severity: lintScale(level) };
  }
  if (tool === "stylelint") {
    // stylelint: the rules its recommended config turns on avoid errors; the others enforce conventions.
    const { recommendedRules } = styleRuleFacts("stylelint.summary.json") as { recommendedRules: string[] };
    const category = recommendedRules.includes(rule) ? "BUG_RISK" : "STYLE";
    return { category, severity: lintScale(level) };
  }
  if (tool === "htmlhint") {
    // HTMLHint: the fixture's rules as docs/ingestion-sarif.md's HTMLHint rows file them.
    const category = HTMLHINT_CATEGORY[rule];
    if (category === undefined) throw new Error(`HTMLHint rule ${rule} is not written down here`);
    return { category, severity: lintScale(level) };
  }
  if (tool === "eslint" && rule.startsWith("@typescript-eslint/")) {
    // typescript-eslint: its stylistic configs' rules are style, the others by their meta.type.
    const facts = styleRuleFacts("typescript-eslint.summary.json") as {
      types: Record<string, string>;
      stylistic: string[];
    };
    const name = rule.slice("@typescript-eslint/".length);
    const type = facts.stylistic.includes(name) ? "stylistic" : facts.types[name];
    const category = { stylistic: "STYLE", problem: "BUG_RISK", suggestion: "ANTI_PATTERN" }[type ?? ""];
    if (category === undefined) throw new Error(`typescript-eslint rule ${rule}: no type (${type})`);
    return { category, severity: lintScale(level) };
  }
  if (tool === "eslint") {
    if (rule === "no-eval" || rule === "no-implied-eval")
      return { category: "SECURITY", severity: lintScale(level) };
    const type = eslintRuleType(rule);
    const category = { problem: "BUG_RISK", suggestion: "ANTI_PATTERN", layout: "STYLE" }[type ?? ""];
    if (category === undefined) throw new Error(`ESLint rule ${rule}: no core rule type (${type})`);
    return { category, severity: lintScale(level) };
  }
  if (tool === "oxlint") {
    if (rule === "eslint(no-eval)" || rule === "eslint(no-implied-eval)") {
      return { category: "SECURITY", severity: lintScale(level) };
    }
    if (rule.startsWith("jsx-a11y(")) return { category: "BUG_RISK", severity: lintScale(level) };
    const properties = driver.ruleProperties.get(rule) ?? {};
    if (properties.plugin === "jsdoc") return { category: "DOCUMENTATION", severity: lintScale(level) };
    const category = {
      correctness: "BUG_RISK",
      suspicious: "BUG_RISK",
      perf: "PERFORMANCE",
      style: "STYLE",
      pedantic: "ANTI_PATTERN",
      restriction: "ANTI_PATTERN",
    }[String(properties.category)];
    if (category === undefined) {
      throw new Error(
        `oxlint rule ${rule}: category ${String(properties.category)} is in no family row this test knows`,
      );
    }
    return { category, severity: lintScale(level) };
  }
  if (tool === "staticcheck") {
    // Staticcheck's rows fix the severity by check group, whatever the level.
    if (rule === "compile") return { category: "BUG_RISK", severity: "MAJOR" };
    if (rule === "SA1019") return { category: "ANTI_PATTERN", severity: "MINOR" };
    if (rule.startsWith("SA6")) return { category: "PERFORMANCE", severity: "MINOR" };
    if (rule.startsWith("SA")) return { category: "BUG_RISK", severity: "MAJOR" };
    if (["ST1000", "ST1020", "ST1021", "ST1022"].includes(rule))
      return { category: "DOCUMENTATION", severity: "MINOR" };
    if (rule.startsWith("ST1")) return { category: "STYLE", severity: "MINOR" };
    if (/^(S1|QF1|U1)/.test(rule) || rule === "staticcheck")
      return { category: "ANTI_PATTERN", severity: "MINOR" };
    throw new Error(`Staticcheck check ${rule} is in no family row this test knows`);
  }
  throw new Error(`no documented mapping for the tool "${driver.name}" in this test: add its family row`);
}

const SARIF_QUERY = `query($id: ID!) { node(id: $id) { ... on Artifact {
  ${ARTIFACT_FIELDS}
  check {
    status
    issues(first: 500) { totalCount edges { node { shortcode category severity } } }
    occurrences(first: 500) { totalCount }
    summary {
      occurrencesIntroduced
      occurrenceDistributionBySeverity { severity introduced }
      occurrenceDistributionByCategory { category introduced }
    }
  }
} } }`;

interface SarifCheckOut {
  status: string;
  issues: {
    totalCount: number;
    edges: Array<{ node: { shortcode: string; category: string; severity: string } }>;
  };
  occurrences: { totalCount: number };
  summary: {
    occurrencesIntroduced: number;
    occurrenceDistributionBySeverity: Array<{ severity: string; introduced: number }>;
    occurrenceDistributionByCategory: Array<{ category: string; introduced: number }>;
  };
}

/** The check's findings as `{ shortcode: { "CATEGORY SEVERITY": count } }`. */
function findingsPerIssue(check: SarifCheckOut): Record<string, Record<string, number>> {
  const perIssue: Record<string, Record<string, number>> = {};
  for (const { node: issue } of check.issues.edges) {
    const row = perIssue[issue.shortcode] ?? {};
    perIssue[issue.shortcode] = row;
    const key = `${issue.category} ${issue.severity}`;
    row[key] = (row[key] ?? 0) + 1;
  }
  return perIssue;
}

/**
 * The check stored each rule's findings with the category and severity `expected` gives
 * (`{ rule: { "CATEGORY SEVERITY": count } }`), and its summary counts them by severity, from
 * CRITICAL to MINOR.
 */
function assertFindingsAsDocumented(
  check: SarifCheckOut,
  expected: Record<string, Record<string, number>>,
): void {
  assert.deepEqual(findingsPerIssue(check), expected);
  const bySeverity: Record<string, number> = {};
  for (const row of Object.values(expected)) {
    for (const [key, count] of Object.entries(row)) {
      const severity = key.split(" ")[1]!;
      bySeverity[severity] = (bySeverity[severity] ?? 0) + count;
    }
  }
  assert.deepEqual(
    check.summary.occurrenceDistributionBySeverity,
    SEVERITY_ORDER.filter((s) => bySeverity[s] !== undefined).map((severity) => ({
      severity,
      introduced: bySeverity[severity],
    })),
    "occurrenceDistributionBySeverity, from CRITICAL to MINOR",
  );
}

/** `{ key: count }` of `items`, keys sorted. */
function tally(items: Iterable<string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

describe("every real tool's SARIF through the API, compared with the tool's own summary", () => {
  const fixtures = listToolFixtures("sarif").filter((fixture) => fixture.format === "sarif");
  it("the manifest lists SARIF fixtures, and findings only as SARIF, cppcheck XML, go vet JSON or GCC JSON", () => {
    assert.ok(fixtures.length > 0);
    assert.deepEqual(
      listToolFixtures("sarif").filter(
        (f) => !["sarif", "cppcheck-xml", "go-vet-json", "gcc-json"].includes(f.format),
      ),
      [],
    );
  });

  for (const fixture of fixtures) {
    it(`${fixture.file}: as many findings per rule and level as the tool counted, with the documented severity and category`, async () => {
      const figures = sarifFigures(fixture);
      const driver = sarifDriver(fixture);
      if (driver.hasSecuritySeverity) {
        // None of today's fixtures carries one; the bands (≥ 9.0 CRITICAL, ≥ 4.0 MAJOR, else MINOR)
        // apply per result and need per-result figures this comparison does not make yet.
        throw new Error(
          `${fixture.file} carries security-severity: extend this test with the documented bands`,
        );
      }
      const upload = await uploadFixture(fixture, { analyzer: fixture.tool, analyzerType: "community" });
      // The upload's answer says what processing says, before it.
      assert.deepEqual(upload.warnings, figures.warnings);
      const { node } = await query<{ node: ArtifactOut & { check: SarifCheckOut } }>(SARIF_QUERY, {
        id: upload.id,
      });

      // The artifact read every result the tool counted and stored each (all lie in the work directory).
      assertProcessed(node, { format: "SARIF 2.1.0", read: figures.total, stored: figures.total });
      assert.deepEqual(node.warnings, figures.warnings);

      // Each finding: per rule, as many of each severity as the tool counted at the level the
      // documented scale maps to it, and the rule's documented category.
      const check = node.check;
      assert.equal(check.issues.totalCount, figures.total, "Check.issues lists every finding");
      assert.equal(check.occurrences.totalCount, figures.total, "Check.occurrences lists every finding");
      const expected: Record<string, Record<string, number>> = {};
      const categories: string[] = [];
      for (const [rule, levels] of figures.byRule) {
        for (const level of ["error", "warning"] as const) {
          const count = levels[level];
          if (count === 0) continue;
          const mapped = documentedMapping(driver, rule, level);
          const row = expected[rule] ?? {};
          expected[rule] = row;
          const key = `${mapped.category} ${mapped.severity}`;
          row[key] = (row[key] ?? 0) + count;
          for (let i = 0; i < count; i++) categories.push(mapped.category);
        }
      }
      // A first run introduces everything: the summary's distributions are the tool's counts mapped.
      assertFindingsAsDocumented(check, expected);
      assert.equal(check.summary.occurrencesIntroduced, figures.total);
      assert.deepEqual(
        tally(
          check.summary.occurrenceDistributionByCategory.flatMap(({ category, introduced }) =>
            Array.from({ length: introduced }, () => category),
          ),
        ),
        tally(categories),
      );
    });
  }
});

// --- cppcheck XML ---------------------------------------------------------------------------------

/** cppcheck's summary: findings per check, with the check's severity, how many were inconclusive and how many named no file. */
interface CppcheckFigures {
  problems: number;
  withoutFile: number;
  byRule: Record<string, { severity: string; count: number; inconclusive: number; withoutFile: number }>;
}

/**
 * docs/ingestion-sarif.md "cppcheck XML": the category and severity of each cppcheck severity; an
 * inconclusive finding is one step lower.
 */
const CPPCHECK_MAPPING: Record<string, { category: string; severity: Severity }> = {
  error: { category: "BUG_RISK", severity: "MAJOR" },
  warning: { category: "BUG_RISK", severity: "MAJOR" },
  style: { category: "ANTI_PATTERN", severity: "MINOR" },
  performance: { category: "PERFORMANCE", severity: "MINOR" },
  portability: { category: "BUG_RISK", severity: "MINOR" },
  information: { category: "ANTI_PATTERN", severity: "MINOR" },
};

describe("cppcheck's XML through the API, compared with cppcheck's own summary", () => {
  const fixtures = listToolFixtures("sarif").filter((fixture) => fixture.format === "cppcheck-xml");
  it("the manifest lists a cppcheck fixture", () => assert.ok(fixtures.length > 0));

  for (const fixture of fixtures) {
    it(`${fixture.file}: every finding cppcheck printed with a file, by its severity; the one without a file counted`, async () => {
      const figures = summaryOf(fixture).figures as unknown as CppcheckFigures;
      const stored = figures.problems - figures.withoutFile;
      const upload = await uploadFixture(fixture, { analyzer: "cppcheck", analyzerType: "community" });
      const { node } = await query<{ node: ArtifactOut & { check: SarifCheckOut } }>(SARIF_QUERY, {
        id: upload.id,
      });
      assertProcessed(node, {
        format: "cppcheck XML 2",
        read: figures.problems,
        stored: stored,
        skipped: figures.withoutFile > 0 ? [{ reason: "NO_LOCATION", count: figures.withoutFile }] : [],
      });
      // The warning quotes the first finding of no file as cppcheck printed it (`nofile:0:0: …`).
      const noFile = /^nofile:0:0: [a-z]+: (?<message>.*) \[(?<id>[A-Za-z0-9_]+)\]$/m.exec(
        fs.readFileSync(path.join(fixtureDir("sarif"), fixture.toolOutput), "utf8"),
      )?.groups;
      assert.equal(noFile !== undefined, figures.withoutFile > 0, "cppcheck printed its findings of no file");
      const noFileWarning =
        noFile === undefined
          ? []
          : [
              `${figures.withoutFile} result(s) name no file (no location, or only logical ones) and were not stored (first: "${noFile.message}" of rule ${noFile.id}).`,
            ];
      assert.deepEqual(node.warnings, noFileWarning);
      assert.deepEqual(
        upload.warnings,
        noFile === undefined
          ? []
          : [
              `${figures.withoutFile} of ${figures.problems} results ${figures.withoutFile === 1 ? "names" : "name"} no file (no location, or only logical ones) and will not be stored (first: "${noFile.message}" of rule ${noFile.id}).`,
            ],
      );

      const expected: Record<string, Record<string, number>> = {};
      for (const [rule, { severity, count, inconclusive, withoutFile }] of Object.entries(figures.byRule)) {
        const mapped = CPPCHECK_MAPPING[severity];
        if (!mapped)
          throw new Error(`${fixture.summary}: cppcheck severity ${severity} has no documented mapping`);
        // A finding cppcheck printed as "nofile" is not stored.
        const located = count - withoutFile;
        if (located === 0) continue;
        const lowered = mapped.severity === "CRITICAL" ? "MAJOR" : "MINOR";
        const row = expected[rule] ?? {};
        expected[rule] = row;
        const sure = located - inconclusive;
        if (sure > 0) row[`${mapped.category} ${mapped.severity}`] = sure;
        if (inconclusive > 0) {
          const key = `${mapped.category} ${lowered}`;
          row[key] = (row[key] ?? 0) + inconclusive;
        }
      }
      assertFindingsAsDocumented(node.check, expected);
      assert.equal(node.check.issues.totalCount, stored);
    });
  }
});

// --- go vet JSON ---------------------------------------------------------------------------------

/** go vet's summary: findings per analyzer (vet run once per analyzer), and the packages it could not analyze. */
interface GoVetFigures {
  findings: number;
  toolErrors: number;
  byRule: Record<string, number>;
}

/** docs/ingestion-sarif.md "go vet": unkeyed fields and dead code are MINOR anti-patterns, the other analyzers' findings MAJOR bug risks. */
function goVetMapping(analyzer: string): { category: string; severity: Severity } {
  return analyzer === "composites" || analyzer === "unreachable"
    ? { category: "ANTI_PATTERN", severity: "MINOR" }
    : { category: "BUG_RISK", severity: "MAJOR" };
}

describe("go vet's JSON through the API, compared with vet's own output", () => {
  const fixtures = listToolFixtures("sarif").filter((fixture) => fixture.format === "go-vet-json");
  it("the manifest lists a go vet fixture", () => assert.ok(fixtures.length > 0));

  for (const fixture of fixtures) {
    it(`${fixture.file}: every finding vet printed, by its analyzer; the package vet could not analyze said`, async () => {
      const figures = summaryOf(fixture).figures as unknown as GoVetFigures;
      const { id } = await uploadFixture(fixture, { analyzer: "go-vet", analyzerType: "community" });
      const { node } = await query<{ node: ArtifactOut & { check: SarifCheckOut } }>(SARIF_QUERY, { id });
      assertProcessed(node, { format: "go vet JSON", read: figures.findings, stored: figures.findings });
      // The package that does not type-check: one warning, quoting vet's error with its place.
      assert.equal(figures.toolErrors, 1, "the fixture has one package vet could not analyze");
      assert.equal(node.warnings.length, 2, JSON.stringify(node.warnings));
      assert.match(
        node.warnings[0]!,
        /^The tool reported 1 error of its own, which is not a finding \("cannot use .*" at broken\/broken\.go:6\)/,
      );
      // A package is its directory: the base's findings in broken/ would be kept.
      assert.match(node.warnings[1]!, /^Not analyzed by the tool: broken\/\. /);

      const expected: Record<string, Record<string, number>> = {};
      for (const [analyzer, count] of Object.entries(figures.byRule)) {
        const mapped = goVetMapping(analyzer);
        expected[analyzer] = { [`${mapped.category} ${mapped.severity}`]: count };
      }
      assertFindingsAsDocumented(node.check, expected);
    });
  }
});

// --- GCC JSON ------------------------------------------------------------------------------------

/**
 * GCC's summary: the distinct warnings (`sort -u` of its text output's `file:line:col:` lines) per
 * option and level, the errors with no option, and the lines as printed, where a header's warning
 * comes once for each file that includes it.
 */
interface GccFigures {
  warnings: number;
  errors: number;
  notCompiled: number;
  byRule: Record<string, { errors: number; warnings: number }>;
  printed: { warnings: number; errors: number; notCompiled: number };
}

/**
 * docs/ingestion-sarif.md "GCC": the analyzer's warnings MAJOR (taint and exposure security, the
 * rest bug risks); unused code, shadowing, pedantry and sign and conversion warnings anti-patterns,
 * the other warnings bug risks, both on the lint scale.
 */
function gccMapping(option: string, level: Level): { category: string; severity: Severity } {
  if (/^-Wanalyzer-(tainted|exposure-through)-/.test(option))
    return { category: "SECURITY", severity: "MAJOR" };
  if (option.startsWith("-Wanalyzer-")) return { category: "BUG_RISK", severity: "MAJOR" };
  const cleanup = /^-W(unused|shadow|pedantic|sign-compare|sign-conversion|conversion)/.test(option);
  return { category: cleanup ? "ANTI_PATTERN" : "BUG_RISK", severity: lintScale(level) };
}

/** The findings GCC's distinct warnings must give, per issue, by category and severity. */
function gccExpected(figures: GccFigures): Record<string, Record<string, number>> {
  const expected: Record<string, Record<string, number>> = {};
  for (const [printed, levels] of Object.entries(figures.byRule)) {
    // GCC prints a warning made an error as [-Werror=<name>]; its issue is the warning's.
    const option = printed.replace(/^-Werror=/, "-W");
    for (const level of ["error", "warning"] as const) {
      const count = level === "error" ? levels.errors : levels.warnings;
      if (count === 0) continue;
      const mapped = gccMapping(option, level);
      const row = expected[option] ?? {};
      expected[option] = row;
      const key = `${mapped.category} ${mapped.severity}`;
      row[key] = (row[key] ?? 0) + count;
    }
  }
  return expected;
}

describe("GCC's JSON through the API, compared with GCC's own text output", () => {
  const fixtures = listToolFixtures("sarif").filter((fixture) => fixture.format === "gcc-json");
  it("the manifest lists a GCC fixture", () => assert.ok(fixtures.length > 0));

  for (const fixture of fixtures) {
    it(`${fixture.file}: every distinct warning GCC printed, by its option and level; a header's repeats counted once; the file that does not compile said`, async () => {
      const figures = summaryOf(fixture).figures as unknown as GccFigures;
      const distinct = figures.warnings + figures.errors;
      const printed = figures.printed.warnings + figures.printed.errors;
      assert.ok(printed > distinct, "the fixture has a header whose warnings GCC printed for two files");
      const { id } = await uploadFixture(fixture, { analyzer: "gcc", analyzerType: "community" });
      const { node } = await query<{ node: ArtifactOut & { check: SarifCheckOut } }>(SARIF_QUERY, { id });
      assertProcessed(node, {
        format: "GCC JSON",
        read: printed,
        stored: distinct,
        skipped: [{ reason: "REPEATED", count: printed - distinct }],
      });
      assert.equal(figures.notCompiled, 1, "the fixture has one file GCC could not compile");
      assert.equal(node.warnings.length, 3, JSON.stringify(node.warnings));
      assert.equal(
        node.warnings[0],
        `${printed - distinct} diagnostic(s) repeat one given earlier in the report (the same rule, message, file, line and column, as GCC prints a header's warning for each file that includes it) and were counted once.`,
      );
      assert.match(
        node.warnings[1]!,
        /^The tool reported 1 error of its own, which is not a finding \(".*" at src\/legacy\.c:3\)/,
      );
      assert.match(node.warnings[2]!, /^Not analyzed by the tool: src\/legacy\.c\. /);
      assert.equal(node.check.occurrences.totalCount, distinct);
      assertFindingsAsDocumented(node.check, gccExpected(figures));
    });

    it(`${fixture.file}: each file's output uploaded as a report of its own gives the same findings as the whole build's`, async () => {
      const figures = summaryOf(fixture).figures as unknown as GccFigures;
      const parts = fixture.byFile ?? [];
      assert.ok(parts.length > 1, "the manifest lists each GCC invocation's output (byFile)");
      const repository = await aRepository(server.db, account);
      const commitOid = aCommitOid();
      const nodes: Array<ArtifactOut & { check: SarifCheckOut }> = [];
      for (const part of parts) {
        // One upload processed before the next into the same run (see the placement test).
        const { id } = await uploadFixture(
          { ...fixture, file: part },
          { analyzer: "gcc", analyzerType: "community" },
          { repository, commitOid },
        );
        nodes.push((await query<{ node: ArtifactOut & { check: SarifCheckOut } }>(SARIF_QUERY, { id })).node);
      }
      const sum = (pick: (node: ArtifactOut) => number | null) =>
        nodes.reduce((n, node) => n + (pick(node) ?? 0), 0);
      const alreadyReported = sum(
        (node) => node.skipped.find((skip) => skip.reason === "ALREADY_REPORTED")?.count ?? 0,
      );
      assert.deepEqual(
        { read: sum((node) => node.readCount), stored: sum((node) => node.storedCount), alreadyReported },
        {
          read: figures.printed.warnings + figures.printed.errors,
          stored: figures.warnings + figures.errors,
          alreadyReported:
            figures.printed.warnings + figures.printed.errors - figures.warnings - figures.errors,
        },
      );
      assert.ok(nodes.every((node) => !node.skipped.some((skip) => skip.reason === "REPEATED")));
      // The check holds every part: the last one's answer is the whole check's.
      const last = nodes.at(-1)!;
      assert.equal(last.check.occurrences.totalCount, figures.warnings + figures.errors);
      assertFindingsAsDocumented(last.check, gccExpected(figures));
    });
  }
});

// --- Coverage ------------------------------------------------------------------------------------

interface Counts {
  covered: number;
  total: number;
}

/** A percentage the tool printed, and how it rounds. */
interface ToolPercent {
  figure: string;
  /** What it measures, with the counts the API answers. */
  of: "lines" | "branches" | "lines+branches";
  value: number;
  /**
   * `round`: to `decimals` places, halves up; `half-even`: a value exactly halfway to the even digit
   * (`roundHalfEven`); `truncate`: cut after `decimals` places; `exact`: unrounded.
   */
  rounding: "round" | "half-even" | "truncate" | "exact";
  decimals: number;
}

/** One file's figures as the tool gave them. */
interface FileFigures {
  path: string;
  lines: Counts;
  branches?: Counts;
}

/** What a coverage summary lets the test compare, each figure named after the summary's key. */
interface CoverageExpectation {
  counts: Array<{ figure: string; lines?: Counts; branches?: Counts }>;
  percents: ToolPercent[];
  files?: { figure: string; files: FileFigures[] };
  /** The files' repository paths, where the summary says where the tool found them (`go list`). */
  paths?: { figure: string; paths: string[] };
  /** Warnings the artifact must carry, where the summary's figures say the detail lacks something. */
  warnings: string[];
}

/**
 * Figures counting every file of the report, those outside the repository too (coverage.py's
 * Cobertura root and `coverage json` over all files): they are the repository's only when the
 * upload skipped no file; otherwise the summary must give the project's own figures.
 */
const WHOLE_REPORT_FIGURES = new Set(["coberturaRoot", "allFiles"]);

/**
 * Reads the figures a coverage summary holds (test/fixtures/tools/README.md says which tool gives
 * which). Each known figure is compared; a summary holding none of them fails the test.
 */
function coverageExpectation(fixture: ToolFixture, skippedFiles: number): CoverageExpectation {
  const { figures } = summaryOf(fixture);
  const source = fixture.summary;
  const expectation: CoverageExpectation = { counts: [], percents: [], warnings: [] };
  const applies = (figure: string) => !(WHOLE_REPORT_FIGURES.has(figure) && skippedFiles > 0);
  if (
    skippedFiles > 0 &&
    figures.projectFilesOnly === undefined &&
    figures.lcovSummaryOfProjectFiles === undefined
  ) {
    throw new Error(
      `${source}: the upload skipped ${skippedFiles} file(s) outside the repository, but the summary has no figures over the project's files only`,
    );
  }

  // `lcov --summary` of the LCOV file (or of its files in the project, lcov --remove of the rest): lines, branches.
  for (const figure of ["lcovSummary", "lcovSummaryOfLcovInfo", "lcovSummaryOfProjectFiles"]) {
    const value = figures[figure];
    if (value === undefined) continue;
    expectation.counts.push({
      figure,
      lines: {
        covered: numberAt(source, value, "lines", "covered"),
        total: numberAt(source, value, "lines", "total"),
      },
      branches: {
        covered: numberAt(source, value, "branches", "covered"),
        total: numberAt(source, value, "branches", "total"),
      },
    });
  }
  // Istanbul's coverage-summary.json (c8): counts, and percentages Istanbul truncates to two decimals.
  if (figures.jsonSummaryTotal !== undefined) {
    const total = figures.jsonSummaryTotal;
    const counts = (key: string) => ({
      covered: numberAt(source, total, key, "covered"),
      total: numberAt(source, total, key, "total"),
    });
    expectation.counts.push({
      figure: "jsonSummaryTotal",
      lines: counts("lines"),
      branches: counts("branches"),
    });
    for (const [key, of] of [
      ["lines", "lines"],
      ["branches", "branches"],
    ] as const) {
      expectation.percents.push({
        figure: `jsonSummaryTotal.${key}.pct`,
        of,
        value: numberAt(source, total, key, "pct"),
        rounding: "truncate",
        decimals: 2,
      });
    }
  }
  // Clover's project <metrics>: statements are the lines (Istanbul's lines, PHPUnit's `stmt`
  // lines), conditionals the branches its `cond` lines hold (c8's other reports of the same run
  // hold the same). PHPUnit with Xdebug's path coverage declares conditionals but writes no `cond`
  // line: the API then has no branches, and the artifact warns that the detail holds none.
  if (figures.cloverProjectMetrics !== undefined) {
    const metrics = figures.cloverProjectMetrics;
    const declaredBranches = {
      covered: numberAt(source, metrics, "coveredconditionals"),
      total: numberAt(source, metrics, "conditionals"),
    };
    const hasCondLines = fixture.format !== "clover" || /<line [^>]*type="cond"/.test(reportText(fixture));
    expectation.counts.push({
      figure: "cloverProjectMetrics",
      lines: {
        covered: numberAt(source, metrics, "coveredstatements"),
        total: numberAt(source, metrics, "statements"),
      },
      branches: hasCondLines ? declaredBranches : { covered: 0, total: 0 },
    });
    if (!hasCondLines && declaredBranches.total > 0) {
      expectation.warnings.push(
        `The report as a whole: <metrics conditionals coveredconditionals> declares ${declaredBranches.covered} of ${declaredBranches.total} branches covered, but its detail holds 0 of 0; the figures come from the detail.`,
      );
    }
  }
  // PHPUnit's --coverage-text summary: its lines, and their percentage to two decimals.
  if (isRecord(figures.coverageTextSummary)) {
    const lines = figures.coverageTextSummary.lines;
    expectation.counts.push({
      figure: "coverageTextSummary",
      lines: { covered: numberAt(source, lines, "covered"), total: numberAt(source, lines, "total") },
    });
    expectation.percents.push({
      figure: "coverageTextSummary.lines.percent",
      of: "lines",
      value: numberAt(source, lines, "percent"),
      rounding: "round",
      decimals: 2,
    });
  }
  // Cobertura's root attributes, and its line-rate and branch-rate (fractions, unrounded here).
  if (figures.coberturaRoot !== undefined && applies("coberturaRoot")) {
    const root = figures.coberturaRoot;
    expectation.counts.push({
      figure: "coberturaRoot",
      lines: {
        covered: numberAt(source, root, "lines-covered"),
        total: numberAt(source, root, "lines-valid"),
      },
      branches: {
        covered: numberAt(source, root, "branches-covered"),
        total: numberAt(source, root, "branches-valid"),
      },
    });
  }
  // coverage.py's `coverage json` totals: counts, and percent_covered over lines and branches together (CPCV).
  for (const figure of ["projectFilesOnly", "allFiles"]) {
    const value = figures[figure];
    if (!isRecord(value) || value.num_statements === undefined || !applies(figure)) continue;
    expectation.counts.push({
      figure,
      lines: {
        covered: numberAt(source, value, "covered_lines"),
        total: numberAt(source, value, "num_statements"),
      },
      branches: {
        covered: numberAt(source, value, "covered_branches"),
        total: numberAt(source, value, "num_branches"),
      },
    });
    expectation.percents.push({
      figure: `${figure}.percent_covered`,
      of: "lines+branches",
      value: numberAt(source, value, "percent_covered"),
      rounding: "exact",
      decimals: 0,
    });
  }
  // Node's test runner: the `all files` row of its coverage table, two decimals.
  if (isRecord(figures.allFiles) && figures.allFiles.linePercent !== undefined && applies("allFiles")) {
    for (const [key, of] of [
      ["linePercent", "lines"],
      ["branchPercent", "branches"],
    ] as const) {
      expectation.percents.push({
        figure: `allFiles.${key}`,
        of,
        value: numberAt(source, figures.allFiles, key),
        rounding: "round",
        decimals: 2,
      });
    }
  }
  // gcovr's JSON summary: totals, percentages to one decimal (Python's round), and per file.
  if (isRecord(figures.total) && figures.total.line_total !== undefined) {
    const total = figures.total;
    expectation.counts.push({
      figure: "total",
      lines: {
        covered: numberAt(source, total, "line_covered"),
        total: numberAt(source, total, "line_total"),
      },
      branches: {
        covered: numberAt(source, total, "branch_covered"),
        total: numberAt(source, total, "branch_total"),
      },
    });
    for (const [key, of] of [
      ["line_percent", "lines"],
      ["branch_percent", "branches"],
    ] as const) {
      expectation.percents.push({
        figure: `total.${key}`,
        of,
        value: numberAt(source, total, key),
        rounding: "half-even",
        decimals: 1,
      });
    }
    const list = figures.files;
    if (!Array.isArray(list)) throw new Error(`${source}: gcovr's summary has no files`);
    expectation.files = {
      figure: "files",
      files: list.map((file: Record<string, unknown>, i: number) => {
        const at = (key: string) => numberAt(source, list, String(i), key);
        return {
          path: String(file.filename),
          lines: { covered: at("line_covered"), total: at("line_total") },
          branches: { covered: at("branch_covered"), total: at("branch_total") },
        };
      }),
    };
  }
  // JaCoCo's report counters (missed, covered).
  if (figures.reportCounters !== undefined) {
    const counters = figures.reportCounters;
    const counts = (key: string) => {
      const covered = numberAt(source, counters, key, "covered");
      return { covered, total: covered + numberAt(source, counters, key, "missed") };
    };
    expectation.counts.push({ figure: "reportCounters", lines: counts("LINE"), branches: counts("BRANCH") });
  }
  // JaCoCo's CSV, one row per class: a class's lines lie in the file of its outermost class
  // (`Cart.Line` in Cart.java), in its package's folder, so a file's figures are its classes' sums.
  if (figures.csv !== undefined) {
    const csv = figures.csv;
    if (!Array.isArray(csv)) throw new Error(`${source}: JaCoCo's csv is not a list of rows`);
    const byFile = new Map<string, FileFigures>();
    csv.forEach((row: Record<string, unknown>, i: number) => {
      const at = (key: string) => numberAt(source, csv, String(i), key);
      const file = `${String(row.PACKAGE).replaceAll(".", "/")}/${String(row.CLASS).split(".")[0]}.java`;
      const entry = byFile.get(file) ?? {
        path: file,
        lines: { covered: 0, total: 0 },
        branches: { covered: 0, total: 0 },
      };
      entry.lines.covered += at("LINE_COVERED");
      entry.lines.total += at("LINE_COVERED") + at("LINE_MISSED");
      entry.branches!.covered += at("BRANCH_COVERED");
      entry.branches!.total += at("BRANCH_COVERED") + at("BRANCH_MISSED");
      byFile.set(file, entry);
    });
    expectation.files = { figure: "csv", files: [...byFile.values()] };
  }
  // `go list`'s directory of each package: a profile's file (an import path) is that directory's
  // file, so the API must list it there (modules in subdirectories, placed by the goModules sent).
  if (isRecord(figures.packages)) {
    const packages = figures.packages;
    const named = new Set(
      reportText(fixture)
        .split("\n")
        .slice(1)
        .filter((line) => line.trim() !== "")
        .map((line) => line.slice(0, line.indexOf(":"))),
    );
    expectation.paths = {
      figure: "packages",
      paths: [...named]
        .map((file) => `${String(packages[path.posix.dirname(file)])}/${path.posix.basename(file)}`)
        .sort(),
    };
  }
  // `go tool cover -func`: the total of statements, one decimal (Go's %.1f), for the profile's mode.
  if (figures.modulePath !== undefined || figures.goModules !== undefined) {
    const mode = /^mode: (\w+)/.exec(reportText(fixture))?.[1] ?? "";
    expectation.percents.push({
      figure: `${mode}.statementsPercent`,
      of: "lines",
      value: numberAt(source, figures, mode, "statementsPercent"),
      rounding: "half-even",
      decimals: 1,
    });
  }

  if (
    expectation.counts.length === 0 &&
    expectation.percents.length === 0 &&
    expectation.files === undefined
  ) {
    throw new Error(
      `${source}: the summary holds no figure this test knows how to compare (${Object.keys(figures).join(", ")})`,
    );
  }
  return expectation;
}

/** The tool's rounding of `covered / total` as a percentage. */
function asTool(percent: ToolPercent, counts: Counts): number {
  const exact = (counts.covered / counts.total) * 100;
  const scale = 10 ** percent.decimals;
  if (percent.rounding === "exact") return exact;
  if (percent.rounding === "half-even") return roundHalfEven(exact, percent.decimals);
  // Rounded in decimal on a fixed representation, so no float error decides a half.
  const scaled = Number((exact * scale).toFixed(6));
  return (percent.rounding === "round" ? Math.round(scaled) : Math.floor(scaled)) / scale;
}

/**
 * Rounds as Python's `round`, Go's `%.1f` and C's printf do: the double's exact binary value to the
 * nearest, a value exactly halfway (5 of 16 is 31.25%) to the even digit (31.2, where rounding
 * half up gives 31.3).
 */
function roundHalfEven(value: number, decimals: number): number {
  const [whole = "", fraction = ""] = value.toFixed(60).split("."); // every digit of a percentage's double
  if (!/^50*$/.test(fraction.slice(decimals))) return Number(value.toFixed(decimals));
  const kept = fraction.slice(0, decimals);
  const lastDigit = Number((whole + kept).slice(-1));
  return lastDigit % 2 === 0 ? Number(`${whole}.${kept}`) : Number(value.toFixed(decimals));
}

/**
 * The API's rounding of a metric (docs/ingestion-coverage.md "What is stored"): the percentage to
 * two decimals, halves up — computed here in integer arithmetic, so no float representation
 * decides a half.
 */
function asMetric(counts: Counts): number {
  const tenThousandths = Math.floor((counts.covered * 1_000_000) / counts.total); // the percentage × 10,000
  return Math.floor((tenThousandths + 50) / 100) / 100;
}

/** The language key of a report, by its files' extensions. */
function languageKey(fixture: ToolFixture): string {
  const report = parseCoverage(reportText(fixture), {
    workDir: fixture.workDir,
    ...(fixture.stripPrefixes ? { stripPrefixes: fixture.stripPrefixes } : {}),
  });
  const byExtension: Record<string, string> = {
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "javascript",
    ".py": "python",
    ".c": "cxx",
    ".h": "cxx",
    ".cc": "cxx",
    ".cpp": "cxx",
    ".java": "java",
    ".go": "go",
    ".php": "php",
  };
  const keys = new Set<string | undefined>(report.files.map((file) => byExtension[path.extname(file.path)]));
  assert.equal(
    keys.size,
    1,
    `${fixture.file}: the files of one language (${report.files.map((f) => f.path).join(", ")})`,
  );
  const key = [...keys][0];
  if (key === undefined) throw new Error(`${fixture.file}: no language key for ${report.files[0]?.path}`);
  return key;
}

const COVERAGE_QUERY = `query($id: ID!) { node(id: $id) { ... on Artifact {
  ${ARTIFACT_FIELDS}
  run { changesetStats {
    lines { overall overallCovered } branches { overall overallCovered }
  } }
  check {
    metrics { shortcode items { key latestValue } }
    coverageFiles(first: 500) { totalCount edges { node {
      path key lineCoverage branchCoverage lines { total covered } branches { total covered }
    } } }
  }
} } }`;

const REPOSITORY_METRICS = `query($login: String!, $name: String!) {
  repository(login: $login, name: $name, vcsProvider: GITHUB) {
    metrics(shortcodeIn: [LCV, BCV, CPCV]) { shortcode items { key latestValue } }
  }
}`;

interface CoverageArtifactOut extends ArtifactOut {
  run: {
    changesetStats: {
      lines: { overall: number | null; overallCovered: number | null };
      branches: { overall: number | null; overallCovered: number | null };
    };
  };
  check: {
    metrics: Array<{ shortcode: string; items: Array<{ key: string; latestValue: number | null }> }>;
    coverageFiles: {
      totalCount: number;
      edges: Array<{
        node: {
          path: string;
          key: string;
          lineCoverage: number | null;
          branchCoverage: number | null;
          lines: Counts;
          branches: Counts;
        };
      }>;
    };
  };
}

/** `{ shortcode: { key: value } }` of metrics as the API lists them. */
function metricValues(
  metrics: Array<{ shortcode: string; items: Array<{ key: string; latestValue: number | null }> }>,
): Record<string, Record<string, number | null>> {
  return Object.fromEntries(
    metrics.map((metric) => [
      metric.shortcode,
      Object.fromEntries(metric.items.map((item) => [item.key, item.latestValue])),
    ]),
  );
}

describe("every real tool's coverage report through the API, compared with the tool's own summary", () => {
  const fixtures = listToolFixtures("coverage");
  it("the manifest lists coverage reports and changed lines", () => {
    assert.ok(fixtures.some((f) => f.format !== "unified-diff"));
    assert.ok(fixtures.some((f) => f.format === "unified-diff"));
  });

  // The changed-lines fixtures (a CHANGES artifact, no check): the API tells how many files the
  // diff changed; the lines per file are compared with git's --numstat by the reader's own test
  // (src/ingestion/changes-fixture.test.ts), the API having no field for them.
  for (const fixture of fixtures.filter((f) => f.format === "unified-diff")) {
    it(`${fixture.file}: the run's changed files, as git's --numstat lists them with added lines`, async () => {
      const numstat = summaryOf(fixture).figures.files;
      if (!isRecord(numstat))
        throw new Error(`${fixture.summary}: the summary has no files (git diff --numstat)`);
      const added = Object.keys(numstat).filter(
        (file) => numberAt(fixture.summary, numstat, file, "added") > 0,
      );
      const { id } = await uploadFixture(fixture, { analyzer: "changes" });
      const { node } = await query<{ node: ArtifactOut & { kind: string } }>(
        `query($id: ID!) { node(id: $id) { ... on Artifact { kind ${ARTIFACT_FIELDS} } } }`,
        { id },
      );
      assert.deepEqual(node, {
        kind: "CHANGES",
        status: "PROCESSED",
        error: null,
        format: "unified diff",
        readCount: added.length,
        storedCount: added.length,
        skippedCount: 0,
        skipped: [],
        warnings: [],
      });
    });
  }

  for (const fixture of fixtures.filter((f) => f.format !== "unified-diff")) {
    it(`${fixture.file}: the lines, branches and percentages the tool reported`, async () => {
      const key = languageKey(fixture);
      const metricKey = {
        javascript: "JAVASCRIPT",
        python: "PYTHON",
        cxx: "C_AND_CPP",
        java: "JAVA",
        go: "GO",
        php: "PHP",
      }[key]!;
      const { id, repository, warnings } = await uploadFixture(fixture, { analyzer: "test-coverage", key });
      const { node } = await query<{ node: CoverageArtifactOut }>(COVERAGE_QUERY, { id });
      assert.equal(node.status, "PROCESSED", node.error ?? "");
      assert.equal(node.error, null);
      // A report with lines that are not UTF-8 (lcov 1.16's Latin-1 paths) is said to be read so,
      // at once in the upload's answer and on the processed artifact; any other is not.
      const readAsLatin1 = (said: string[]) => said.filter((w) => w.includes("were read as Latin-1")).length;
      const latin1 = reportData(fixture).compression === undefined ? 0 : 1;
      assert.deepEqual([readAsLatin1(warnings), readAsLatin1(node.warnings)], [latin1, latin1]);
      const outside = node.skipped.find((s) => s.reason === "OUTSIDE_REPOSITORY")?.count ?? 0;
      assert.deepEqual(
        node.skipped.filter((s) => s.reason !== "OUTSIDE_REPOSITORY"),
        [],
        "coverage files are skipped only for lying outside the repository",
      );
      assert.equal(node.readCount, (node.storedCount ?? 0) + outside);
      const expectation = coverageExpectation(fixture, outside);

      // The counts the API answers: the run's totals, and its files added up.
      const stats = node.run.changesetStats;
      const apiLines = { covered: stats.lines.overallCovered ?? -1, total: stats.lines.overall ?? -1 };
      const apiBranches = {
        covered: stats.branches.overallCovered ?? -1,
        total: stats.branches.overall ?? -1,
      };
      const files = node.check.coverageFiles.edges.map((edge) => edge.node);
      assert.equal(node.check.coverageFiles.totalCount, node.storedCount, "one CoverageFile per stored file");
      assert.deepEqual(
        files.reduce(
          (sum, file) => ({
            lines: {
              covered: sum.lines.covered + file.lines.covered,
              total: sum.lines.total + file.lines.total,
            },
            branches: {
              covered: sum.branches.covered + file.branches.covered,
              total: sum.branches.total + file.branches.total,
            },
          }),
          { lines: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 } },
        ),
        { lines: apiLines, branches: apiBranches },
        "the files add up to the run's totals",
      );

      for (const warning of expectation.warnings) {
        assert.ok(node.warnings.includes(warning), `the artifact warns: ${warning}`);
      }
      for (const { figure, lines, branches } of expectation.counts) {
        if (lines) assert.deepEqual(apiLines, lines, `lines: the tool's ${figure}`);
        if (branches) assert.deepEqual(apiBranches, branches, `branch outcomes: the tool's ${figure}`);
      }
      const countsOf = (of: ToolPercent["of"]): Counts =>
        of === "lines"
          ? apiLines
          : of === "branches"
            ? apiBranches
            : { covered: apiLines.covered + apiBranches.covered, total: apiLines.total + apiBranches.total };
      for (const percent of expectation.percents) {
        const counts = countsOf(percent.of);
        if (percent.rounding === "exact") {
          assert.ok(
            Math.abs(asTool(percent, counts) - percent.value) < 1e-9,
            `${percent.figure}: ${percent.value} is ${counts.covered} of ${counts.total}`,
          );
        } else {
          assert.equal(
            asTool(percent, counts),
            percent.value,
            `${percent.figure}, rounded as the tool rounds`,
          );
        }
      }

      // The metric values (a percentage rounded to two decimals, halves up), of the check and of
      // the repository (its default branch's newest), for the language and AGGREGATE alike.
      const expectedMetrics: Record<string, Record<string, number>> = {};
      const put = (shortcode: string, counts: Counts) => {
        if (counts.total === 0) return; // nothing to measure: the metric is left out
        const value = asMetric(counts);
        expectedMetrics[shortcode] = { AGGREGATE: value, [metricKey]: value };
      };
      put("LCV", apiLines);
      put("BCV", apiBranches);
      put("CPCV", countsOf("lines+branches"));
      const checkMetrics = metricValues(node.check.metrics);
      assert.deepEqual(
        Object.fromEntries(
          ["LCV", "BCV", "CPCV"].filter((s) => checkMetrics[s]).map((s) => [s, checkMetrics[s]]),
        ),
        expectedMetrics,
        "Check.metrics",
      );
      const repositoryMetrics = await query<{
        repository: {
          metrics: Array<{ shortcode: string; items: Array<{ key: string; latestValue: number | null }> }>;
        };
      }>(REPOSITORY_METRICS, { login: account.login, name: repository.name });
      const byShortcode = metricValues(repositoryMetrics.repository.metrics);
      for (const [shortcode, values] of Object.entries(expectedMetrics)) {
        assert.deepEqual(byShortcode[shortcode], values, `Repository.metrics ${shortcode}`);
      }

      if (expectation.paths) {
        assert.deepEqual(
          files.map((file) => file.path).sort(),
          expectation.paths.paths,
          `the files where the tool's ${expectation.paths.figure} puts them`,
        );
      }
      // Per file, where the tool's summary lists files.
      if (expectation.files) {
        assert.deepEqual(
          files
            .map((file) => ({
              path: file.path,
              lines: file.lines,
              ...(expectation.files!.files[0]?.branches ? { branches: file.branches } : {}),
            }))
            .sort((a, b) => a.path.localeCompare(b.path)),
          [...expectation.files.files].sort((a, b) => a.path.localeCompare(b.path)),
          `per file: the tool's ${expectation.files.figure}`,
        );
        for (const file of files) {
          assert.equal(
            file.lineCoverage,
            file.lines.total === 0 ? null : asMetric(file.lines),
            `${file.path} lineCoverage`,
          );
          assert.equal(
            file.branchCoverage,
            file.branches.total === 0 ? null : asMetric(file.branches),
            `${file.path} branchCoverage`,
          );
        }
      }
    });
  }
});

// --- Reports uploaded to one run together ------------------------------------------------------------

const RUN_QUERY = `query($id: ID!) { node(id: $id) { ... on Artifact {
  warnings
  run { changesetStats {
    lines { new newCovered overall overallCovered } branches { new newCovered overall overallCovered }
  } }
  check { coverageFiles(first: 500) { edges { node {
    path lines { total covered new newCovered } branches { total covered new newCovered }
  } } } }
} } }`;

interface RunCounts {
  new: number | null;
  newCovered: number | null;
  overall: number | null;
  overallCovered: number | null;
}

interface RunOut {
  warnings: string[];
  run: { changesetStats: { lines: RunCounts; branches: RunCounts } };
  check: {
    coverageFiles: {
      edges: Array<{
        node: {
          path: string;
          lines: { total: number; covered: number; new: number | null; newCovered: number | null };
        };
      }>;
    };
  };
}

/**
 * Whether a file the API lists by its report's path is the repository file `repositoryPath`
 * (docs/ingestion-coverage.md "Which changed file a report's file is"): the same path, JaCoCo's
 * package path that the repository path ends in below its source root, or one of the places of a
 * file under several Cobertura sources (`{invoices,tests}/totals.py`).
 */
function standsFor(fixture: ToolFixture, apiPath: string, repositoryPath: string): boolean {
  if (apiPath === repositoryPath) return true;
  if (fixture.format === "jacoco") return repositoryPath.endsWith(`/${apiPath}`);
  return alternativesOf(apiPath)?.includes(repositoryPath) ?? false;
}

/**
 * Compares the run with diff-cover's report on the same coverage report and diff: the changed
 * lines it measures and those it misses, in total and per file (diff-cover names files by their
 * repository path, and rounds its total percentage down to a whole number).
 */
function assertAsDiffCover(
  source: string,
  figures: Record<string, unknown>,
  out: RunOut,
  report: ToolFixture,
): void {
  const lines = numberAt(source, figures, "lines");
  const missing = numberAt(source, figures, "missing");
  const stats = out.run.changesetStats.lines;
  assert.deepEqual(
    { new: stats.new, newCovered: stats.newCovered },
    { new: lines, newCovered: lines - missing },
    "the changed lines diff-cover measures, and those it does not find missing",
  );
  assert.equal(Math.floor(((lines - missing) / lines) * 100), numberAt(source, figures, "percentCovered"));
  const perFile = figures.files;
  if (!isRecord(perFile)) throw new Error(`${source}: diff-cover's summary has no files`);
  const files = out.check.coverageFiles.edges.map((edge) => edge.node);
  for (const [repositoryPath, entry] of Object.entries(perFile)) {
    const matches = files.filter((file) => standsFor(report, file.path, repositoryPath));
    assert.equal(matches.length, 1, `one API file stands for ${repositoryPath}`);
    const file = matches[0]!;
    const missed = isRecord(entry) && Array.isArray(entry.missingLines) ? entry.missingLines.length : -1;
    assert.equal(
      (file.lines.new ?? 0) - (file.lines.newCovered ?? 0),
      missed,
      `${repositoryPath}: missed lines`,
    );
    assert.ok(
      Math.abs(
        ((file.lines.newCovered ?? 0) / (file.lines.new ?? 0)) * 100 -
          numberAt(source, perFile, repositoryPath, "percentCovered"),
      ) < 1e-9,
      `${repositoryPath}: diff-cover's percentage`,
    );
  }
  const withNewLines = files.filter((file) => (file.lines.new ?? 0) > 0);
  assert.equal(withNewLines.length, Object.keys(perFile).length, "no other file has changed lines");
}

/**
 * Compares the run's totals with `lcov --summary` of the tool's own merge of the same reports
 * (`lcov -a`): lines run by any report, branch outcomes taken by any (docs/ingestion-coverage.md
 * "One check, several reports").
 */
function assertAsLcovMerge(source: string, figures: Record<string, unknown>, out: RunOut): void {
  const { lines, branches } = out.run.changesetStats;
  const counts = (measure: string) => ({
    covered: numberAt(source, figures, measure, "covered"),
    total: numberAt(source, figures, measure, "total"),
  });
  assert.deepEqual(
    {
      lines: { covered: lines.overallCovered, total: lines.overall },
      branches: { covered: branches.overallCovered, total: branches.overall },
    },
    { lines: counts("lines"), branches: counts("branches") },
    "lines and branch outcomes: lcov --summary of lcov -a",
  );
}

/**
 * Compares the run with `go tool cover -func` of one profile covering what the run's profiles
 * cover together (a workspace's, against each module's own): the statements, one decimal, and
 * each file `go tool cover` names a function of, where `go list` puts its package.
 */
function assertAsGoCover(source: string, figures: Record<string, unknown>, out: RunOut): void {
  const mode = ["set", "count", "atomic"].find((key) => isRecord(figures[key]));
  if (mode === undefined || !isRecord(figures.packages))
    throw new Error(`${source}: no go tool cover figures`);
  const packages = figures.packages;
  const { lines } = out.run.changesetStats;
  const counts = { covered: lines.overallCovered ?? -1, total: lines.overall ?? -1 };
  assert.equal(
    roundHalfEven((counts.covered / counts.total) * 100, 1),
    numberAt(source, figures, mode, "statementsPercent"),
    "go tool cover's statements, rounded as Go rounds",
  );
  const functions = (figures[mode] as Record<string, unknown>).functions;
  if (!isRecord(functions)) throw new Error(`${source}: go tool cover's functions are missing`);
  const files = new Set(Object.keys(functions).map((key) => key.slice(0, key.indexOf(":"))));
  assert.deepEqual(
    out.check.coverageFiles.edges.map((edge) => edge.node.path).sort(),
    [...files]
      .map((file) => `${String(packages[path.posix.dirname(file)])}/${path.posix.basename(file)}`)
      .sort(),
    "each file where go list puts its package",
  );
}

describe("reports uploaded to one run together, compared with the tool that read them together", () => {
  const fixtures = listToolFixtures("coverage");
  const runs = listToolRuns("coverage");
  it("the coverage fixtures list runs of reports uploaded together", () => {
    assert.ok(runs.length > 0);
  });

  for (const run of runs) {
    it(`${run.name}: ${run.files.join(" + ")} give the figures of the tool's own reading`, async () => {
      const target = { repository: await aRepository(server.db, account), commitOid: aCommitOid() };
      let last: { id: string; fixture: ToolFixture } | undefined;
      for (const file of run.files) {
        const fixture = fixtures.find((f) => f.file === file);
        if (fixture === undefined) throw new Error(`${run.name}: ${file} is in no manifest entry`);
        const input =
          fixture.format === "unified-diff"
            ? { analyzer: "changes" }
            : { analyzer: "test-coverage", key: languageKey(fixture) };
        const { id } = await uploadFixture(fixture, input, target);
        if (fixture.format !== "unified-diff") last = { id, fixture };
      }
      if (last === undefined) throw new Error(`${run.name} uploads no coverage report`);
      const { node } = await query<{ node: RunOut }>(RUN_QUERY, { id: last.id });
      const { figures } = readRunSummary(run);
      let compared = 0;
      if (isRecord(figures.diffCover)) {
        assertAsDiffCover(run.summary, figures.diffCover, node, last.fixture);
        compared += 1;
      }
      if (isRecord(figures.lcovSummary)) {
        assertAsLcovMerge(run.summary, figures.lcovSummary, node);
        compared += 1;
      }
      if (figures.goModules !== undefined) {
        assertAsGoCover(run.summary, figures, node);
        compared += 1;
      }
      assert.ok(
        compared > 0,
        `${run.summary}: the summary holds no figure this test knows (${Object.keys(figures).join(", ")})`,
      );
    });
  }
});

it("every check's issue counts equal its published findings after the tests above", () =>
  assertIssueCountsMatchFindings(server.db, "the tests above"));
