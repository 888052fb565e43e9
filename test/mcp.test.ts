import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { ingestRunSbom } from "../src/ingestion/sca/sbom-upload.ts";
import { ASSAY_TOOLS } from "../src/mcp/mcp-server.ts";
import { SCHEMA_URI } from "../src/mcp/resources.ts";
import { seedDemo } from "../src/modules/demo/demo-seed.ts";
import { anAccount, aRepository, aRun, aToken, aUser } from "./helpers/builders.ts";
import { anAnalyzer, anIssue } from "./helpers/builders-catalog.ts";
import { aCheck, occurrencesIn } from "./helpers/builders-checks.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The MCP endpoint through the real server and the official SDK client over Streamable HTTP:
 * every tool on the demo data, each answer checked by the client against the tool's output schema
 * and compared with the same data read through GraphQL; admission (401, rate limit) and
 * visibility as the API has them; actions refused to a CONTRIBUTOR.
 */

const REPO = { login: "acme-labs", name: "api-gateway", vcsProvider: "GITHUB" } as const;
const REPO_VARS = `login: "acme-labs", name: "api-gateway", vcsProvider: GITHUB`;

/** The SDK's own validator, counting the answers it checked, so a test can see validation ran. */
class CountingValidator implements jsonSchemaValidator {
  readonly #ajv = new AjvJsonSchemaValidator();
  checked = 0;
  getValidator<T>(schema: JsonSchemaType) {
    const validate = this.#ajv.getValidator<T>(schema);
    return (input: unknown) => {
      this.checked += 1;
      return validate(input);
    };
  }
}

/** A connected SDK client for `token`, its tool list loaded (the client validates with it). */
async function connect(
  server: TestServer,
  token: string,
): Promise<{ client: Client; validator: CountingValidator; tools: Tool[] }> {
  const validator = new CountingValidator();
  const client = new Client({ name: "assay-test", version: "1.0.0" }, { jsonSchemaValidator: validator });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const { tools } = await client.listTools();
  return { client, validator, tools };
}

/** Calls a tool, failing the test on an error result; answers its structured content. */
async function call<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent, `${name} has structured content`);
  const text = result.content[0];
  assert.ok(text?.type === "text" && text.text.length > 0, `${name} has a text rendering`);
  return result.structuredContent as T;
}

/** Calls a tool that must fail; answers the error's code (from `_meta`) and its text. */
async function callFailing(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ code: unknown; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.equal(result.isError, true, `${name} should fail: ${JSON.stringify(result.structuredContent)}`);
  assert.equal(result.structuredContent, undefined);
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  assert.doesNotMatch(text, /\n\s+at /, "no stack trace");
  return { code: result._meta?.code, text };
}

/** Every object schema in `schema` (a JSON Schema), with its path. */
function objectSchemas(
  schema: unknown,
  path = "$",
): Array<{ path: string; schema: Record<string, unknown> }> {
  if (schema === null || typeof schema !== "object") return [];
  const node = schema as Record<string, unknown>;
  const found = node.type === "object" ? [{ path, schema: node }] : [];
  for (const [key, value] of Object.entries(node)) {
    const items: unknown[] = Array.isArray(value) ? value : [value];
    items.forEach((item, i) => {
      found.push(...objectSchemas(item, Array.isArray(value) ? `${path}.${key}[${i}]` : `${path}.${key}`));
    });
  }
  return found;
}

