// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fixtureDir } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { aRepository } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { dataOf, gql } from "./helpers/server.ts";
import { startUploaderScene, type UploaderScene, uploadProcessed } from "./helpers/uploads.ts";

/**
 * pylint's and Bandit's JSON (src/formats/sarif/fixtures/python-lint/, made by
 * `scripts/make-fixtures.sh python-lint` from test/fixtures/tools/python-lint/) uploaded through
 * the API, compared with the tools' own text output: every message or issue they printed, at the
 * place they printed it, with the severity and category docs/ingestion-python.md gives it; the
 * file that does not parse is the tool's own error: the check says the file was not analyzed and is
 * judged on the rest (docs/ingestion.md "Status").
 */

interface PythonFixture {
  tool: "pylint" | "bandit";
  file: string;
  format: string;
  workDir: string;
  summary: string;
}

interface PylintFigures {
  messages: number;
  byCategory: Record<string, number>;
  byRule: Record<string, { symbol: string; count: number; places: string[] }>;
}

interface BanditFigures {
  issues: number;
  bySeverity: Record<string, number>;
  byRule: Record<string, { name: string; count: number; severities: string[]; places: string[] }>;
  skipped: Array<{ path: string; reason: string }>;
}

const FOLDER = path.join(fixtureDir("sarif"), "python-lint");
const fixtures = JSON.parse(fs.readFileSync(path.join(FOLDER, "manifest.json"), "utf8")) as PythonFixture[];
const fixtureOf = (tool: string) => fixtures.find((fixture) => fixture.tool === tool)!;
const figuresOf = <T>(fixture: PythonFixture): T =>
  (JSON.parse(fs.readFileSync(path.join(FOLDER, fixture.summary), "utf8")) as { figures: T }).figures;

let scene: UploaderScene;
before(async () => {
  scene = await startUploaderScene();
});
after(() => scene?.server.stop());

const READ = `query($id: ID!) { node(id: $id) { ... on Artifact {
  status error format readCount storedCount warnings
  check {
    status
    issues(first: 100) { edges { node { shortcode category severity } } }
    occurrences(first: 100) { totalCount edges { node { path beginLine issue { shortcode title } } } }
  }
} } }`;

interface ArtifactOut {
  status: string;
  error: string | null;
  format: string;
  readCount: number;
  storedCount: number;
  warnings: string[];
  check: {
    status: string;
    issues: { edges: Array<{ node: { shortcode: string; category: string; severity: string } }> };
    occurrences: {
      totalCount: number;
      edges: Array<{
        node: { path: string; beginLine: number; issue: { shortcode: string; title: string } };
      }>;
    };
  };
}

async function upload(fixture: PythonFixture): Promise<ArtifactOut> {
  const { server, token, account } = scene;
  const repository = await aRepository(server.db, account);
  const { artifactId } = await uploadProcessed(server, token, {
    repositoryId: encodeGlobalId("Repository", repository.key),
    commitOid: aCommitOid(),
    branch: repository.default_branch,
    analyzer: fixture.tool,
    analyzerType: "community",
    workDir: fixture.workDir,
    data: fs.readFileSync(path.join(FOLDER, fixture.file), "utf8"),
  });
  return dataOf(await gql(server.endpoint, token, READ, { id: artifactId })).node as ArtifactOut;
}

/**
 * The check's places per issue, `path:line` sorted; the categories and severities of each issue's
 * findings (the check's flat `issues` rows); each issue's title.
 */
function findingsOf(node: ArtifactOut) {
  const places: Record<string, string[]> = {};
  for (const { node: occurrence } of node.check.occurrences.edges) {
    const list = places[occurrence.issue.shortcode] ?? [];
    places[occurrence.issue.shortcode] = list;
    list.push(`${occurrence.path}:${occurrence.beginLine}`);
  }
  for (const list of Object.values(places)) list.sort();
  const gradeSets: Record<string, Set<string>> = {};
  for (const { node: finding } of node.check.issues.edges) {
    const set = gradeSets[finding.shortcode] ?? new Set();
    gradeSets[finding.shortcode] = set;
    set.add(`${finding.category} ${finding.severity}`);
  }
  const grades = Object.fromEntries(Object.entries(gradeSets).map(([id, set]) => [id, [...set].join(", ")]));
  const titles = Object.fromEntries(
    node.check.occurrences.edges.map(({ node: occurrence }) => [
      occurrence.issue.shortcode,
      occurrence.issue.title,
    ]),
  );
  return { places, grades, titles };
}

