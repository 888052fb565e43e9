import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AccountRow } from "../src/db/types.ts";
import { readToolFixture, toolFixture } from "../src/formats/fixtures.ts";
import { encodeGlobalId } from "../src/graphql/global-id.ts";
import { dsnToken } from "../src/modules/repositories/dsn.ts";
import { aRepository } from "./helpers/builders.ts";
import { artifactsProcessed } from "./helpers/builders-artifacts.ts";
import { aCommitOid } from "./helpers/builders-metrics.ts";
import { createArtifact, gql, type TestServer } from "./helpers/server.ts";
import { artifactSettled, startUploaderScene } from "./helpers/uploads.ts";

/**
 * A Go module in a subdirectory (docs/ingestion-coverage.md "Go modules in subdirectories"): the
 * real profile of go-modules/backend (module example.com/shop in backend/) names
 * `example.com/shop/internal/cart/cart.go`, which is the repository's
 * `backend/internal/cart/cart.go`. Uploaded with the run's changed lines, through the API.
 */

const PROFILE = readToolFixture("coverage", "go-modules", "backend.out");
const { workDir, goModules } = toolFixture("coverage", "go-modules", "backend.out");
const CART = "backend/internal/cart/cart.go";
// Every line of cart.go changed (a new file), as the run's changed lines.
const CHANGES = JSON.stringify({ files: { [CART]: [[1, 42]] } });

const UPLOAD = `mutation($input: UploadArtifactInput!) {
  uploadArtifact(input: $input) { ok error artifact { id } }
}`;

const ARTIFACT = `query($id: ID!) { node(id: $id) { ... on Artifact {
  status error warnings workDir goModules { modulePath directory }
  run { changesetStats { lines { new newCovered overall overallCovered } } }
  check {
    metrics { shortcode items { key latestValue } }
    coverageFiles { edges { node { path lines { total covered new newCovered } } } }
  }
} } }`;

interface ArtifactOut {
  status: string;
  error: string | null;
  warnings: string[];
  workDir: string | null;
  goModules: Array<{ modulePath: string; directory: string }> | null;
  run: { changesetStats: { lines: Record<string, number | null> } };
  check: {
    metrics: Array<{ shortcode: string; items: Array<{ key: string; latestValue: number | null }> }>;
    coverageFiles: { edges: Array<{ node: { path: string; lines: Record<string, number | null> } }> };
  };
}

let server: TestServer;
let account: AccountRow;
let token: string;

before(async () => {
  ({ server, account, token } = await startUploaderScene());
});
after(() => server?.stop());

/** Uploads to a new commit of `repositoryId`; answers the mutation's payload. */
async function upload(
  input: Record<string, unknown>,
): Promise<{ ok: boolean; error: string; artifact: { id: string } | null }> {
  const res = await gql<{ uploadArtifact: { ok: boolean; error: string; artifact: { id: string } | null } }>(
    server.endpoint,
    token,
    UPLOAD,
    { input: { branch: "main", workDir, ...input } },
  );
  assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
  return res.body.data!.uploadArtifact;
}

/** The run's changed lines, then the profile (with `extra` inputs); answers the processed profile's artifact. */
async function uploadWithChanges(extra: Record<string, unknown>): Promise<ArtifactOut> {
  const repository = await aRepository(server.db, account);
  const common = { repositoryId: encodeGlobalId("Repository", repository.key), commitOid: aCommitOid() };
  const changes = await upload({ ...common, analyzer: "changes", data: CHANGES });
  assert.equal(changes.error, "");
  const profile = await upload({ ...common, analyzer: "test-coverage", key: "go", data: PROFILE, ...extra });
  assert.equal(profile.error, "");
  await artifactSettled(server, token, profile.artifact!.id);
  const res = await gql<{ node: ArtifactOut }>(server.endpoint, token, ARTIFACT, {
    id: profile.artifact!.id,
  });
  assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
  return res.body.data!.node;
}

function metric(node: ArtifactOut, shortcode: string): number | null | undefined {
  return node.check.metrics.find((m) => m.shortcode === shortcode)?.items.find((i) => i.key === "GO")
    ?.latestValue;
}

