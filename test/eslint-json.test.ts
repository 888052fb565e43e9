// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { AccountRow, RepositoryRow } from "../src/db/types.ts";
import { fixtureDir } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { dataOf, gql } from "./helpers/server.ts";
import { startUploaderScene, type UploaderScene, uploadProcessed } from "./helpers/uploads.ts";

/**
 * ESLint's own JSON outputs (`--format json`, `--format json-with-metadata`) of the js-lint run
 * whose SARIF src/formats/sarif/fixtures/eslint/ holds (scripts/make-fixtures.sh eslint), uploaded
 * through `uploadArtifact` under the `eslint` analyzer: the check holds what ESLint's own summary
 * counts, by severity and rule, and exactly what the SARIF upload of the same run holds; a branch
 * whose runs switch between the formats neither resolves nor introduces anything; the
 * json-with-metadata's rule descriptions title the issues as the SARIF's do; js-suppressed's
 * `suppressedMessages` are its silenced findings; and js-local-plugin's plugin rules, which no
 * family row names, are judged by the `meta.type` its json-with-metadata gives them after its
 * results (docs/ingestion-sarif.md "ESLint's JSON").
 */

const LINT = path.join(fixtureDir("sarif"), "eslint");
const SUPPRESSIONS = path.join(import.meta.dirname, "fixtures", "suppressions");
const LOCAL_PLUGIN = path.join(import.meta.dirname, "fixtures", "local-plugin");
const read = (folder: string, file: string) => fs.readFileSync(path.join(folder, file), "utf8");

interface LintSummary {
  workDir: string;
  figures: {
    problems: number;
    errors: number;
    warnings: number;
    byRule: Record<string, { errors: number; warnings: number }>;
    withoutRule: unknown[];
  };
}
const SUMMARY = JSON.parse(read(LINT, "eslint.summary.json")) as LintSummary;
const REPORTS = {
  sarif: read(LINT, "eslint.sarif"),
  json: read(LINT, "eslint.json"),
  metadata: read(LINT, "eslint-metadata.json"),
};
type Report = keyof typeof REPORTS;

let scene: UploaderScene;
before(async () => {
  scene = await startUploaderScene();
});
after(() => scene?.server.stop());

/** A member of an account of its own (whose issue catalog no other test's upload filled), with a token. */
async function aMember(): Promise<{ account: AccountRow; token: string }> {
  const user = await aUser(scene.server.db);
  const account = await anAccount(scene.server.db, {}, [{ user, role: "MEMBER" }]);
  return { account, token: await aToken(scene.server.db, scene.server.config.tokenPepper, user) };
}

interface Finding {
  path: string;
  beginLine: number;
  beginColumn: number;
  endLine: number;
  endColumn: number;
  shortcode: string;
  category: string;
  severity: string;
  issue: { title: string };
}
interface ArtifactOut {
  status: string;
  format: string;
  readCount: number;
  storedCount: number;
  warnings: string[];
  check: {
    summary: {
      occurrencesIntroduced: number;
      occurrencesResolved: number;
      occurrenceDistributionBySeverity: Array<{ severity: string; introduced: number }>;
    };
    issues: { totalCount: number; edges: Array<{ node: Finding }> };
  };
}

const READ = `query($id: ID!) { node(id: $id) { ... on Artifact {
  status format readCount storedCount warnings
  check {
    summary {
      occurrencesIntroduced occurrencesResolved
      occurrenceDistributionBySeverity { severity introduced }
    }
    issues(first: 100) { totalCount edges { node {
      path beginLine beginColumn endLine endColumn shortcode category severity issue { title }
    } } }
  }
} } }`;

/** Uploads a report of the js-lint run (or `data`) for a new commit of `repository`'s default branch. */
async function upload(
  repository: RepositoryRow,
  token: string,
  data: string,
  workDir = SUMMARY.workDir,
): Promise<ArtifactOut> {
  const { artifactId } = await uploadProcessed(scene.server, token, {
    repositoryId: encodeGlobalId("Repository", repository.key),
    commitOid: aCommitOid(),
    branch: repository.default_branch,
    analyzer: "eslint",
    analyzerType: "community",
    workDir,
    data,
  });
  return dataOf(await gql(scene.server.endpoint, token, READ, { id: artifactId })).node as ArtifactOut;
}

/** Each report uploaded once, each into a repository of an account of its own. */
const uploaded = new Map<Report, ArtifactOut>();
async function uploadedOnce(report: Report): Promise<ArtifactOut> {
  const known = uploaded.get(report);
  if (known !== undefined) return known;
  const { account, token } = await aMember();
  const artifact = await upload(await aRepository(scene.server.db, account), token, REPORTS[report]);
  uploaded.set(report, artifact);
  return artifact;
}

