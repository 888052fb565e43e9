import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ingestRunSbom } from "../src/ingestion/sca/sbom-upload.ts";
import { seedDemo } from "../src/modules/demo/demo-seed.ts";
import { findingInvariants } from "./helpers/consistency-findings.ts";
import { historyInvariants } from "./helpers/consistency-history.ts";
import { measureInvariants } from "./helpers/consistency-measures.ts";
import { type Query, type RepositoryRef, viewerRepositories } from "./helpers/consistency-reads.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Fields that answer one question from different angles must agree (docs/read-model.md,
 * docs/reports.md), on the demo data: the checks are test/helpers/consistency-findings.ts,
 * consistency-measures.ts and consistency-history.ts, shared with the real uploads' test
 * (consistency-uploads.test.ts), which also runs the one the demo cannot hold (a run's suppressed
 * count against its rules: the demo also suppresses a few findings inline). Each test also
 * requires something to compare, so that an empty answer cannot pass.
 */

describe("numbers that answer the same question agree, on the demo data", () => {
  let server: TestServer;
  let token: string;
  let invariants: ReturnType<typeof findingInvariants>;
  let measures: ReturnType<typeof measureInvariants>;
  let history: ReturnType<typeof historyInvariants>;
  let repositories: RepositoryRef[];

  const query: Query = async (text, variables) =>
    dataOf(await gql(server.endpoint, token, text, variables)) as never;

  before(async () => {
    server = await startTestServer();
    ({ token } = await seedDemo(server.db, { pepper: server.config.tokenPepper, uploadSbom: ingestRunSbom }));
    repositories = await viewerRepositories(query);
    assert.ok(repositories.length > 1);
    invariants = findingInvariants(query, repositories);
    measures = measureInvariants(query, repositories);
    history = historyInvariants(query, repositories);
  });
  after(() => server?.stop());

  test("a repository's open occurrences are one number: its issues', issueOccurrences' and the issue reports'", async () => {
    assert.ok((await invariants.openOccurrencesAgree()) > 0, "the demo has open occurrences to compare");
  });

  test("the compliance reports count the open occurrences of the issues their standards tag", async () => {
    assert.ok(
      (await invariants.complianceAgrees()) > 0,
      "the demo has open occurrences in a standard's items",
    );
  });

  test("a run's summary is the sum of its checks', and each distribution adds up to what it introduced", async () => {
    assert.ok((await invariants.runSummariesAddUp()) > 0, "the demo's runs introduce occurrences");
  });

  test("a pull request's summary and findings are its latest run's", async () => {
    assert.ok(
      (await invariants.pullRequestsAreTheirLatestRuns()) > 0,
      "the demo has pull requests with runs",
    );
  });

  test("a repository's latest commit is its newest analysed default-branch run's", async () => {
    assert.ok(
      (await invariants.latestCommitIsNewestAnalysedRun()) > 0,
      "the demo has analysed default-branch runs",
    );
  });

  test("a metric item's latest value is the newest of its recorded values", async () => {
    assert.ok((await invariants.latestMetricValuesAreNewest()) > 0, "the demo has metric values");
  });

  test("every coverage check's files add up to its run's changeset stats and to its metric values", async () => {
    assert.ok((await measures.coverageFilesAddUp()) > 0, "the demo has coverage checks with files");
  });

  test("a coverage check fails exactly when one of its values misses an enforced threshold", async () => {
    const { passed, failed } = await measures.coverageChecksFollowTheGate();
    assert.ok(
      passed > 0 && failed > 0,
      `the demo has coverage checks that passed (${passed}) and failed (${failed})`,
    );
  });

  test("the code coverage reports show each repository's latest values, and a pull request's metrics are its latest run's", async () => {
    const accounts = new Map(repositories.map((r) => [`${r.vcsProvider} ${r.login}`, r]));
    const compared = { repositories: 0, pullRequests: 0, withCoverage: 0 };
    for (const { login, vcsProvider } of accounts.values()) {
      const counts = await measures.coverageReportsAreLatestValues(login, vcsProvider);
      compared.repositories += counts.repositories;
      compared.pullRequests += counts.pullRequests;
      compared.withCoverage += counts.withCoverage;
    }
    assert.equal(compared.repositories, repositories.length);
    assert.ok(
      compared.withCoverage > 0,
      `${compared.withCoverage} of ${compared.pullRequests} pull requests have coverage values`,
    );
  });

  test("a run's DDP is what its dependency scans list", async () => {
    assert.ok((await measures.dependenciesAreScans()) > 0, "the demo has runs with DDP and scans");
  });

  test("a repository's issues under each filter count what issueOccurrences holds under the same filter", async () => {
    assert.ok((await history.issueFiltersMatchOccurrences()) > 0, "the demo's issues have occurrences");
  });

  test("a repository's findings of each analyzer are its newest conclusive default-branch check's", async () => {
    assert.ok((await history.findingsAreNewestChecks()) > 0, "the demo's repositories have findings");
  });

  test("a check lists what its base check listed, plus what it introduced, minus what it resolved", async () => {
    assert.ok((await history.findingsFollowTheirBase()) > 0, "the demo's checks have bases");
  });

  test("a repository's metrics are its newest analysed default-branch run's", async () => {
    assert.ok((await measures.repositoryMetricsAreNewestRuns()) > 0, "the demo has metric values");
  });

  test("an account's reports are the sums of its repositories'", async () => {
    assert.ok((await invariants.accountReportsAreSums()) > 0, "the demo's accounts have reports to add up");
  });

  test("every connection of a repository holds totalCount edges, paged forwards and backwards", async () => {
    assert.ok((await invariants.connectionsPageBothWays()) > 0, "the demo's connections hold rows");
  });
});