/**
 * The file the tool could not parse (shop/legacy.py) is its one error of its own, quoted as
 * `quoted` (a regular expression) and named as not analyzed; the check is judged on the rest.
 */
function assertLegacyUnanalyzed(node: ArtifactOut, quoted: string): void {
  assert.notEqual(node.check.status, "NEUTRAL");
  assert.equal(node.warnings.length, 2, JSON.stringify(node.warnings));
  assert.match(node.warnings[1]!, /^Not analyzed by the tool: shop\/legacy\.py\. /);
  assert.match(
    node.warnings[0]!,
    new RegExp(`^The tool reported 1 error of its own, which is not a finding \\(${quoted}\\)`),
  );
}

/** docs/ingestion-python.md: pylint's type is its level (error MAJOR, the others MINOR), the family rows its category. */
function pylintGrade(id: string): string {
  if (["W0122", "W0123"].includes(id)) return "SECURITY MINOR";
  if (["C0112", "C0114", "C0115", "C0116"].includes(id)) return "DOCUMENTATION MINOR";
  if (["W0105", "W0107", "W0108", "W0401", "W0404", "W0611", "W0612", "W0613", "W0614"].includes(id))
    return "ANTI_PATTERN MINOR";
  const byType: Record<string, string> = {
    E: "BUG_RISK MAJOR",
    W: "BUG_RISK MINOR",
    R: "ANTI_PATTERN MINOR",
    C: "STYLE MINOR",
    I: "ANTI_PATTERN MINOR",
  };
  return byType[id[0]!]!;
}

/** docs/ingestion-python.md: Bandit's HIGH and MEDIUM are MAJOR, LOW MINOR; every test is security. */
const BANDIT_GRADE: Record<string, string> = {
  High: "SECURITY MAJOR",
  Medium: "SECURITY MAJOR",
  Low: "SECURITY MINOR",
};

