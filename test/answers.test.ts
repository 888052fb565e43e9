import assert from "node:assert/strict";
import fs from "node:fs";
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
import { registerSecret } from "./helpers/secret-leaks.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The API's answers on the demo data, byte for byte. A change made for speed (graphql-jit, the
 * caches, a rewritten query) must not change one byte of what a client reads, so the answers to
 * the documented examples are kept in test/fixtures/answers and every run — both execution
 * engines, both databases — must send exactly those bytes.
 *
 * The demo is seeded at a fixed time, with its fixed seed: every row it writes in bulk, keys
 * included, is then the same on every run (src/modules/demo/generator.ts). Examples whose answers
 * hold rows the real ingestion code writes with random keys and the time of the write (pull
 * requests, SBOM findings, some metric values), or that are computed against today's date (the
 * reports), cannot be compared byte for byte and are left to test/examples.test.ts.
 *
 * After an intended change of an answer, rewrite the files and review their diff:
 *   ASSAY_WRITE_ANSWERS=1 npm test -- test/answers.test.ts
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const ANSWERS = path.join(ROOT, "test", "fixtures", "answers");
const SEEDED_AT = new Date("2026-11-01T12:00:00Z");
const WRITE = process.env.ASSAY_WRITE_ANSWERS === "1";

/** The examples compared, with the variables the test fills in from the demo data. */
const COMPARED = [
  "viewer-and-accounts",
  "node-lookup",
  "repository-latest-runs",
  "run-checks-and-issues",
  "repository-issues-with-occurrences",
  "pagination",
];

/** Operations beyond the examples: errors are answers too, and their bytes matter to clients. */
const EXTRA: Record<string, { query: string; variables?: Record<string, unknown> }> = {
  "missing-repository": {
    query: '{ repository(login: "acme-labs", name: "no-such-repository", vcsProvider: GITHUB) { id name } }',
  },
  "unknown-node": { query: '{ node(id: "UmVwb3NpdG9yeTpub3N1Y2hrZXk=") { id } }' },
  "invalid-variable": {
    query: "query($first: Int) { viewer { accounts(first: $first) { totalCount } } }",
    variables: { first: "ten" },
  },
  "account-issues-page": {
    query: `{
      viewer { accounts(first: 5) { totalCount edges { node { login
        repositories(first: 3) { totalCount edges { node { name isActivated defaultBranch
          issues(first: 5) { totalCount edges { node { id
            issue { shortcode title category severity }
            occurrences(first: 2) { totalCount edges { node { id path beginLine endLine title } } }
          } } }
        } } }
      } } } }
    }`,
  },
};

describe("answers on the demo data, byte for byte", () => {
  let server: TestServer;
  let token: string;
  const derived: Record<string, unknown> = {};

  /** The answer's body exactly as sent. */
  async function answer(query: string, variables: Record<string, unknown>): Promise<string> {
    const response = await fetch(server.endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    return response.text();
  }

  /** Compares `body` with the kept answer `name` (or keeps it, when writing). */
  function compare(name: string, body: string): void {
    const file = path.join(ANSWERS, `${name}.json`);
    const parsed = JSON.parse(body) as unknown;
    if (WRITE) {
      fs.mkdirSync(ANSWERS, { recursive: true });
      fs.writeFileSync(file, `${JSON.stringify(parsed, null, 2)}\n`);
      return;
    }
    assert.ok(fs.existsSync(file), `${name}: no kept answer; write it with ASSAY_WRITE_ANSWERS=1`);
    // Kept indented for readable diffs; the server sends JSON.stringify's compact form, which the
    // kept value gives back exactly (key order, escapes and numbers are what JSON.stringify makes).
    const kept = JSON.stringify(JSON.parse(fs.readFileSync(file, "utf8")));
    if (body !== kept) {
      assert.deepEqual(parsed, JSON.parse(kept), `${name}: the answer changed`);
      assert.equal(body, kept, `${name}: the same value, but not the same bytes`);
    }
  }

  before(async () => {
    server = await startTestServer();
    ({ token } = await seedDemo(
      server.db,
      { pepper: server.config.tokenPepper, uploadSbom: ingestRunSbom },
      SEEDED_AT,
    ));
    registerSecret(token);
    const body = JSON.parse(await answer(DERIVED_VARIABLES_QUERY, {})) as { data: unknown };
    Object.assign(derived, derivedVariables(body.data));
  });
  after(() => server.stop());

  test("the compared examples exist", () => {
    for (const name of COMPARED) assert.ok(fs.existsSync(path.join(EXAMPLES_DIR, `${name}.graphql`)), name);
  });

  for (const name of COMPARED) {
    test(`example ${name}`, async () => {
      const { query, variables } = exampleOperation(name, derived);
      const body = await answer(query, variables);
      assert.doesNotMatch(body, /"errors"/, body.slice(0, 500));
      compare(name, body);
      // The second time the document, its compiled form and the caller come from the caches.
      assert.equal(
        await answer(query, variables),
        body,
        `${name}: a repeated request answers the same bytes`,
      );
    });
  }

  for (const [name, { query, variables = {} }] of Object.entries(EXTRA)) {
    test(`operation ${name}`, async () => {
      const body = await answer(query, variables);
      assert.equal(body.includes('"data"'), !name.startsWith("invalid"), body.slice(0, 500));
      compare(name, body);
      assert.equal(
        await answer(query, variables),
        body,
        `${name}: a repeated request answers the same bytes`,
      );
    });
  }

  test("no kept answer is left without its operation", () => {
    const expected = new Set([...COMPARED, ...Object.keys(EXTRA)].map((name) => `${name}.json`));
    for (const file of fs.readdirSync(ANSWERS))
      assert.ok(expected.has(file), `${file} is no longer compared`);
  });
});
