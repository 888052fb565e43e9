// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  listToolFixtures,
  readFixtureFile,
  readToolFixture,
  readToolSummary,
  type ToolFixture,
} from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { aRepository } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { dataOf, gql } from "./helpers/server.ts";
import { startUploaderScene, type UploaderScene, uploadProcessed } from "./helpers/uploads.ts";

/**
 * Checkstyle XML from four real producers (ShellCheck, Checkstyle, ESLint's checkstyle formatter,
 * PHP_CodeSniffer) and ShellCheck's json1, json and gcc outputs, uploaded through `uploadArtifact` and compared
 * with what each tool printed itself (src/formats/checkstyle/fixtures/, made by
 * `scripts/make-fixtures.sh checkstyle`): every finding at the file, line and column the tool
 * printed, under the rule the tool names, with the severity and category
 * docs/ingestion-checkstyle.md gives it, written down here rather than taken from the code.
 */

interface Finding {
  file: string;
  line: number;
  column: number | null;
  severity: string;
  rule: string | null;
}

interface IssueOut {
  path: string;
  beginLine: number;
  beginColumn: number;
  shortcode: string;
  severity: string;
  category: string;
}

interface ArtifactOut {
  status: string;
  error: string | null;
  format: string | null;
  readCount: number | null;
  storedCount: number | null;
  skipped: Array<{ reason: string; count: number }>;
  warnings: string[];
  check: { issues: { totalCount: number; edges: Array<{ node: IssueOut }> } };
}

const READ = `query($id: ID!) { node(id: $id) { ... on Artifact {
  status error format readCount storedCount skipped { reason count } warnings
  check { issues(first: 500) { totalCount edges { node {
    path beginLine beginColumn shortcode severity category
  } } } }
} } }`;

/** The severity of a finding by the word each tool printed for it (lint scale: only errors are MAJOR). */
const SEVERITY: Record<string, Record<string, string>> = {
  shellcheck: { error: "MAJOR", warning: "MINOR", note: "MINOR" },
  checkstyle: { ERROR: "MAJOR", WARN: "MINOR", INFO: "MINOR" },
  eslint: { error: "MAJOR", warning: "MINOR" },
  phpcs: { error: "MAJOR", warning: "MINOR" },
};

/** ShellCheck's style-level rules in the fixture (json1 says so; checkstyle XML writes them as info). */
const SHELLCHECK_STYLE = new Set(["SC2004", "SC2006", "SC2007"]);
/** ESLint's rules in the fixture by their `meta.type` (problem, suggestion), no-eval apart. */
const ESLINT_CATEGORY: Record<string, string> = {
  "no-eval": "SECURITY",
  complexity: "ANTI_PATTERN",
  eqeqeq: "ANTI_PATTERN",
  "no-empty": "ANTI_PATTERN",
  "no-var": "ANTI_PATTERN",
  "no-debugger": "BUG_RISK",
  "no-dupe-keys": "BUG_RISK",
  "no-self-assign": "BUG_RISK",
  "no-undef": "BUG_RISK",
  "no-unreachable": "BUG_RISK",
  "no-unused-vars": "BUG_RISK",
  "use-isnan": "BUG_RISK",
};
/** Checkstyle's checks in the fixture, by the package of their class. */
const CHECKSTYLE_CATEGORY: Record<string, string> = {
  MissingJavadocMethod: "DOCUMENTATION",
  JavadocMethod: "DOCUMENTATION",
  EqualsHashCode: "ANTI_PATTERN",
  MagicNumber: "ANTI_PATTERN",
};

function categoryOf(fixture: ToolFixture, rule: string): string {
  // ShellCheck's checkstyle XML writes its style level as `info`, but an issue keeps the category
  // it was first filed under (docs/ingestion-sarif.md "A stored category stays"): json1, uploaded
  // first, filed the style rules STYLE.
  if (fixture.tool === "shellcheck") return SHELLCHECK_STYLE.has(rule) ? "STYLE" : "BUG_RISK";
  if (fixture.tool === "eslint") {
    const category = ESLINT_CATEGORY[rule];
    if (category === undefined) throw new Error(`ESLint rule ${rule} is not written down here`);
    return category;
  }
  if (fixture.tool === "checkstyle") return CHECKSTYLE_CATEGORY[rule] ?? "STYLE";
  // phpcs: no Commenting, CodeAnalysis or Metrics sniff in the fixture.
  return "STYLE";
}

const FORMAT_NAMES: Record<string, string> = {
  "checkstyle-xml": "checkstyle XML",
  "shellcheck-json1": "ShellCheck json1",
  "shellcheck-json": "ShellCheck JSON",
  "shellcheck-gcc": "ShellCheck gcc",
};

const fixtures = listToolFixtures("checkstyle");

let scene: UploaderScene;
before(async () => {
  scene = await startUploaderScene();
});
after(() => scene?.server.stop());