const findingsOf = (artifact: ArtifactOut) =>
  artifact.check.issues.edges
    .map(({ node }) =>
      [
        node.path,
        `${node.beginLine}:${node.beginColumn}-${node.endLine}:${node.endColumn}`,
        node.shortcode,
        node.category,
        node.severity,
      ].join(" "),
    )
    .sort();

describe("ESLint's JSON outputs uploaded as findings", () => {
  for (const [report, format] of [
    ["json", "json"],
    ["metadata", "json-with-metadata"],
  ] as const) {
    it(`${format}: the check holds ESLint's problems, by rule and severity, as its own summary counts them`, async () => {
      const artifact = await uploadedOnce(report);
      assert.equal(artifact.status, "PROCESSED", artifact.warnings.join("\n"));
      assert.equal(artifact.format, "ESLint JSON");
      // ESLint's problems less the unused directive, which is no finding.
      const findings = SUMMARY.figures.problems - SUMMARY.figures.withoutRule.length;
      assert.equal(artifact.readCount, findings);
      assert.equal(artifact.storedCount, findings);
      assert.equal(artifact.check.issues.totalCount, findings);
      const byRule: Record<string, { errors: number; warnings: number }> = {};
      for (const { node } of artifact.check.issues.edges) {
        const rule = byRule[node.shortcode] ?? { errors: 0, warnings: 0 };
        byRule[node.shortcode] = rule;
        // The lint scale: ESLint's errors are MAJOR (no-eval's too, a security finding), its warnings MINOR.
        if (node.severity === "MAJOR") rule.errors += 1;
        else if (node.severity === "MINOR") rule.warnings += 1;
        else assert.fail(`${node.shortcode}: severity ${node.severity}`);
      }
      assert.deepEqual(byRule, SUMMARY.figures.byRule);
      const bySeverity = Object.fromEntries(
        artifact.check.summary.occurrenceDistributionBySeverity
          .filter((row) => row.introduced > 0)
          .map((row) => [row.severity, row.introduced]),
      );
      assert.deepEqual(bySeverity, {
        MAJOR: SUMMARY.figures.errors - SUMMARY.figures.withoutRule.length,
        MINOR: SUMMARY.figures.warnings,
      });
      assert.ok(
        artifact.warnings.some((warning) => warning.includes("Unused eslint-disable directive")),
        artifact.warnings.join("\n"),
      );
    });

    it(`${format}: the check holds exactly what the SARIF upload of the same run holds`, async () => {
      const [ofJson, ofSarif] = [await uploadedOnce(report), await uploadedOnce("sarif")];
      assert.deepEqual(findingsOf(ofJson), findingsOf(ofSarif));
      assert.deepEqual(ofJson.check.summary, ofSarif.check.summary);
    });
  }

  it("json-with-metadata titles the issues with its rules' descriptions, as the SARIF formatter's do; the plain list by their ids", async () => {
    const titles = (artifact: ArtifactOut) =>
      Object.fromEntries(artifact.check.issues.edges.map(({ node }) => [node.shortcode, node.issue.title]));
    const ofSarif = titles(await uploadedOnce("sarif"));
    assert.equal(ofSarif["no-unused-vars"], "Disallow unused variables");
    assert.deepEqual(titles(await uploadedOnce("metadata")), ofSarif);
    const ofJson = titles(await uploadedOnce("json"));
    assert.deepEqual(ofJson, Object.fromEntries(Object.keys(ofSarif).map((rule) => [rule, rule])));
  });

  it("a branch whose runs switch between SARIF and ESLint's JSON neither resolves nor introduces a finding", async () => {
    const { account, token } = await aMember();
    const repository = await aRepository(scene.server.db, account);
    const first = await upload(repository, token, REPORTS.sarif);
    assert.equal(first.check.summary.occurrencesIntroduced, 15);
    for (const report of ["json", "metadata", "sarif", "metadata", "json"] as const) {
      const next = await upload(repository, token, REPORTS[report]);
      assert.deepEqual(
        [next.check.summary.occurrencesIntroduced, next.check.summary.occurrencesResolved],
        [0, 0],
        `after ${report}`,
      );
      assert.equal(next.check.issues.totalCount, 15);
    }
  });

  it("suppressedMessages are the check's silenced findings, its messages the others", async () => {
    const summary = JSON.parse(read(SUPPRESSIONS, "eslint.summary.json")) as {
      workDir: string;
      figures: {
        problems: number;
        findings: Array<{ path: string; rule: string; line: number }>;
        suppressed: Array<{ path: string; rule: string; line: number }>;
      };
    };
    const { account, token } = await aMember();
    const repository = await aRepository(scene.server.db, account);
    const artifact = await upload(repository, token, read(SUPPRESSIONS, "eslint.json"), summary.workDir);
    const places = (findings: ReadonlyArray<{ path: string; rule: string; line: number }>) =>
      findings.map((f) => `${f.path}:${f.line} ${f.rule}`).sort();
    assert.equal(artifact.check.issues.totalCount, summary.figures.problems);
    assert.deepEqual(
      places(
        artifact.check.issues.edges.map(({ node }) => ({
          ...node,
          rule: node.shortcode,
          line: node.beginLine,
        })),
      ),
      places(summary.figures.findings),
    );
    const silenced = dataOf(
      await gql(
        scene.server.endpoint,
        token,
        `query($id: ID!) { node(id: $id) { ... on Repository { analysisRuns(first: 1) { edges { node {
          checks { edges { node {
            summary { occurrencesSuppressed }
            issues(first: 50, isSuppressed: true) { edges { node { path beginLine shortcode isSuppressed } } }
          } } }
        } } } } } }`,
        { id: encodeGlobalId("Repository", repository.key) },
      ),
    ) as {
      node: {
        analysisRuns: {
          edges: Array<{
            node: {
              checks: {
                edges: Array<{
                  node: {
                    summary: { occurrencesSuppressed: number };
                    issues: {
                      edges: Array<{
                        node: { path: string; beginLine: number; shortcode: string; isSuppressed: boolean };
                      }>;
                    };
                  };
                }>;
              };
            };
          }>;
        };
      };
    };
    const check = silenced.node.analysisRuns.edges[0]!.node.checks.edges[0]!.node;
    assert.equal(check.summary.occurrencesSuppressed, summary.figures.suppressed.length);
    assert.ok(check.issues.edges.every(({ node }) => node.isSuppressed));
    assert.deepEqual(
      places(check.issues.edges.map(({ node }) => ({ ...node, rule: node.shortcode, line: node.beginLine }))),
      places(summary.figures.suppressed),
    );
  });

  it("json-with-metadata: a plugin rule's findings are kept or left out by its meta.type from the first upload", async () => {
    const summary = JSON.parse(read(LOCAL_PLUGIN, "eslint.summary.json")) as {
      workDir: string;
      figures: {
        problems: number;
        byRule: Record<string, { type: string; errors: number; warnings: number }>;
      };
    };
    const { account, token } = await aMember();
    const repository = await aRepository(scene.server.db, account);
    // The repository reports style and nothing else.
    const hidden = ["ANTI_PATTERN", "BUG_RISK", "PERFORMANCE", "SECURITY", "COVERAGE", "TYPECHECK"]
      .concat(["DOCUMENTATION", "SECRETS"])
      .map(
        (category) =>
          `${category}: updateRepositoryIssueCategorySetting(input: { repositoryId: $id,
            issueCategory: ${category}, isReported: false, canFailCheck: false }) { ok }`,
      );
    dataOf(
      await gql(scene.server.endpoint, token, `mutation($id: ID!) { ${hidden.join("\n")} }`, {
        id: encodeGlobalId("Repository", repository.key),
      }),
    );
    // Only the layout rule's findings are style: the problem and suggestion rules' are left out.
    const layout = Object.entries(summary.figures.byRule).filter(([, rule]) => rule.type === "layout");
    assert.deepEqual(
      layout.map(([id]) => id),
      ["local/indent-with-spaces"],
    );
    const styleFindings = layout.reduce((sum, [, rule]) => sum + rule.errors + rule.warnings, 0);
    const report = read(LOCAL_PLUGIN, "eslint-metadata.json");
    for (const upload_ of ["first", "second"]) {
      const artifact = await upload(repository, token, report, summary.workDir);
      assert.equal(artifact.status, "PROCESSED", artifact.warnings.join("\n"));
      assert.equal(artifact.readCount, summary.figures.problems, upload_);
      assert.equal(artifact.storedCount, styleFindings, upload_);
      const kept = artifact.check.issues.edges.map(({ node }) => `${node.shortcode} ${node.category}`);
      assert.deepEqual(new Set(kept), new Set(["local/indent-with-spaces STYLE"]), upload_);
      assert.equal(kept.length, styleFindings, upload_);
      assert.equal(artifact.check.issues.edges[0]?.node.issue.title, "Indent with spaces, not tabs", upload_);
    }
  });

  it("refuses an ESLint JSON report that is cut short, naming the problem", async () => {
    const { account, token } = await aMember();
    const repository = await aRepository(scene.server.db, account);
    const answer = dataOf(
      await gql(
        scene.server.endpoint,
        token,
        `mutation($input: UploadArtifactInput!) { uploadArtifact(input: $input) { ok error } }`,
        {
          input: {
            repositoryId: encodeGlobalId("Repository", repository.key),
            commitOid: aCommitOid(),
            branch: repository.default_branch,
            analyzer: "eslint",
            analyzerType: "community",
            workDir: SUMMARY.workDir,
            data: REPORTS.json.slice(0, 600),
          },
        },
      ),
    ).uploadArtifact as { ok: boolean; error: string };
    assert.equal(answer.ok, false);
    assert.match(
      answer.error,
      /the ESLint JSON report is invalid: line \d+: the list of files is not closed/,
    );
  });
});