describe("pylint's and Bandit's JSON through the API, compared with the tools' own output", () => {
  for (const fixture of fixtures.filter(({ tool }) => tool === "pylint")) {
    it(`pylint (${fixture.format}): every message it printed, at its place, graded by its type; the file that does not parse is its own error`, async () => {
      const figures = figuresOf<PylintFigures>(fixture);
      const node = await upload(fixture);
      assert.equal(node.status, "PROCESSED", node.error ?? "");
      assert.equal(node.format, "pylint JSON");
      const { E0001: syntaxError, ...findings } = figures.byRule;
      assert.ok(syntaxError, "the fixture has a file pylint could not parse");
      const total = Object.values(figures.byCategory).reduce((n, count) => n + count, 0);
      assert.equal(total, figures.messages, "pylint's report counts every message it printed");
      assert.equal(node.readCount, figures.messages - syntaxError.count);
      assert.equal(node.storedCount, figures.messages - syntaxError.count);
      assert.equal(node.check.occurrences.totalCount, figures.messages - syntaxError.count);
      const { places, grades, titles } = findingsOf(node);
      assert.deepEqual(
        places,
        Object.fromEntries(Object.entries(findings).map(([id, rule]) => [id, rule.places])),
      );
      assert.deepEqual(grades, Object.fromEntries(Object.keys(findings).map((id) => [id, pylintGrade(id)])));
      assert.deepEqual(
        titles,
        Object.fromEntries(Object.entries(findings).map(([id, rule]) => [id, `${rule.symbol} (${id})`])),
      );
      assertLegacyUnanalyzed(node, `".*" at ${syntaxError.places[0]}`);
    });
  }

  it("Bandit: every issue it printed, at its place, graded by its severity; the file it skipped is its own error", async () => {
    const fixture = fixtureOf("bandit");
    const figures = figuresOf<BanditFigures>(fixture);
    const node = await upload(fixture);
    assert.equal(node.status, "PROCESSED", node.error ?? "");
    assert.equal(node.format, "Bandit JSON");
    const total = Object.values(figures.bySeverity).reduce((n, count) => n + count, 0);
    assert.equal(total, figures.issues, "Bandit's run metrics count every issue it printed");
    assert.equal(node.storedCount, figures.issues);
    assert.equal(node.check.occurrences.totalCount, figures.issues);
    const { places, grades, titles } = findingsOf(node);
    assert.deepEqual(
      places,
      Object.fromEntries(Object.entries(figures.byRule).map(([id, rule]) => [id, rule.places])),
    );
    assert.deepEqual(
      grades,
      Object.fromEntries(
        Object.entries(figures.byRule).map(([id, rule]) => {
          assert.equal(rule.severities.length, 1, `${id} has one severity in the fixture`);
          return [id, BANDIT_GRADE[rule.severities[0]!]];
        }),
      ),
    );
    assert.deepEqual(
      titles,
      Object.fromEntries(Object.entries(figures.byRule).map(([id, rule]) => [id, `${rule.name} (${id})`])),
    );
    assert.equal(figures.skipped.length, 1, "the fixture has a file Bandit could not parse");
    assertLegacyUnanalyzed(node, `"${figures.skipped[0]!.reason}" at ${figures.skipped[0]!.path}`);
  });

  it("a pylint or Bandit report cut short is refused, naming the format, the problem and the line", async () => {
    const { server, token, account } = scene;
    const repository = await aRepository(server.db, account);
    const cases = [
      [
        "pylint",
        fs.readFileSync(path.join(FOLDER, "pylint.json"), "utf8").slice(0, 300),
        /^the pylint JSON report is invalid: line \d+: the list of messages is not closed: the report looks truncated\.$/,
      ],
      [
        "pylint",
        fs.readFileSync(path.join(FOLDER, "pylint4.json2"), "utf8").slice(0, 300),
        /^the pylint JSON report is invalid: line \d+: the report is not closed: the report looks truncated\.$/,
      ],
      [
        "bandit",
        '{\n  "errors": [],\n  "metrics": {}\n}\n',
        /^the report is invalid: it has no "results" list: Bandit's JSON report is an object/,
      ],
    ] as const;
    for (const [analyzer, data, error] of cases) {
      const answer = dataOf(
        await gql(
          server.endpoint,
          token,
          "mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }",
          {
            input: {
              repositoryId: encodeGlobalId("Repository", repository.key),
              commitOid: aCommitOid(),
              branch: repository.default_branch,
              analyzer,
              analyzerType: "community",
              data,
            },
          },
        ),
      ).uploadArtifact as { ok: boolean; error: string };
      assert.equal(answer.ok, false);
      assert.match(answer.error, error);
    }
  });

  it("pylint's report of a module it finds nothing in, an empty list, is pylint's under pylint and named an empty list under an analyzer that does not say", async () => {
    const pylint = fixtureOf("pylint");
    const clean = fs.readFileSync(path.join(FOLDER, "pylint-clean.json"), "utf8");
    assert.equal(clean.trim(), "[]", "pylint wrote an empty list");
    assert.match(
      fs.readFileSync(path.join(FOLDER, "pylint-clean.tool-output.txt"), "utf8"),
      /rated at 10\.00\/10/,
      "pylint found nothing",
    );
    const { server, token, account } = scene;
    const formatUnder = async (analyzer: string) => {
      const repository = await aRepository(server.db, account);
      const { artifactId } = await uploadProcessed(server, token, {
        repositoryId: encodeGlobalId("Repository", repository.key),
        commitOid: aCommitOid(),
        branch: repository.default_branch,
        analyzer,
        analyzerType: "community",
        workDir: pylint.workDir,
        data: clean,
      });
      const node = dataOf(await gql(server.endpoint, token, READ, { id: artifactId })).node as ArtifactOut;
      assert.equal(node.status, "PROCESSED", node.error ?? "");
      assert.equal(node.readCount, 0);
      assert.equal(node.check.occurrences.totalCount, 0);
      return node.format;
    };
    assert.equal(await formatUnder("pylint"), "pylint JSON");
    assert.equal(await formatUnder("PyLint"), "pylint JSON", "the shortcode's case does not matter");
    assert.equal(await formatUnder("lint-report"), "empty JSON list");
  });
});