/** Where an upload goes: a repository of its own unless given, and the analyzer it is uploaded under. */
interface UploadTarget {
  repository?: Awaited<ReturnType<typeof aRepository>>;
  commitOid?: string;
  analyzer?: string;
}

async function upload(fixture: ToolFixture, target: UploadTarget = {}): Promise<ArtifactOut> {
  const { server, token, account } = scene;
  const repository = target.repository ?? (await aRepository(server.db, account));
  const name = fixture.file.slice(fixture.tool.length + 1);
  const { artifactId } = await uploadProcessed(server, token, {
    repositoryId: encodeGlobalId("Repository", repository.key),
    commitOid: target.commitOid ?? aCommitOid(),
    branch: repository.default_branch,
    analyzer: target.analyzer ?? fixture.tool,
    analyzerType: "community",
    workDir: fixture.workDir,
    data: readToolFixture("checkstyle", fixture.tool, name),
  });
  return dataOf(await gql(server.endpoint, token, READ, { id: artifactId })).node as ArtifactOut;
}

/** A check's findings as the API lists them: place, rule, severity and category. */
/**
 * In a new repository, a function that uploads `data` under the analyzer `shellcheck`, expects
 * a refusal and answers its reason.
 */
async function shellcheckRefusals(): Promise<(data: string) => Promise<string>> {
  const { server, token, account } = scene;
  const repository = await aRepository(server.db, account);
  return async (data: string): Promise<string> => {
    const answer = dataOf(
      await gql(
        server.endpoint,
        token,
        `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }`,
        {
          input: {
            repositoryId: encodeGlobalId("Repository", repository.key),
            commitOid: aCommitOid(),
            branch: repository.default_branch,
            analyzer: "shellcheck",
            analyzerType: "community",
            data,
          },
        },
      ),
    ).uploadArtifact as { ok: boolean; error: string };
    assert.equal(answer.ok, false);
    return answer.error;
  };
}

function storedFindings(artifact: ArtifactOut): string[] {
  return artifact.check.issues.edges
    .map(
      ({ node }) =>
        `${node.path}:${node.beginLine}:${node.beginColumn} ${node.shortcode} ${node.severity} ${node.category}`,
    )
    .sort();
}

function key(finding: { path: string; line: number; column: number | null; rule: string; severity: string }) {
  return `${finding.path}:${finding.line}:${finding.column ?? "-"} ${finding.rule} ${finding.severity}`;
}

