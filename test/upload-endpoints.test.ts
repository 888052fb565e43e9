import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import type { AccountRow, RepositoryRow, UserRow } from "../src/db/types.ts";
import { encodeGlobalId, newRowKey } from "../src/graphql/global-id.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { rawRequest } from "./helpers/raw-request.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The two upload endpoints (docs/ingestion.md "Upload paths"): `createArtifact` at
 * `/graphql/cli/` exactly as DeepSource's CLI sends it, and the token-authenticated
 * `uploadArtifact` on the main endpoint. Processing is the worker's (switched off here): these
 * tests look at what the intake stores, or that it stores nothing.
 */

// The CLI's documents, byte for byte (DeepSourceCorp/cli internal/services/report/constants.go).
const REPORT_MUTATION =
  "mutation($input: CreateArtifactInput!) {\r\n  createArtifact(input: $input) {\r\n    ok\r\n  message\r\n  error\r\n  }\r\n}";
const COMPRESSION_PROBE =
  'query {\r\n __type(name: "ArtifactMetadataInput") {\r\n inputFields {\r\n name\r\n }\r\n }\r\n}';

const UPLOAD_MUTATION = `mutation Upload($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) {
    ok message error artifactId clientMutationId
    run { commitOid branchName status repository { name } }
  }
}`;

const LIMITS = {
  ASSAY_WORKER: "false",
  ASSAY_MAX_BODY_BYTES: "2048",
  ASSAY_ARTIFACT_MAX_BYTES: "16384",
  ASSAY_ARTIFACT_MAX_BODY_BYTES: "65536",
};

let commitCounter = 0;
/** A fresh 40-character commit id. */
function aCommit(): string {
  commitCounter += 1;
  return `${commitCounter.toString(16).padStart(8, "0")}${"ab12".repeat(8)}`;
}

/** A SARIF 2.1.0 log with `count` results (each about 150 bytes). */
function sarif(count = 1, version = "2.1.0"): string {
  return JSON.stringify({
    version,
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    runs: [
      {
        tool: { driver: { name: "ESLint", rules: [{ id: "no-unused-vars" }] } },
        results: Array.from({ length: count }, (_, i) => ({
          ruleId: "no-unused-vars",
          level: "warning",
          message: { text: `'value${i}' is assigned a value but never used.` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: "src/index.js" },
                region: { startLine: i + 1, startColumn: 7 },
              },
            },
          ],
        })),
      },
    ],
  });
}

/** zstd, then base64: what the CLI sends when the server has `compressed`. */
function zstdBase64(text: string): string {
  return execFileSync("zstd", ["-q", "-c", "-"], { input: text }).toString("base64");
}

/** The CLI's `CreateArtifactInput` for a SARIF report, with `fields` replacing any of it. */
function cliInput(token: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    accessToken: token,
    commitOid: aCommit(),
    reporter: "cli",
    reporterVersion: "v0.8.0",
    key: "",
    data: sarif(),
    analyzer: "javascript",
    metadata: { workDir: "/home/ci/project" },
    ...fields,
  };
}

interface CreateArtifactAnswer {
  status: number;
  body: {
    data?: { createArtifact: { ok: boolean; message: string; error: string } | null };
    errors?: Array<{ message: string; extensions?: { code?: string } }>;
  };
}