describe("MCP endpoint", () => {
  let server: TestServer;
  let token: string;
  let client: Client;
  let validator: CountingValidator;
  let tools: Tool[];
  let contributorToken: string;
  let outsiderToken: string;
  let outsiderRepo: { login: string; name: string };

  before(async () => {
    server = await startTestServer();
    ({ token } = await seedDemo(server.db, { pepper: server.config.tokenPepper, uploadSbom: ingestRunSbom }));
    const contributor = await aUser(server.db);
    dataOf(
      await gql(
        server.endpoint,
        token,
        `mutation { addTeamMember(input: { login: "acme-labs", vcsProvider: GITHUB, email: "${contributor.email}", role: CONTRIBUTOR }) { teamMember { role } } }`,
      ),
    );
    contributorToken = await aToken(server.db, server.config.tokenPepper, contributor);
    const outsider = await aUser(server.db);
    const account = await anAccount(server.db, {}, [{ user: outsider, role: "ADMIN", isOwner: true }]);
    const repository = await aRepository(server.db, account);
    outsiderRepo = { login: account.login, name: repository.name };
    outsiderToken = await aToken(server.db, server.config.tokenPepper, outsider);
    ({ client, validator, tools } = await connect(server, token));
  });

  after(async () => {
    await client?.close();
    await server?.stop();
  });

  test("tools/list offers every tool with descriptions, annotations and strict output schemas", () => {
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ASSAY_TOOLS.map((tool) => tool.name),
    );
    assert.equal(tools.length, 10);
    const actions = new Set(["set_metric_threshold", "update_metric_setting", "add_ignore_rule"]);
    for (const tool of tools) {
      assert.ok((tool.description ?? "").length > 40, `${tool.name} is described`);
      assert.equal(tool.annotations?.readOnlyHint, !actions.has(tool.name), `${tool.name} readOnlyHint`);
      if (actions.has(tool.name)) assert.equal(typeof tool.annotations?.destructiveHint, "boolean");
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        assert.ok((property as { description?: string }).description, `${tool.name}.${name} is described`);
      }
      assert.ok(tool.outputSchema, `${tool.name} declares an output schema`);
      const objects = objectSchemas(tool.outputSchema);
      assert.ok(objects.length > 0);
      for (const { path, schema } of objects) {
        assert.equal(schema.additionalProperties, false, `${tool.name} ${path} forbids extra fields`);
      }
    }
  });

  test("the client's output-schema validation is on: it checks answers and refuses an extra field", async () => {
    const before = validator.checked;
    await call(client, "list_repositories", {});
    assert.equal(validator.checked, before + 1);
    const tool = tools.find((t) => t.name === "list_repositories");
    const validate = new AjvJsonSchemaValidator().getValidator(tool?.outputSchema as JsonSchemaType);
    assert.equal(validate({ repositories: [], truncated: false }).valid, true);
    assert.equal(validate({ repositories: [], truncated: false, extra: 1 }).valid, false);
  });

  test("list_repositories lists what viewer.accounts shows, with each repository's issue count", async () => {
    const answer = await call<{ repositories: Array<{ login: string; name: string; openIssues: number }> }>(
      client,
      "list_repositories",
      {},
    );
    const viewer = dataOf(
      await gql(
        server.endpoint,
        token,
        `{ viewer { accounts(first: 50) { edges { node { login repositories(first: 100) { edges { node { name issues(first: 1) { totalCount } } } } } } } } }`,
      ),
    ).viewer as {
      accounts: {
        edges: Array<{
          node: {
            login: string;
            repositories: { edges: Array<{ node: { name: string; issues: { totalCount: number } } }> };
          };
        }>;
      };
    };
    const expected = viewer.accounts.edges.flatMap(({ node: a }) =>
      a.repositories.edges.map(({ node: r }) => ({
        login: a.login,
        name: r.name,
        openIssues: r.issues.totalCount,
      })),
    );
    assert.ok(expected.length > 1);
    assert.deepEqual(
      answer.repositories.map((r) => ({ login: r.login, name: r.name, openIssues: r.openIssues })),
      expected,
    );
    const onlyAcme = await call<{ repositories: Array<{ login: string }> }>(client, "list_repositories", {
      login: "acme-labs",
    });
    assert.ok(
      onlyAcme.repositories.length > 0 && onlyAcme.repositories.every((r) => r.login === "acme-labs"),
    );
  });

  test("list_repository_issues filters by category and severity and pages like Repository.issues", async () => {
    const all = dataOf(
      await gql(
        server.endpoint,
        token,
        `{ repository(${REPO_VARS}) { issues(first: 100) { edges { node { issue { shortcode category severity analyzer { shortcode } } } } } } }`,
      ),
    ).repository as {
      issues: {
        edges: Array<{
          node: {
            issue: { shortcode: string; category: string; severity: string; analyzer: { shortcode: string } };
          };
        }>;
      };
    };
    const issues = all.issues.edges.map((e) => e.node.issue);
    const sample = issues[0];
    assert.ok(sample);
    const byCategory = await call<{ issues: Array<{ shortcode: string }>; page: { totalCount: number } }>(
      client,
      "list_repository_issues",
      { ...REPO, category: sample.category, first: 100 },
    );
    const expectedCategory = issues.filter((i) => i.category === sample.category).map((i) => i.shortcode);
    assert.deepEqual(
      byCategory.issues.map((i) => i.shortcode),
      expectedCategory,
    );
    assert.equal(byCategory.page.totalCount, expectedCategory.length);
    const bySeverity = await call<{ issues: Array<{ shortcode: string }> }>(
      client,
      "list_repository_issues",
      {
        ...REPO,
        severity: sample.severity,
        analyzers: [sample.analyzer.shortcode],
        first: 100,
      },
    );
    assert.deepEqual(
      bySeverity.issues.map((i) => i.shortcode),
      issues
        .filter((i) => i.severity === sample.severity && i.analyzer.shortcode === sample.analyzer.shortcode)
        .map((i) => i.shortcode),
    );
    const first = await call<{
      issues: Array<{ shortcode: string }>;
      page: { endCursor: string; hasNextPage: boolean };
    }>(client, "list_repository_issues", { ...REPO, first: 2 });
    assert.equal(first.page.hasNextPage, true);
    const second = await call<{ issues: Array<{ shortcode: string }> }>(client, "list_repository_issues", {
      ...REPO,
      first: 2,
      after: first.page.endCursor,
    });
    assert.deepEqual(
      [...first.issues, ...second.issues].map((i) => i.shortcode),
      issues.slice(0, 4).map((i) => i.shortcode),
    );
  });

  test("get_changes answers a pull request's and a commit's counts as GraphQL has them", async () => {
    const data = dataOf(
      await gql(
        server.endpoint,
        token,
        `{ repository(${REPO_VARS}) {
            pullRequests(first: 1) { edges { node { number summary { issuesRaised issuesResolved issuesSuppressed vulnerabilitiesRaised } issues(first: 500) { totalCount } } } }
            analysisRuns(first: 1) { edges { node { runUid commitOid summary { occurrencesIntroduced occurrencesResolved } } } } } }`,
      ),
    ).repository as {
      pullRequests: {
        edges: Array<{
          node: {
            number: number;
            summary: {
              issuesRaised: number;
              issuesResolved: number;
              issuesSuppressed: number;
              vulnerabilitiesRaised: number;
            };
            issues: { totalCount: number };
          };
        }>;
      };
      analysisRuns: {
        edges: Array<{
          node: {
            runUid: string;
            commitOid: string;
            summary: { occurrencesIntroduced: number; occurrencesResolved: number };
          };
        }>;
      };
    };
    const pr = data.pullRequests.edges[0]?.node;
    assert.ok(pr);
    const prAnswer = await call<
      Record<string, unknown> & { pullRequest: { number: number }; findings: unknown[] }
    >(client, "get_changes", { ...REPO, pullRequest: pr.number, first: 5 });
    assert.equal(prAnswer.pullRequest.number, pr.number);
    assert.equal(prAnswer.introduced, pr.summary.issuesRaised);
    assert.equal(prAnswer.resolved, pr.summary.issuesResolved);
    assert.equal(prAnswer.suppressed, pr.summary.issuesSuppressed);
    assert.equal(prAnswer.vulnerabilitiesIntroduced, pr.summary.vulnerabilitiesRaised);
    assert.equal(prAnswer.findingsTotal, pr.issues.totalCount);
    assert.ok(prAnswer.findings.length <= 5);

    const run = data.analysisRuns.edges[0]?.node;
    assert.ok(run);
    const commitAnswer = await call<Record<string, unknown> & { run: { runUid: string } }>(
      client,
      "get_changes",
      {
        ...REPO,
        commitOid: run.commitOid,
      },
    );
    assert.equal(commitAnswer.pullRequest, null);
    assert.equal(commitAnswer.introduced, run.summary.occurrencesIntroduced);
    assert.equal(commitAnswer.resolved, run.summary.occurrencesResolved);

    const both = await callFailing(client, "get_changes", {
      ...REPO,
      pullRequest: 1,
      commitOid: run.commitOid,
    });
    assert.equal(both.code, "BAD_USER_INPUT");
    const elsewhere = await callFailing(client, "get_changes", {
      ...REPO,
      name: "billing-service",
      commitOid: run.commitOid,
    });
    assert.equal(elsewhere.code, "NOT_FOUND");
  });

  test("get_changes tells the findings a pull request introduced from those already there, new ones first", async () => {
    type Finding = { path: string; beginLine: number; shortcode: string; isIntroduced: boolean };
    const data = dataOf(
      await gql(
        server.endpoint,
        token,
        `{ repository(${REPO_VARS}) { pullRequests(first: 50) { edges { node { number
            issues(first: 500) { totalCount edges { node { path beginLine shortcode isIntroduced } } }
            introduced: issues(first: 1, isIntroduced: true) { totalCount }
            existing: issues(first: 1, isIntroduced: false) { totalCount } } } } } }`,
      ),
    ).repository as {
      pullRequests: {
        edges: Array<{
          node: {
            number: number;
            issues: { totalCount: number; edges: Array<{ node: Finding }> };
            introduced: { totalCount: number };
            existing: { totalCount: number };
          };
        }>;
      };
    };
    const prs = data.pullRequests.edges.map(({ node }) => node);
    for (const pr of prs) {
      const all = pr.issues.edges.map(({ node }) => node);
      assert.equal(pr.introduced.totalCount, all.filter((f) => f.isIntroduced).length);
      assert.equal(pr.existing.totalCount, all.filter((f) => !f.isIntroduced).length);
    }
    // A pull request with new findings and findings its base already had.
    const pr = prs.find((p) => p.introduced.totalCount > 0 && p.existing.totalCount > 0);
    assert.ok(pr, "the demo has a pull request with new and old findings");
    const all = pr.issues.edges.map(({ node }) => node);
    const expected = [...all.filter((f) => f.isIntroduced), ...all.filter((f) => !f.isIntroduced)];
    const answer = await call<{
      findings: Array<Finding>;
      findingsTotal: number;
      findingsIntroduced: number;
      findingsExisting: number;
    }>(client, "get_changes", { ...REPO, pullRequest: pr.number, first: 100 });
    assert.equal(answer.findingsIntroduced, pr.introduced.totalCount);
    assert.equal(answer.findingsExisting, pr.existing.totalCount);
    assert.equal(answer.findingsTotal, pr.issues.totalCount);
    assert.deepEqual(
      answer.findings.map((f) => [f.path, f.beginLine, f.shortcode, f.isIntroduced]),
      expected.slice(0, 100).map((f) => [f.path, f.beginLine, f.shortcode, f.isIntroduced]),
    );
    // With fewer than the new ones, only new ones are listed.
    const few = await call<{ findings: Array<Finding> }>(client, "get_changes", {
      ...REPO,
      pullRequest: pr.number,
      first: 1,
    });
    assert.deepEqual(
      few.findings.map((f) => f.isIntroduced),
      [true],
    );
  });

  test("get_run_checks answers each check's counts and findings as GraphQL has them", async () => {
    const runs = dataOf(
      await gql(
        server.endpoint,
        token,
        `{ repository(${REPO_VARS}) { analysisRuns(first: 1) { edges { node { runUid
            checks(first: 50) { edges { node { analyzer { shortcode } summary { occurrencesIntroduced occurrencesResolved }
              issues(first: 500, severity: MAJOR) { totalCount } } } } } } } } }`,
      ),
    ).repository as {
      analysisRuns: {
        edges: Array<{
          node: {
            runUid: string;
            checks: {
              edges: Array<{
                node: {
                  analyzer: { shortcode: string };
                  summary: { occurrencesIntroduced: number; occurrencesResolved: number };
                  issues: { totalCount: number };
                };
              }>;
            };
          };
        }>;
      };
    };
    const run = runs.analysisRuns.edges[0]?.node;
    assert.ok(run && run.checks.edges.length > 0);
    const answer = await call<{
      run: { runUid: string; repository: string };
      checks: Array<{
        analyzer: string;
        introduced: number;
        resolved: number;
        findingsTotal: number;
        findings: Array<{ severity: string }>;
      }>;
    }>(client, "get_run_checks", { runUid: run.runUid, severity: "MAJOR" });
    assert.equal(answer.run.runUid, run.runUid);
    assert.equal(answer.run.repository, "acme-labs/api-gateway");
    assert.deepEqual(
      answer.checks.map((c) => [c.analyzer, c.introduced, c.resolved, c.findingsTotal]),
      run.checks.edges.map(({ node }) => [
        node.analyzer.shortcode,
        node.summary.occurrencesIntroduced,
        node.summary.occurrencesResolved,
        node.issues.totalCount,
      ]),
    );
    assert.ok(answer.checks.every((c) => c.findings.every((f) => f.severity === "MAJOR")));
  });

  test("get_quality_metrics answers the metrics GraphQL has, with thresholds and status", async () => {
    const repository = dataOf(
      await gql(
        server.endpoint,
        token,
        `{ repository(${REPO_VARS}) { metrics { shortcode isReported isThresholdEnforced items { key threshold latestValue thresholdStatus } } } }`,
      ),
    ).repository as { metrics: unknown[] };
    const answer = await call<{
      metrics: Array<Record<string, unknown> & { items: Array<Record<string, unknown>> }>;
    }>(client, "get_quality_metrics", REPO);
    assert.ok(answer.metrics.length > 0);
    assert.deepEqual(
      answer.metrics.map((m) => ({
        shortcode: m.shortcode,
        isReported: m.isReported,
        isThresholdEnforced: m.isThresholdEnforced,
        items: m.items.map((i) => ({
          key: i.key,
          threshold: i.threshold,
          latestValue: i.latestValue,
          thresholdStatus: i.thresholdStatus,
        })),
      })),
      repository.metrics,
    );
  });

  test("the tools describe each metric as the API defines it, its unit included", async () => {
    const { repository } = dataOf(
      await gql(server.endpoint, token, `{ repository(${REPO_VARS}) { metrics { shortcode name unit } } }`),
    ) as { repository: { metrics: Array<{ shortcode: string; name: string; unit: string | null }> } };
    assert.equal(repository.metrics.length, 10);
    const metricTools = ["get_quality_metrics", "set_metric_threshold", "update_metric_setting"];
    for (const name of metricTools) {
      const description = tools.find((tool) => tool.name === name)?.description ?? "";
      for (const metric of repository.metrics) {
        // What the description says of the metric: from its shortcode to the next one's.
        const said = new RegExp(`\\b${metric.shortcode} ([^,;]*)`).exec(description)?.[1] ?? "";
        assert.ok(
          said.startsWith(metric.name.toLowerCase()),
          `${name} describes ${metric.shortcode} as "${said}", the API names it ${metric.name}`,
        );
        if (metric.unit !== "%") {
          assert.doesNotMatch(
            description,
            new RegExp(`\\b${metric.shortcode} [^;]*per cent`),
            `${name}: ${metric.shortcode} is no percentage`,
          );
        }
      }
    }
  });

  test("list_dependency_vulnerabilities answers GraphQL's occurrences with fixes above the version in use", async () => {
    const repository = dataOf(
      await gql(
        server.endpoint,
        token,
        `{ repository(${REPO_VARS}) { dependencyVulnerabilityOccurrences(first: 100) { totalCount edges { node {
            fixability package { name } packageVersion { version } vulnerability { identifier fixedVersions } } } } } }`,
      ),
    ).repository as {
      dependencyVulnerabilityOccurrences: {
        totalCount: number;
        edges: Array<{
          node: {
            fixability: string;
            package: { name: string };
            packageVersion: { version: string };
            vulnerability: { identifier: string; fixedVersions: string[] };
          };
        }>;
      };
    };
    const answer = await call<{
      vulnerabilities: Array<{
        advisory: string;
        package: string;
        fixability: string;
        fixedVersions: string[];
        smallestFix: string | null;
      }>;
      upgrades: Array<{ package: string; smallestFixingUpgrade: string | null }>;
      page: { totalCount: number };
    }>(client, "list_dependency_vulnerabilities", { ...REPO, first: 100 });
    const expected = repository.dependencyVulnerabilityOccurrences;
    assert.ok(expected.totalCount > 0);
    assert.equal(answer.page.totalCount, expected.totalCount);
    assert.deepEqual(
      answer.vulnerabilities.map((v) => [v.advisory, v.package, v.fixability]),
      expected.edges.map(({ node }) => [node.vulnerability.identifier, node.package.name, node.fixability]),
    );
    for (const v of answer.vulnerabilities) {
      if (v.smallestFix !== null) assert.ok(v.fixedVersions.includes(v.smallestFix), v.advisory);
    }
    assert.ok(answer.upgrades.length > 0);
  });

  test("get_compliance_report answers the OWASP, SANS and MISRA reports of a repository and an account", async () => {
    const data = dataOf(
      await gql(
        server.endpoint,
        token,
        `{ repository(${REPO_VARS}) { reports { owaspTop10 { status currentValue securityIssueStats { key occurrence { total } } } } }
           account(login: "acme-labs", vcsProvider: GITHUB) { reports {
             sansTop25 { status currentValue } misraC { status currentValue } } } }`,
      ),
    ) as {
      repository: {
        reports: {
          owaspTop10: {
            status: string;
            currentValue: number;
            securityIssueStats: Array<{ key: string; occurrence: { total: number } }>;
          };
        };
      };
      account: {
        reports: {
          sansTop25: { status: string; currentValue: number };
          misraC: { status: string; currentValue: number };
        };
      };
    };
    const owasp = await call<{
      scope: string;
      status: string;
      currentValue: number;
      categories: Array<{ key: string; total: number }>;
    }>(client, "get_compliance_report", { ...REPO, report: "OWASP_TOP_10" });
    const expected = data.repository.reports.owaspTop10;
    assert.equal(owasp.scope, "acme-labs/api-gateway");
    assert.equal(owasp.status, expected.status);
    assert.equal(owasp.currentValue, expected.currentValue);
    assert.deepEqual(
      owasp.categories.map((c) => [c.key, c.total]),
      expected.securityIssueStats.map((s) => [s.key, s.occurrence.total]),
    );
    for (const [report, field] of [
      ["SANS_TOP_25", "sansTop25"],
      ["MISRA_C", "misraC"],
    ] as const) {
      const answer = await call<{ scope: string; status: string; currentValue: number }>(
        client,
        "get_compliance_report",
        {
          login: "acme-labs",
          report,
        },
      );
      assert.equal(answer.scope, "acme-labs");
      assert.equal(answer.status, data.account.reports[field].status);
      assert.equal(answer.currentValue, data.account.reports[field].currentValue);
    }
  });

  test("the actions change what GraphQL then reads", async () => {
    const threshold = await call<{ threshold: number | null }>(client, "set_metric_threshold", {
      ...REPO,
      metric: "LCV",
      threshold: 77,
    });
    assert.equal(threshold.threshold, 77);
    const setting = await call<{ isReported: boolean; isThresholdEnforced: boolean }>(
      client,
      "update_metric_setting",
      {
        ...REPO,
        metric: "LCV",
        isThresholdEnforced: true,
      },
    );
    assert.equal(setting.isThresholdEnforced, true);
    const rule = await call<{ ignoreRule: { id: string; issue: string; globPattern: string | null } }>(
      client,
      "add_ignore_rule",
      { ...REPO, issue: "GSC-G104", type: "PATTERN", globPattern: "vendor/**" },
    );
    assert.equal(rule.ignoreRule.globPattern, "vendor/**");
    // A TEST_PATTERN rule without a glob: the configuration's test_patterns name its files.
    const tests = (await client.callTool({
      name: "add_ignore_rule",
      arguments: { ...REPO, issue: "GSC-G104", type: "TEST_PATTERN" },
    })) as CallToolResult;
    assert.equal(
      (tests.structuredContent as { ignoreRule: { globPattern: string | null } }).ignoreRule.globPattern,
      null,
    );
    assert.match(
      tests.content[0]?.type === "text" ? tests.content[0].text : "",
      /ignores GSC-G104 in the test files its \.deepsource\.toml names \(test_patterns\) \(TEST_PATTERN, REPOSITORY\)/,
    );
    const read = dataOf(
      await gql(
        server.endpoint,
        token,
        `{ repository(${REPO_VARS}) { metrics(shortcodeIn: [LCV]) { isReported isThresholdEnforced items { key threshold } }
            ignoreRules(first: 50) { edges { node { id issue { shortcode } globPattern } } } } }`,
      ),
    ).repository as {
      metrics: Array<{
        isThresholdEnforced: boolean;
        items: Array<{ key: string; threshold: number | null }>;
      }>;
      ignoreRules: {
        edges: Array<{ node: { id: string; issue: { shortcode: string }; globPattern: string | null } }>;
      };
    };
    assert.equal(read.metrics[0]?.isThresholdEnforced, true);
    assert.equal(read.metrics[0]?.items.find((i) => i.key === "AGGREGATE")?.threshold, 77);
    assert.ok(
      read.ignoreRules.edges.some(
        ({ node }) => node.id === rule.ignoreRule.id && node.globPattern === "vendor/**",
      ),
    );

    const refused = await callFailing(client, "set_metric_threshold", {
      ...REPO,
      metric: "LCV",
      threshold: 1000,
    });
    assert.equal(refused.code, "BAD_USER_INPUT");
  });

  test("a CONTRIBUTOR reads through MCP but cannot run an action (FORBIDDEN, nothing written)", async () => {
    const contributor = await connect(server, contributorToken);
    try {
      await call(contributor.client, "get_quality_metrics", REPO);
      const refused = await callFailing(contributor.client, "set_metric_threshold", {
        ...REPO,
        metric: "BCV",
        threshold: 55,
      });
      assert.equal(refused.code, "FORBIDDEN");
      assert.match(refused.text, /^FORBIDDEN: /);
      const ignore = await callFailing(contributor.client, "add_ignore_rule", { ...REPO, issue: "GO-W1007" });
      assert.equal(ignore.code, "FORBIDDEN");
      const read = dataOf(
        await gql(
          server.endpoint,
          token,
          `{ repository(${REPO_VARS}) { metrics(shortcodeIn: [BCV]) { items { key threshold } } } }`,
        ),
      ).repository as { metrics: Array<{ items: Array<{ key: string; threshold: number | null }> }> };
      assert.notEqual(read.metrics[0]?.items.find((i) => i.key === "AGGREGATE")?.threshold, 55);
    } finally {
      await contributor.client.close();
    }
  });

  test("another account's repository answers exactly as one that does not exist", async () => {
    const hidden = await callFailing(client, "list_repository_issues", {
      ...outsiderRepo,
      vcsProvider: "GITHUB",
    });
    const absent = await callFailing(client, "list_repository_issues", {
      ...outsiderRepo,
      name: `${outsiderRepo.name}-absent`,
      vcsProvider: "GITHUB",
    });
    assert.equal(hidden.code, "NOT_FOUND");
    assert.deepEqual(hidden, { ...absent, text: absent.text });
    const action = await callFailing(client, "set_metric_threshold", {
      ...outsiderRepo,
      metric: "LCV",
      threshold: 50,
    });
    assert.equal(action.code, "NOT_FOUND");
    const listed = await call<{ repositories: Array<{ login: string }> }>(client, "list_repositories", {});
    assert.ok(!listed.repositories.some((r) => r.login === outsiderRepo.login));
    // The outsider, for whom it exists, sees it.
    const outsider = await connect(server, outsiderToken);
    try {
      const own = await call<{ repositories: Array<{ name: string }> }>(
        outsider.client,
        "list_repositories",
        {},
      );
      assert.deepEqual(
        own.repositories.map((r) => r.name),
        [outsiderRepo.name],
      );
    } finally {
      await outsider.client.close();
    }
  });

  test("resources offer the printed SDL and the example operations", async () => {
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === SCHEMA_URI));
    assert.ok(resources.some((r) => r.uri === "assay://examples/pagination.graphql"));
    assert.ok(resources.some((r) => r.uri === "assay://examples/pagination.variables.json"));
    const sdl = await client.readResource({ uri: SCHEMA_URI });
    const text = sdl.contents[0] && "text" in sdl.contents[0] ? sdl.contents[0].text : "";
    const { readFile } = await import("node:fs/promises");
    assert.equal(text, await readFile(new URL("../schema.graphql", import.meta.url), "utf8"));
  });

  test("prompts name the tools for the common questions", async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(
      prompts.map((p) => p.name),
      ["review_pull_request", "security_overview"],
    );
    const prompt = await client.getPrompt({
      name: "review_pull_request",
      arguments: { login: "acme-labs", name: "api-gateway", number: "3" },
    });
    const text = prompt.messages[0]?.content.type === "text" ? prompt.messages[0].content.text : "";
    assert.match(text, /get_changes/);
    assert.match(text, /pullRequest 3/);
  });

  test("without a valid token /mcp answers the API's 401", async () => {
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    for (const authorization of [undefined, "Bearer assay_pat_notarealtoken"]) {
      const sent = { ...headers, ...(authorization ? { authorization } : {}) };
      const mcp = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: sent,
        body: JSON.stringify(message),
      });
      const api = await fetch(server.endpoint, {
        method: "POST",
        headers: sent,
        body: JSON.stringify({ query: "{ viewer { email } }" }),
      });
      assert.equal(mcp.status, 401);
      assert.equal(api.status, 401);
      assert.equal(mcp.headers.get("www-authenticate"), api.headers.get("www-authenticate"));
      assert.deepEqual(await mcp.json(), await api.json());
    }
    const sdk = new Client({ name: "anonymous", version: "1.0.0" });
    await assert.rejects(
      sdk.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`))),
      /401|Unauthorized|unauthenticated/i,
    );
  });

  test("arguments outside the input schema and unknown tools are tool errors the model can read", async () => {
    const bad = (await client.callTool({
      name: "set_metric_threshold",
      arguments: { ...REPO, metric: "NOPE", threshold: "high" },
    })) as CallToolResult;
    assert.equal(bad.isError, true);
    const badText = bad.content[0]?.type === "text" ? bad.content[0].text : "";
    assert.match(
      badText,
      /^MCP error -32602: Input validation error: Invalid arguments for tool set_metric_threshold/,
    );
    const unknown = (await client.callTool({ name: "no_such_tool", arguments: {} })) as CallToolResult;
    assert.equal(unknown.isError, true);
    const unknownText = unknown.content[0]?.type === "text" ? unknown.content[0].text : "";
    assert.match(unknownText, /^MCP error -32602: Tool no_such_tool not found/);
  });

  test("a JSON-RPC batch is refused whole (-32600), runs nothing and costs one request", async () => {
    const used = async () =>
      Number((await gql(server.endpoint, token, "{ viewer { email } }")).headers.get("x-ratelimit-used"));
    const call = (id: number, threshold: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "set_metric_threshold", arguments: { ...REPO, metric: "DCV", threshold } },
    });
    for (const batch of [[call(1, 41), call(2, 42)], []]) {
      const before = await used();
      const answer = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(batch),
      });
      assert.equal(answer.status, 400);
      assert.equal(Number(answer.headers.get("x-ratelimit-used")), before + 1);
      const body = (await answer.json()) as { id: unknown; error: { code: number; message: string } };
      assert.equal(body.id, null);
      assert.equal(body.error.code, -32600);
      assert.match(body.error.message, /batch/i);
    }
    const read = dataOf(
      await gql(
        server.endpoint,
        token,
        `{ repository(${REPO_VARS}) { metrics(shortcodeIn: [DCV]) { items { key threshold } } } }`,
      ),
    ).repository as { metrics: Array<{ items: Array<{ threshold: number | null }> }> };
    assert.ok(read.metrics[0]?.items.every((item) => item.threshold !== 41 && item.threshold !== 42));
  });

  test("the server does not advertise list changes it never notifies", () => {
    const capabilities = client.getServerCapabilities();
    assert.ok(capabilities?.tools && capabilities.resources && capabilities.prompts);
    assert.notEqual(capabilities.tools.listChanged, true);
    assert.notEqual(capabilities.resources.listChanged, true);
    assert.notEqual(capabilities.prompts.listChanged, true);
  });

  test("update_metric_setting says what the API does: enforcement without reporting is accepted", async () => {
    const description = tools.find((t) => t.name === "update_metric_setting")?.description ?? "";
    assert.doesNotMatch(description, /needs reporting/i);
    const setting = await call<{ isReported: boolean; isThresholdEnforced: boolean }>(
      client,
      "update_metric_setting",
      { ...REPO, metric: "DDP", isReported: false, isThresholdEnforced: true },
    );
    assert.deepEqual(setting, { ...setting, isReported: false, isThresholdEnforced: true });
  });

  test("/mcp/ answers as /mcp; a message that is not JSON-RPC 2.0 is -32600 Invalid Request", async () => {
    const post = (path: string, message: unknown, extra: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...extra,
        },
        body: JSON.stringify(message),
      });
    const slash = await post("/mcp/", { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    assert.equal(slash.status, 200);
    assert.equal(
      ((await slash.json()) as { result: { tools: unknown[] } }).result.tools.length,
      ASSAY_TOOLS.length,
    );
    for (const message of [
      { id: 2, method: "tools/list" },
      { jsonrpc: "1.0", id: 3, method: "tools/list" },
    ]) {
      const answer = await post("/mcp", message);
      assert.equal(answer.status, 400);
      const body = (await answer.json()) as { error: { code: number } };
      assert.equal(body.error.code, -32600, JSON.stringify(message));
    }
  });

  test("a request from another Origin is refused (403); its own origin and none are served", async () => {
    const post = (origin?: string) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(origin ? { origin } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
    const evil = await post("http://evil.example");
    assert.equal(evil.status, 403);
    const body = (await evil.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    assert.equal(body.errors[0]?.extensions.code, "FORBIDDEN");
    assert.match(body.errors[0]?.message ?? "", /Origin http:\/\/evil\.example/);
    assert.equal((await post(new URL(server.url).origin)).status, 200);
    assert.equal((await post()).status, 200);
  });

  test("GET and DELETE /mcp answer 405 naming POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const answer = await fetch(`${server.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(answer.status, 405);
      assert.equal(answer.headers.get("allow"), "POST");
    }
  });
});

