import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ingestRunSbom } from "../src/ingestion/sca/sbom-upload.ts";
import { seedDemo } from "../src/modules/demo/demo-seed.ts";
import {
  DERIVED_VARIABLES_QUERY,
  derivedVariables,
  EXAMPLES_DIR,
  exampleOperation,
} from "./helpers/examples.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * Every example operation in docs/examples runs against the demo data without errors. Files are
 * discovered by listing the folder, so a new example is tested as soon as it is added.
 */

/** The example files, by name without extension. */
const exampleNames = readdirSync(EXAMPLES_DIR)
  .filter((file) => file.endsWith(".graphql"))
  .map((file) => file.slice(0, -".graphql".length))
  .sort();

/**
 * Lists, as dotted paths, that must hold at least one item in an example's answer, so the
 * example shows real data. `*` walks every item of a list; at least one of the lists reached must
 * be non-empty.
 */
const NON_EMPTY: Record<string, string[]> = {
  "viewer-and-accounts": ["viewer.accounts.edges", "viewer.accounts.edges.*.node.repositories.edges"],
  "repository-latest-runs": [
    "repository.analysisRuns.edges",
    "repository.analysisRuns.edges.*.node.summary.occurrenceDistributionByAnalyzer",
  ],
  "run-checks-and-issues": ["run.checks.edges", "run.checks.edges.*.node.issues.edges"],
  "repository-issues-with-occurrences": [
    "repository.issues.edges",
    "repository.issues.edges.*.node.occurrences.edges",
  ],
  "metrics-with-thresholds": [
    "repository.metrics",
    "repository.metrics.*.items",
    "repository.metrics.*.items.*.values.edges",
  ],
  "pull-requests-with-summary": ["repository.pullRequests.edges"],
  "vulnerability-occurrences": ["repository.dependencyVulnerabilityOccurrences.edges"],
  "owasp-top-10-report": ["repository.reports.owaspTop10.securityIssueStats"],
  pagination: ["repository.analysisRuns.edges"],
};

/** The values at `dotted` in `value`, walking every list item at `*`. */
function valuesAt(value: unknown, dotted: string): unknown[] {
  let current: unknown[] = [value];
  for (const part of dotted.split(".")) {
    current = current.flatMap((item) => {
      if (part === "*") return Array.isArray(item) ? item : [];
      return item !== null && typeof item === "object" ? [(item as Record<string, unknown>)[part]] : [];
    });
  }
  return current;
}

describe("documented examples", () => {
  let server: TestServer;
  let token: string;
  /** Variables the test derives from the demo data, by name; they override the files' values. */
  const derived: Record<string, unknown> = {};

  before(async () => {
    server = await startTestServer();
    ({ token } = await seedDemo(server.db, { pepper: server.config.tokenPepper, uploadSbom: ingestRunSbom }));
    Object.assign(
      derived,
      derivedVariables(dataOf(await gql(server.endpoint, token, DERIVED_VARIABLES_QUERY))),
    );
    assert.ok(derived.runUid, "the demo repository api-gateway has runs");
  });
  after(() => server.stop());

  /** Runs one example with its variables file, derived variables filled in. */
  async function run(name: string, overrides: Record<string, unknown> = {}) {
    const { query, variables } = exampleOperation(name, derived);
    return gql(server.endpoint, token, query, { ...variables, ...overrides });
  }

  test("the examples folder holds the documented examples, each with a comment header", () => {
    assert.ok(exampleNames.length >= 10, `found ${exampleNames.join(", ")}`);
    for (const name of Object.keys(NON_EMPTY))
      assert.ok(exampleNames.includes(name), `${name}.graphql exists`);
    for (const name of exampleNames) {
      const text = readFileSync(path.join(EXAMPLES_DIR, `${name}.graphql`), "utf8");
      assert.match(text, /^# \S/, `${name}.graphql starts with a # comment saying what it shows`);
    }
  });

  for (const name of exampleNames) {
    test(`example ${name} answers 200 without errors`, async () => {
      const res = await run(name);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
      const data = dataOf(res);
      for (const dotted of NON_EMPTY[name] ?? []) {
        const lists = valuesAt(data, dotted).filter(Array.isArray);
        assert.ok(
          lists.some((list) => list.length > 0),
          `${name}: ${dotted} holds at least one item`,
        );
      }
    });
  }

  test("example pagination's endCursor, passed as after, gives the next page", async () => {
    type Page = {
      repository: {
        analysisRuns: {
          pageInfo: { hasNextPage: boolean; endCursor: string | null };
          edges: Array<{ node: { runUid: string } }>;
        };
      };
    };
    const first = (dataOf(await run("pagination")) as Page).repository.analysisRuns;
    assert.equal(first.pageInfo.hasNextPage, true);
    const second = (dataOf(await run("pagination", { after: first.pageInfo.endCursor })) as Page).repository
      .analysisRuns;
    assert.ok(second.edges.length > 0);
    const seen = new Set(first.edges.map((edge) => edge.node.runUid));
    assert.ok(second.edges.every((edge) => !seen.has(edge.node.runUid)));
  });

  test("example node-lookup answers the repository whose id the test filled in", async () => {
    const node = dataOf(await run("node-lookup")).node as { id: string; __typename: string; name: string };
    assert.deepEqual(
      { id: node.id, type: node.__typename, name: node.name },
      { id: derived.id, type: "Repository", name: "api-gateway" },
    );
  });
});