describe("artifact uploads", () => {
  let server: TestServer;
  let cliUrl: string;
  let team: AccountRow;
  let repo: RepositoryRow;
  let otherRepo: RepositoryRow;
  let admin: UserRow;
  let member: UserRow;
  let adminToken: string;
  let memberToken: string;
  let contributorToken: string;
  let dsn: string;

  before(async () => {
    server = await startTestServer(LIMITS);
    cliUrl = `${server.url}/graphql/cli/`;
    admin = await aUser(server.db);
    member = await aUser(server.db);
    const contributor = await aUser(server.db);
    team = await anAccount(server.db, { login: "upload-team" }, [
      { user: admin, role: "ADMIN" },
      { user: member, role: "MEMBER" },
      { user: contributor, role: "CONTRIBUTOR" },
    ]);
    repo = await aRepository(server.db, team, { name: "shop" });
    const stranger = await aUser(server.db);
    const otherTeam = await anAccount(server.db, {}, [{ user: stranger, role: "ADMIN" }]);
    otherRepo = await aRepository(server.db, otherTeam, { name: "secret" });
    adminToken = await aToken(server.db, server.config.tokenPepper, admin);
    memberToken = await aToken(server.db, server.config.tokenPepper, member);
    contributorToken = await aToken(server.db, server.config.tokenPepper, contributor);
    dsn = dsnToken(repo, server.config.tokenPepper);
  });
  after(() => server.stop());

  /** POSTs `createArtifact` as the CLI does (the exact document, no Authorization header). */
  async function createArtifact(input: Record<string, unknown>, url = cliUrl): Promise<CreateArtifactAnswer> {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: REPORT_MUTATION, variables: { input } }),
    });
    return { status: response.status, body: (await response.json()) as CreateArtifactAnswer["body"] };
  }

  /** Row counts of every table an upload writes. */
  async function counts(): Promise<Record<string, number>> {
    const count = async (table: "analysis_runs" | "checks" | "artifacts" | "artifact_chunks" | "jobs") =>
      Number(
        (
          await server.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      runs: await count("analysis_runs"),
      checks: await count("checks"),
      artifacts: await count("artifacts"),
      chunks: await count("artifact_chunks"),
      jobs: await count("jobs"),
    };
  }

  /** Runs `upload` and checks that it was refused with an `error` matching `reason` and stored nothing. */
  async function assertRefusedWithoutTrace(
    upload: () => Promise<CreateArtifactAnswer>,
    reason: RegExp | string,
  ): Promise<void> {
    const before = await counts();
    const answer = await upload();
    assert.equal(answer.status, 200);
    const payload = answer.body.data?.createArtifact;
    assert.ok(payload, JSON.stringify(answer.body));
    assert.equal(payload.ok, false);
    assert.equal(payload.message, "");
    if (typeof reason === "string") assert.equal(payload.error, reason);
    else assert.match(payload.error, reason);
    assert.deepEqual(await counts(), before, "a refused upload stores nothing");
  }

  /** The artifact stored for `commitOid`, with its run and check. */
  async function storedUpload(commitOid: string) {
    const run = await server.db
      .selectFrom("analysis_runs")
      .selectAll()
      .where("repository_id", "=", repo.id)
      .where("commit_oid", "=", commitOid)
      .executeTakeFirstOrThrow();
    const artifacts = await server.db
      .selectFrom("artifacts")
      .selectAll()
      .where("run_id", "=", run.id)
      .execute();
    assert.equal(artifacts.length, 1);
    const artifact = artifacts[0]!;
    const checks = await server.db.selectFrom("checks").selectAll().where("run_id", "=", run.id).execute();
    const jobs = await server.db
      .selectFrom("jobs")
      .selectAll()
      .where("kind", "=", "ingest.artifact")
      .where("dedupe_key", "=", `ingest.artifact:${artifact.id}`)
      .execute();
    return { run, artifact, checks, jobs };
  }

  describe("createArtifact at /graphql/cli/", () => {
    test("the CLI's compression probe is answered without credentials, at every path form", async () => {
      for (const path of ["/graphql/cli/", "/graphql/cli", "/api/graphql/cli/", "/api/graphql/cli"]) {
        const response = await fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: COMPRESSION_PROBE }),
        });
        assert.equal(response.status, 200, path);
        const body = (await response.json()) as {
          data: { __type: { inputFields: Array<{ name: string }> } };
        };
        assert.deepEqual(
          body.data.__type.inputFields.map((field) => field.name).sort(),
          ["compressed", "workDir"],
          path,
        );
      }
    });

    test("a plain SARIF report is accepted with the contract's answer, and a run, check, artifact and job are stored", async () => {
      const commitOid = aCommit();
      const answer = await createArtifact(cliInput(dsn, { commitOid, data: sarif(3) }));
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, {
        data: {
          createArtifact: {
            ok: true,
            message: `Artifact successfully uploaded for repository upload-team/shop on commit ${commitOid}.`,
            error: "",
          },
        },
      });
      const { run, artifact, checks, jobs } = await storedUpload(commitOid);
      assert.equal(run.status, "PENDING");
      assert.equal(run.branch_name, "main", "a DSN upload of a new commit takes the default branch");
      assert.equal(checks.length, 1);
      assert.equal(artifact.check_id, checks[0]!.id);
      assert.equal(artifact.status, "QUEUED");
      assert.equal(artifact.kind, "SARIF");
      assert.equal(artifact.analyzer, "javascript");
      assert.equal(artifact.compression, "NONE");
      assert.equal(artifact.reporter, "cli");
      assert.equal(artifact.reporter_version, "v0.8.0");
      assert.equal(artifact.work_dir, "/home/ci/project");
      assert.equal(artifact.uploaded_by, null);
      assert.equal(artifact.language_key, null);
      assert.equal(jobs.length, 1);
      assert.deepEqual(jobs[0]!.payload, { artifactId: artifact.id });
    });

    test('a zstd-compressed, base64 report with metadata.compressed "True" is stored as ZSTD', async () => {
      const commitOid = aCommit();
      const data = zstdBase64(sarif(5));
      const answer = await createArtifact(
        cliInput(dsn, { commitOid, data, metadata: { workDir: "/ci", compressed: "True" } }),
      );
      assert.equal(answer.body.data?.createArtifact?.ok, true, JSON.stringify(answer.body));
      const { artifact, jobs } = await storedUpload(commitOid);
      assert.equal(artifact.compression, "ZSTD");
      assert.equal(Number(artifact.stored_bytes), Buffer.from(data, "base64").length);
      assert.equal(artifact.status, "QUEUED");
      assert.equal(jobs.length, 1);
    });

    test("a coverage report with a known language key is stored as COVERAGE", async () => {
      const commitOid = aCommit();
      const lcov = "TN:\nSF:src/index.js\nDA:1,1\nDA:2,0\nLF:2\nLH:1\nend_of_record\n";
      const answer = await createArtifact(
        cliInput(dsn, { commitOid, analyzer: "test-coverage", key: "javascript", data: lcov }),
      );
      assert.equal(answer.body.data?.createArtifact?.ok, true, JSON.stringify(answer.body));
      const { artifact } = await storedUpload(commitOid);
      assert.equal(artifact.kind, "COVERAGE");
      assert.equal(artifact.language_key, "javascript");
    });

    test("an unknown DSN token is refused and nothing is stored", async () => {
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(`${repo.key}${"0".repeat(32)}`)),
        "invalid DSN: no repository has this DSN token (it may have been regenerated)",
      );
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput("not-a-token")),
        "invalid DSN: no repository has this DSN token (it may have been regenerated)",
      );
    });

    test("after the DSN is regenerated the old token is refused and the new one accepted", async () => {
      const own = await aRepository(server.db, team, { name: "regenerated" });
      const oldToken = dsnToken(own, server.config.tokenPepper);
      assert.equal((await createArtifact(cliInput(oldToken))).body.data?.createArtifact?.ok, true);
      const regenerated = await gql<{ regenerateRepositoryDSN: { dsn: string } }>(
        server.endpoint,
        adminToken,
        "mutation($id: ID!) { regenerateRepositoryDSN(input: { repositoryId: $id }) { dsn } }",
        { id: encodeGlobalId("Repository", own.key) },
      );
      const { regenerateRepositoryDSN } = dataOf(regenerated) as { regenerateRepositoryDSN: { dsn: string } };
      const newToken = new URL(regenerateRepositoryDSN.dsn).username;
      assert.notEqual(newToken, oldToken);
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(oldToken)),
        "invalid DSN: no repository has this DSN token (it may have been regenerated)",
      );
      assert.equal((await createArtifact(cliInput(newToken))).body.data?.createArtifact?.ok, true);
    });

    test("a commit id shorter than 7 characters is refused", async () => {
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(dsn, { commitOid: "abc12" })),
        /commitOid/,
      );
    });

    test("test-coverage with an unknown language key is refused", async () => {
      await assertRefusedWithoutTrace(
        () =>
          createArtifact(
            cliInput(dsn, { analyzer: "test-coverage", key: "klingon", data: "TN:\nend_of_record\n" }),
          ),
        /unknown language key "klingon"/,
      );
    });

    test("a SARIF report that is not JSON is refused", async () => {
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(dsn, { data: '{"version": "2.1.0", "runs": [' })),
        /SARIF report is invalid/,
      );
    });

    test("XML that is not cppcheck's is refused as a findings report, naming its root and what is read", async () => {
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(dsn, { data: '<?xml version="1.0"?>\n<testsuites tests="1"/>' })),
        "the report is invalid: line 2: it is XML with the root element <testsuites>, and the XML findings reports read are cppcheck's (<results>, from cppcheck --xml) and checkstyle's (<checkstyle>); other tools' findings are read as SARIF 2.1.0.",
      );
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(dsn, { data: '<results version="2"><errors><error id="x"' })),
        /^the cppcheck XML report is invalid: line 1: /,
      );
    });

    test("go vet's output that is not whole is refused, naming the line; a text that only starts with # is not vet's", async () => {
      await assertRefusedWithoutTrace(
        () =>
          createArtifact(
            cliInput(dsn, { data: '# example.com/a\n{\n\t"example.com/a": {\n\t\t"printf": [\n' }),
          ),
        "the go vet JSON report is invalid: line 5: the JSON object that starts on line 2 is not closed: the report looks truncated.",
      );
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(dsn, { data: "# Release notes\n\nEverything changed.\n" })),
        /^the report is invalid: line 1: it does not start with a line "# <package>" as go vet -json's output does/,
      );
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(dsn, { data: "# Notes\n\nEverything changed.\n" })),
        /^the report is invalid: it has no JSON object: go vet -json writes/,
      );
    });

    test("GCC's JSON cut short is refused naming the line, and another JSON list is not GCC's", async () => {
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(dsn, { data: '[]\n[{"kind": "warning", "message": "m"' })),
        "the GCC JSON report is invalid: line 2: the text ends inside a list of diagnostics: the report looks truncated.",
      );
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(dsn, { data: "[1, 2]" })),
        "the report is invalid: line 1: it is a JSON list whose items are not GCC's diagnostics (objects with a \"kind\"); the only list read as findings is GCC's (-fdiagnostics-format=json), other tools' findings are read as SARIF 2.1.0.",
      );
    });

    test("a SARIF 2.0.0 report is refused naming the version", async () => {
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(dsn, { data: sarif(1, "2.0.0") })),
        /SARIF version "2\.0\.0".*2\.1\.0/,
      );
    });

    test("a report over ASSAY_ARTIFACT_MAX_BYTES is refused, plain or once decompressed, and nothing is stored", async () => {
      const big = sarif(150);
      assert.ok(big.length > 16384 && big.length < 65536, `fixture size ${big.length}`);
      await assertRefusedWithoutTrace(
        () => createArtifact(cliInput(dsn, { data: big })),
        "the report is larger than the limit of 16384 bytes (ASSAY_ARTIFACT_MAX_BYTES)",
      );
      const compressed = zstdBase64(big);
      assert.ok(compressed.length < 16384, "the compressed body is small; only its text is too large");
      await assertRefusedWithoutTrace(
        () =>
          createArtifact(
            cliInput(dsn, { data: compressed, metadata: { workDir: "/ci", compressed: "True" } }),
          ),
        "the report is larger than the limit of 16384 bytes (ASSAY_ARTIFACT_MAX_BYTES)",
      );
    });

    test("a body over ASSAY_ARTIFACT_MAX_BODY_BYTES gets 413, by Content-Length or while reading", async () => {
      const before = await counts();
      const body = JSON.stringify({
        query: REPORT_MUTATION,
        variables: { input: cliInput(dsn, { data: "x".repeat(70_000) }) },
      });
      const honest = await rawRequest(cliUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
        chunks: [body],
      });
      assert.equal(honest.status, 413);
      assert.equal(JSON.parse(honest.text).errors[0].extensions.code, "PAYLOAD_TOO_LARGE");
      const chunked = await rawRequest(cliUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
        chunks: [body.slice(0, 30_000), body.slice(30_000, 60_000), body.slice(60_000)],
      });
      assert.equal(chunked.status, 413);
      assert.deepEqual(await counts(), before);
    });

    test("a body over ASSAY_MAX_BODY_BYTES but within the artifact limit is accepted", async () => {
      const data = sarif(40);
      assert.ok(data.length > 2048);
      assert.equal((await createArtifact(cliInput(dsn, { data }))).body.data?.createArtifact?.ok, true);
    });

    test("GET gets 405, malformed JSON 400 and an oversized document 400, each with an error document", async () => {
      const get = await fetch(`${cliUrl}?query=${encodeURIComponent(COMPRESSION_PROBE)}`);
      assert.equal(get.status, 405);
      assert.equal(get.headers.get("allow"), "POST");
      const malformed = await fetch(cliUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"query": "mutation',
      });
      assert.equal(malformed.status, 400);
      const malformedBody = (await malformed.json()) as { errors: Array<{ extensions: { code: string } }> };
      assert.equal(malformedBody.errors[0]?.extensions.code, "BAD_REQUEST");
      const huge = await fetch(cliUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: `${COMPRESSION_PROBE}\n#${"x".repeat(17_000)}` }),
      });
      assert.equal(huge.status, 400);
      const hugeBody = (await huge.json()) as { errors: Array<{ message: string }> };
      assert.match(hugeBody.errors[0]?.message ?? "", /16384 bytes/);
    });

    test("a document within 16 KB but past the token limit gets 400 MAX_TOKENS_EXCEEDED", async () => {
      const response = await fetch(cliUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: `{ ${"ok ".repeat(2100)}}` }),
      });
      assert.equal(response.status, 400);
      const body = (await response.json()) as { errors: Array<{ extensions: { code: string } }> };
      assert.equal(body.errors[0]?.extensions.code, "MAX_TOKENS_EXCEEDED");
    });

    test("an input missing a required field is a GraphQL error in a 200, and the main schema is not reachable", async () => {
      const { accessToken: _omitted, ...input } = cliInput(dsn);
      const missing = await createArtifact(input);
      assert.equal(missing.status, 200);
      assert.match(missing.body.errors?.[0]?.message ?? "", /accessToken/);
      const viewer = await fetch(cliUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ viewer { email } }" }),
      });
      const viewerBody = (await viewer.json()) as { errors?: unknown[]; data?: unknown };
      assert.ok(viewerBody.errors && !viewerBody.data, "the CLI endpoint's schema has no viewer");
    });
  });

  describe("uploadArtifact on the main endpoint", () => {
    const upload = (token: string | null, input: Record<string, unknown>) =>
      gql<{
        uploadArtifact: {
          ok: boolean;
          message: string;
          error: string;
          artifactId: string | null;
          clientMutationId: string | null;
          run: { commitOid: string; branchName: string; status: string; repository: { name: string } } | null;
        } | null;
      }>(server.endpoint, token, UPLOAD_MUTATION, { input });

    const uploadInput = (repository: RepositoryRow, fields: Record<string, unknown> = {}) => ({
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid: aCommit(),
      analyzer: "javascript",
      data: sarif(),
      ...fields,
    });

    test("a MEMBER's upload is accepted and answers its run", async () => {
      const input = uploadInput(repo, { branch: "feature/cart", clientMutationId: "m1" });
      const response = await upload(memberToken, input);
      assert.equal(response.status, 200);
      assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
      const payload = response.body.data?.uploadArtifact;
      assert.ok(payload);
      assert.equal(payload.ok, true);
      assert.equal(payload.error, "");
      assert.equal(
        payload.message,
        `Artifact successfully uploaded for repository upload-team/shop on commit ${input.commitOid}.`,
      );
      assert.equal(payload.clientMutationId, "m1");
      assert.deepEqual(payload.run, {
        commitOid: input.commitOid,
        branchName: "feature/cart",
        status: "PENDING",
        repository: { name: "shop" },
      });
      const { artifact, jobs } = await storedUpload(input.commitOid);
      assert.equal(payload.artifactId, artifact.key);
      assert.equal(artifact.status, "QUEUED");
      assert.equal(artifact.reporter, "api");
      assert.equal(artifact.compression, "NONE");
      assert.equal(String(artifact.uploaded_by), String(member.id));
      assert.equal(jobs.length, 1);
    });

    test("gzip and zstd compression are read from base64", async () => {
      const gzipped = uploadInput(repo, {
        data: gzipSync(sarif(2)).toString("base64"),
        compression: "GZIP",
        reporter: "assay-cli",
      });
      assert.equal((await upload(adminToken, gzipped)).body.data?.uploadArtifact?.ok, true);
      const stored = await storedUpload(gzipped.commitOid);
      assert.equal(stored.artifact.compression, "GZIP");
      assert.equal(stored.artifact.reporter, "assay-cli");
      const zstd = uploadInput(repo, { data: zstdBase64(sarif(2)), compression: "ZSTD" });
      assert.equal((await upload(adminToken, zstd)).body.data?.uploadArtifact?.ok, true);
      assert.equal((await storedUpload(zstd.commitOid)).artifact.compression, "ZSTD");
    });

    test("a refusal is ok: false with the reason, not a GraphQL error, and stores nothing", async () => {
      const before = await counts();
      const response = await upload(memberToken, uploadInput(repo, { data: sarif(1, "2.0.0") }));
      assert.equal(response.body.errors, undefined);
      const payload = response.body.data?.uploadArtifact;
      assert.equal(payload?.ok, false);
      assert.match(payload?.error ?? "", /2\.1\.0/);
      assert.equal(payload?.run, null);
      assert.equal(payload?.artifactId, null);
      assert.deepEqual(await counts(), before);
    });

    test("a CONTRIBUTOR is FORBIDDEN", async () => {
      const before = await counts();
      const response = await upload(contributorToken, uploadInput(repo));
      assert.equal(response.body.errors?.[0]?.extensions?.code, "FORBIDDEN");
      assert.equal(response.body.data?.uploadArtifact, null);
      assert.deepEqual(await counts(), before);
    });

    test("another account's repository is NOT_FOUND, worded as for an id that never existed", async () => {
      const hidden = await upload(memberToken, uploadInput(otherRepo));
      const unknownId = encodeGlobalId("Repository", newRowKey());
      const unknown = await upload(memberToken, uploadInput(repo, { repositoryId: unknownId }));
      assert.equal(hidden.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
      assert.equal(unknown.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
      const hiddenId = encodeGlobalId("Repository", otherRepo.key);
      assert.equal(
        hidden.body.errors?.[0]?.message,
        unknown.body.errors?.[0]?.message.replace(unknownId, hiddenId),
      );
    });

    test("without a token the usual 401", async () => {
      const response = await upload(null, uploadInput(repo));
      assert.equal(response.status, 401);
      assert.equal(response.body.errors?.[0]?.extensions?.code, "UNAUTHENTICATED");
    });

    test("with a token, an upload body over ASSAY_MAX_BODY_BYTES is accepted; other requests that large are not", async () => {
      const input = uploadInput(repo, { data: sarif(40) });
      const size = Buffer.byteLength(JSON.stringify({ query: UPLOAD_MUTATION, variables: { input } }));
      assert.ok(size > 2048 && size < 16384, `body size ${size}`);
      const accepted = await upload(memberToken, input);
      assert.equal(accepted.status, 200);
      assert.equal(accepted.body.data?.uploadArtifact?.ok, true, JSON.stringify(accepted.body));

      const before = await counts();
      // Without a token the body is never read past ASSAY_MAX_BODY_BYTES: the credential is
      // checked first, so the answer is the usual 401 (docs/architecture.md, a request's path).
      const anonymous = await upload(null, uploadInput(repo, { data: sarif(40) }));
      assert.equal(anonymous.status, 401);
      // With a token, anything but an upload keeps the ordinary limit.
      const query = await gql(server.endpoint, memberToken, `{ viewer { email } } #${"x".repeat(4000)}`);
      assert.equal(query.status, 413);
      assert.equal(query.body.errors?.[0]?.extensions?.code, "PAYLOAD_TOO_LARGE");
      const mixed = await gql(
        server.endpoint,
        memberToken,
        `${UPLOAD_MUTATION.replace("uploadArtifact(input: $input) {", "viewer { email } uploadArtifact(input: $input) {")}`,
        { input: uploadInput(repo, { data: sarif(40) }) },
      );
      assert.equal(mixed.status, 413, "an upload beside another root field gets no allowance");
      assert.deepEqual(await counts(), before);
    });

    test("with a token, a body over ASSAY_ARTIFACT_MAX_BODY_BYTES gets 413", async () => {
      const before = await counts();
      const response = await upload(memberToken, uploadInput(repo, { data: "x".repeat(70_000) }));
      assert.equal(response.status, 413);
      assert.equal(response.body.errors?.[0]?.extensions?.code, "PAYLOAD_TOO_LARGE");
      assert.deepEqual(await counts(), before);
    });
  });
});