describe("get_changes by commit", () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });

  after(async () => {
    await server?.stop();
  });

  test("answers the repository's own run of the SHA in the API's order, new findings first", async () => {
    const user = await aUser(server.db);
    const account = await anAccount(server.db, {}, [{ user, role: "ADMIN", isOwner: true }]);
    const [asked, other] = [await aRepository(server.db, account), await aRepository(server.db, account)];
    const sha = "c0ffee".padEnd(40, "0");
    const run = await aRun(server.db, asked, { commitOid: sha, createdAt: new Date(Date.now() - 60_000) });
    // A newer run of the same SHA in another repository the caller sees (a fork, a mirror).
    await aRun(server.db, other, { commitOid: sha });
    const [python, go] = [await anAnalyzer(server.db), await anAnalyzer(server.db)];
    const [pyIssue, goIssue] = [await anIssue(server.db, python), await anIssue(server.db, go)];
    // Upper-case paths sort before lower-case ones bytewise, not in a locale's order.
    await occurrencesIn(server.db, await aCheck(server.db, run, python), [
      { issue: pyIssue, path: "b.py", state: "EXISTING" },
      { issue: pyIssue, path: "Setup.py", state: "INTRODUCED" },
      { issue: pyIssue, path: "a.py", state: "INTRODUCED" },
    ]);
    await occurrencesIn(server.db, await aCheck(server.db, run, go), [
      { issue: goIssue, path: "Makefile.go", state: "EXISTING" },
      { issue: goIssue, path: "main.go", state: "INTRODUCED" },
    ]);
    const { client } = await connect(server, await aToken(server.db, server.config.tokenPepper, user));
    try {
      const answer = await call<{
        run: { runUid: string };
        findings: Array<{ path: string; isIntroduced: boolean }>;
        findingsIntroduced: number;
        findingsExisting: number;
      }>(client, "get_changes", { login: account.login, name: asked.name, commitOid: sha });
      assert.equal(answer.run.runUid, run.run_uid);
      assert.deepEqual(
        answer.findings.map((f) => [f.path, f.isIntroduced]),
        [
          ["Setup.py", true],
          ["a.py", true],
          ["main.go", true],
          ["Makefile.go", false],
          ["b.py", false],
        ],
      );
      assert.deepEqual([answer.findingsIntroduced, answer.findingsExisting], [3, 2]);
      const firstTwo = await call<{ findings: Array<{ path: string }> }>(client, "get_changes", {
        login: account.login,
        name: asked.name,
        commitOid: sha,
        first: 2,
      });
      assert.deepEqual(
        firstTwo.findings.map((f) => f.path),
        ["Setup.py", "a.py"],
      );
      const none = await callFailing(client, "get_changes", {
        login: account.login,
        name: asked.name,
        commitOid: "d".repeat(40),
      });
      assert.equal(none.code, "NOT_FOUND");
      assert.match(none.text, /has no analysis run of commit d{40}/);
    } finally {
      await client.close();
    }
  });
});