describe("a Go module in a subdirectory", () => {
  test("with goModules its files are the repository's: they pair with the changed files and make NLCV", async () => {
    const node = await uploadWithChanges({ goModules });
    assert.equal(node.status, "PROCESSED", node.error ?? "");
    assert.deepEqual(node.goModules, [
      { modulePath: "example.com/shop", directory: "backend" },
      { modulePath: "example.com/pricing", directory: "libs/pricing" },
    ]);
    assert.equal(node.workDir, workDir, "the workDir is kept as sent");
    const files = node.check.coverageFiles.edges.map((edge) => edge.node);
    assert.deepEqual(
      files.map((file) => file.path),
      [CART],
    );
    // go tool cover -func: 6 of 12 statements (50.0%), each on a line of its own; every line changed.
    const lines = files[0]!.lines;
    assert.deepEqual(lines, { total: 12, covered: 6, new: 12, newCovered: 6 });
    assert.deepEqual(node.run.changesetStats.lines, {
      new: 12,
      newCovered: 6,
      overall: 12,
      overallCovered: 6,
    });
    assert.equal(metric(node, "LCV"), 50);
    assert.equal(metric(node, "NLCV"), 50);
  });

  test("without goModules (what the contract's CLI sends) the files keep their import paths and no changed line is theirs", async () => {
    const node = await uploadWithChanges({});
    assert.equal(node.status, "PROCESSED", node.error ?? "");
    assert.equal(node.goModules, null);
    assert.deepEqual(
      node.check.coverageFiles.edges.map((edge) => edge.node.path),
      ["example.com/shop/internal/cart/cart.go"],
    );
    assert.deepEqual(node.run.changesetStats.lines, {
      new: 0,
      newCovered: 0,
      overall: 12,
      overallCovered: 6,
    });
    assert.equal(metric(node, "LCV"), 50);
    assert.equal(metric(node, "NLCV"), undefined, "no changed line has an execution count: no NLCV");
  });

  test("goModules that do not say where a module is refuse the upload, naming the entry", async () => {
    const repository = await aRepository(server.db, account);
    const common = {
      repositoryId: encodeGlobalId("Repository", repository.key),
      commitOid: aCommitOid(),
      analyzer: "test-coverage",
      key: "go",
      data: PROFILE,
    };
    const refusals: Array<[unknown, RegExp]> = [
      [
        [{ modulePath: "example.com/shop", directory: "../backend" }],
        /^goModules\[0\]\.directory "\.\.\/backend" has an empty, "\." or "\.\." segment/,
      ],
      [
        [{ modulePath: "example.com/shop", directory: "/ci/repo/backend" }],
        /^goModules\[0\]\.directory "\/ci\/repo\/backend" is absolute/,
      ],
      [
        [{ modulePath: "example.com/ shop", directory: "backend" }],
        /^goModules\[0\]\.modulePath "example\.com\/ shop" holds a space/,
      ],
      [
        [
          { modulePath: "example.com/shop", directory: "backend" },
          { modulePath: "example.com/shop", directory: "api" },
        ],
        /^goModules names the module path example\.com\/shop twice \(directories "backend" and "api"\)/,
      ],
    ];
    for (const [modules, message] of refusals) {
      const answer = await upload({ ...common, goModules: modules });
      assert.equal(answer.ok, false);
      assert.match(answer.error, message);
    }
    const lcov = await upload({
      ...common,
      key: "javascript",
      data: "SF:a.js\nDA:1,1\nend_of_record\n",
      goModules,
    });
    assert.match(
      lcov.error,
      /^goModules places the files of a Go cover profile: send it only with analyzer test-coverage and key go/,
    );
    await artifactsProcessed(server.db, repository.id);
    const stored = await server.db
      .selectFrom("artifacts")
      .select("id")
      .where("repository_id", "=", repository.id)
      .execute();
    assert.deepEqual(stored, [], "nothing refused is stored");
  });

  test("createArtifact carries the modules in its goModules extension", async () => {
    const repository = await aRepository(server.db, account);
    const answer = await createArtifact(server, {
      accessToken: dsnToken(repository, server.config.tokenPepper),
      commitOid: aCommitOid(),
      analyzer: "test-coverage",
      key: "go",
      data: PROFILE,
      metadata: { workDir },
      goModules: [{ modulePath: "example.com/shop", directory: "./backend/" }],
    });
    assert.deepEqual(answer, { ok: true, error: "" });
    await artifactsProcessed(server.db, repository.id);
    const [artifact] = await server.db
      .selectFrom("artifacts")
      .select("go_modules")
      .where("repository_id", "=", repository.id)
      .execute();
    assert.deepEqual(artifact?.go_modules, [{ modulePath: "example.com/shop", directory: "backend" }]);
    const [file] = await server.db
      .selectFrom("coverage_files")
      .innerJoin("artifacts", "artifacts.id", "coverage_files.artifact_id")
      .select("coverage_files.path")
      .where("artifacts.repository_id", "=", repository.id)
      .execute();
    assert.equal(file?.path, CART);
  });
});