describe("checkstyle XML and ShellCheck JSON of real tools, through the API", () => {
  it("the fixtures hold four producers of checkstyle XML and ShellCheck's JSON and gcc outputs", () => {
    assert.deepEqual(fixtures.map((fixture) => `${fixture.tool} ${fixture.format}`).sort(), [
      "checkstyle checkstyle-xml",
      "eslint checkstyle-xml",
      "phpcs checkstyle-xml",
      "shellcheck checkstyle-xml",
      "shellcheck shellcheck-gcc",
      "shellcheck shellcheck-json",
      "shellcheck shellcheck-json1",
    ]);
  });

  for (const fixture of fixtures) {
    it(`${fixture.file}: every finding the tool printed, at its place, rule, severity and category`, async () => {
      const name = fixture.file.slice(fixture.tool.length + 1);
      const figures = readToolSummary("checkstyle", fixture.tool, name).figures as {
        findings: Finding[];
      };
      const ruled = figures.findings.filter((finding) => finding.rule !== null);
      const withoutRule = figures.findings.length - ruled.length;
      // Plain json counts a tab as up to eight columns: its columns are not kept.
      const columns = fixture.format !== "shellcheck-json";
      const artifact = await upload(fixture);
      assert.equal(artifact.status, "PROCESSED", artifact.error ?? "");
      assert.equal(artifact.format, FORMAT_NAMES[fixture.format]);
      assert.equal(artifact.readCount, ruled.length);
      assert.equal(artifact.storedCount, ruled.length);
      assert.deepEqual(artifact.skipped, []);
      const issues = artifact.check.issues.edges.map((edge) => edge.node);
      assert.equal(artifact.check.issues.totalCount, ruled.length);
      const expected = ruled.map((finding) =>
        key({
          path: finding.file,
          line: finding.line,
          // Where the tool printed no column (Checkstyle's LineLength), the finding starts at the line's start.
          column: columns ? (finding.column ?? 1) : null,
          rule: finding.rule!,
          severity: SEVERITY[fixture.tool]![finding.severity]!,
        }),
      );
      const actual = issues.map((issue) =>
        key({
          path: issue.path,
          line: issue.beginLine,
          column: columns ? issue.beginColumn : null,
          rule: issue.shortcode,
          severity: issue.severity,
        }),
      );
      assert.deepEqual(actual.sort(), expected.sort());
      for (const issue of issues) {
        assert.equal(issue.category, categoryOf(fixture, issue.shortcode), `${issue.shortcode}'s category`);
      }
      // A problem of no rule (ESLint's unused eslint-disable directive) is said, not stored.
      assert.equal(
        artifact.warnings.some((warning) => warning.includes("about its configuration")),
        withoutRule > 0,
        artifact.warnings.join("\n"),
      );
    });
  }

  it("refuses a malformed report, entities (billion laughs) and ShellCheck JSON that is not, naming the problem", async () => {
    const refusal = await shellcheckRefusals();
    const laughs = `<?xml version="1.0"?>\n<!DOCTYPE checkstyle [\n<!ENTITY a "aaaaaaaaaa">\n<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\n]>\n<checkstyle><file name="a.sh"><error line="1" severity="error" message="&b;" source="ShellCheck.SC1000"/></file></checkstyle>`;
    assert.match(
      await refusal(laughs),
      /^the checkstyle XML report is invalid: line \d+: the document declares a DOCTYPE/,
    );
    assert.match(
      await refusal('<checkstyle version="4.3"><file name="a.sh"><error line="1"'),
      /^the checkstyle XML report is invalid: /,
    );
    assert.match(
      await refusal('{"comments": [{"file": "a.sh", "line": 1, "level": "error"}]}'),
      /^the ShellCheck JSON report is invalid: comment 1: it has no numeric "code"\.$/,
    );
  });

  it("ShellCheck's gcc and json1 outputs of the same scripts store the same findings, with the same fingerprints", async () => {
    const gcc = fixtures.find((fixture) => fixture.format === "shellcheck-gcc")!;
    const json1 = fixtures.find((fixture) => fixture.format === "shellcheck-json1")!;
    // An analyzer no other test uploads to: the categories are those the gcc output itself gives.
    const analyzer = `shellcheck-gcc-${aCommitOid().slice(0, 8)}`;
    const repository = await aRepository(scene.server.db, scene.account);
    const commitOid = aCommitOid();
    const fromGcc = await upload(gcc, { repository, commitOid, analyzer });
    assert.equal(fromGcc.status, "PROCESSED", fromGcc.error ?? "");
    assert.equal(fromGcc.format, "ShellCheck gcc");
    assert.equal(fromGcc.storedCount, 20);
    // json1 of the same scripts to the same check: each of its findings is one gcc's already
    // reported (the same fingerprint), so none is stored twice.
    const again = await upload(json1, { repository, commitOid, analyzer });
    assert.equal(again.status, "PROCESSED", again.error ?? "");
    assert.equal(again.storedCount, 0);
    assert.deepEqual(again.skipped, [{ reason: "ALREADY_REPORTED", count: 20 }]);
    // json1 alone, in another repository: the findings the gcc output stored.
    const fromJson1 = await upload(json1, { analyzer });
    assert.deepEqual(storedFindings(fromJson1), storedFindings(fromGcc));
    const styled = fromGcc.check.issues.edges.filter(({ node }) => node.category === "STYLE");
    assert.deepEqual(
      [...new Set(styled.map(({ node }) => node.shortcode))].sort(),
      [...SHELLCHECK_STYLE].sort(),
    );
  });

  it("refuses ShellCheck's tty, diff and quiet outputs, naming the outputs that are read", async () => {
    const refusal = await shellcheckRefusals();
    const named = /upload (?:its|ShellCheck's) `-f json1`, `-f gcc` or `-f checkstyle` output instead\.$/;
    const tty = await refusal(readFixtureFile("checkstyle", "shellcheck/shellcheck.tty"));
    assert.match(tty, /^the report is not read: this is ShellCheck's tty output \(-f tty\)/);
    assert.match(tty, named);
    const diff = await refusal(readFixtureFile("checkstyle", "shellcheck/shellcheck.diff"));
    assert.match(diff, /^the report is not read: this is a patch \(ShellCheck's -f diff/);
    assert.match(diff, named);
    const quiet = await refusal("");
    assert.match(
      quiet,
      /^the report is not read: the report is empty \(ShellCheck's -f quiet writes nothing/,
    );
    assert.match(quiet, named);
  });

  it("agrees with each tool's own totals: Checkstyle's errors, phpcs' errors and warnings", () => {
    const checkstyle = readToolSummary("checkstyle", "checkstyle", "checkstyle.xml").figures as {
      errors: number;
      findings: Finding[];
    };
    assert.equal(
      checkstyle.findings.filter((finding) => finding.severity === "ERROR").length,
      checkstyle.errors,
    );
    const phpcs = readToolSummary("checkstyle", "phpcs", "phpcs.xml").figures as {
      errors: number;
      warnings: number;
      findings: Finding[];
    };
    assert.equal(phpcs.findings.filter((finding) => finding.severity === "error").length, phpcs.errors);
    assert.equal(phpcs.findings.filter((finding) => finding.severity === "warning").length, phpcs.warnings);
  });
});