describe("list_repositories with a login", () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });

  after(async () => {
    await server?.stop();
  });

  test("asks for that account, past the first 50 and in any case, and is not truncated", async () => {
    const user = await aUser(server.db);
    const prefix = `many${Date.now().toString(36)}`;
    const accounts = [];
    for (let i = 0; i < 52; i++) {
      accounts.push(
        await anAccount(server.db, { login: `${prefix}-${String(i).padStart(2, "0")}` }, [{ user }]),
      );
    }
    const last = accounts[51]!;
    const repository = await aRepository(server.db, last);
    const { client } = await connect(server, await aToken(server.db, server.config.tokenPepper, user));
    try {
      const all = await call<{ repositories: unknown[]; truncated: boolean }>(
        client,
        "list_repositories",
        {},
      );
      assert.equal(all.truncated, true, "52 accounts are more than one call lists");
      const one = await call<{ repositories: Array<{ login: string; name: string }>; truncated: boolean }>(
        client,
        "list_repositories",
        { login: last.login.toUpperCase() },
      );
      assert.deepEqual(
        one.repositories.map((r) => [r.login, r.name]),
        [[last.login, repository.name]],
      );
      assert.equal(one.truncated, false);
      const unknown = await callFailing(client, "list_repositories", { login: `${prefix}-absent` });
      assert.equal(unknown.code, "NOT_FOUND");
    } finally {
      await client.close();
    }
  });
});

describe("MCP rate limit", () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_HOUR: "3" });
  });

  after(async () => {
    await server?.stop();
  });

  test("an MCP request counts as one API request against the caller's hourly budget", async () => {
    const user = await aUser(server.db);
    const token = await aToken(server.db, server.config.tokenPepper, user);
    const api = await gql(server.endpoint, token, "{ viewer { email } }");
    assert.equal(api.headers.get("x-ratelimit-remaining"), "2");
    const post = (id: number, method: string) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method,
          params:
            method === "initialize"
              ? { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }
              : {},
        }),
      });
    const first = await post(1, "initialize");
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("x-ratelimit-remaining"), "1");
    assert.equal(first.headers.get("x-ratelimit-resource"), "graphql");
    await first.text();
    const second = await post(2, "tools/list");
    assert.equal(second.status, 200);
    assert.equal(second.headers.get("x-ratelimit-remaining"), "0");
    await second.text();
    const third = await post(3, "tools/list");
    assert.equal(third.status, 429);
    assert.ok(Number(third.headers.get("retry-after")) > 0);
    const body = (await third.json()) as { errors: Array<{ extensions: { code: string } }> };
    assert.equal(body.errors[0]?.extensions.code, "RATE_LIMITED");
    const apiAfter = await gql(server.endpoint, token, "{ viewer { email } }");
    assert.equal(apiAfter.status, 429);
  });
});
