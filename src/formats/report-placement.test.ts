import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { normaliseCoveragePath, resolveCoveragePath } from "./coverage/paths.ts";
import { reportPlacement, storedPlacement } from "./report-placement.ts";
import { resolveArtifactPath } from "./sarif/paths.ts";

describe("reportPlacement", () => {
  test("without a repositoryRoot, workDir is the root", () => {
    assert.deepEqual(reportPlacement("/ci/repo", null), { root: "/ci/repo", directory: null });
    assert.deepEqual(reportPlacement(null, null), { root: null, directory: null });
  });

  test("a workDir inside repositoryRoot is the directory relative paths start from", () => {
    assert.deepEqual(reportPlacement("/ci/repo/web", "/ci/repo"), { root: "/ci/repo", directory: "web" });
    assert.deepEqual(reportPlacement("/ci/repo/apps/web/", "/ci/repo/"), {
      root: "/ci/repo/",
      directory: "apps/web",
    });
    assert.deepEqual(reportPlacement("/ci/repo/./web/../api", "/ci/repo"), {
      root: "/ci/repo",
      directory: "api",
    });
    assert.deepEqual(reportPlacement("D:\\a\\repo\\web", "d:/a/repo"), {
      root: "d:/a/repo",
      directory: "web",
    });
    assert.deepEqual(reportPlacement("/ci/repo", "/ci/repo"), { root: "/ci/repo", directory: null });
    assert.deepEqual(reportPlacement(null, "/ci/repo"), { root: "/ci/repo", directory: null });
    assert.deepEqual(reportPlacement("/web", "/"), { root: "/", directory: "web" });
  });

  test("a workDir outside repositoryRoot, or a relative root, is a sentence saying so", () => {
    assert.match(String(reportPlacement("/ci/repo-2/web", "/ci/repo")), /is not inside repositoryRoot/);
    assert.match(String(reportPlacement("/ci", "/ci/repo")), /is not inside repositoryRoot/);
    assert.match(String(reportPlacement("/ci/repo/web", "repo")), /must be an absolute directory/);
    // What was stored despite that is read as workDir alone.
    assert.deepEqual(storedPlacement("/ci/repo-2/web", "/ci/repo"), {
      root: "/ci/repo-2/web",
      directory: null,
    });
  });
});

describe("paths read from the directory a report was made in", () => {
  test("coverage: relative paths join the directory, absolute ones leave the root", () => {
    const options = { workDir: "/ci/repo", directory: "web" };
    assert.equal(normaliseCoveragePath("src/a.js", options), "web/src/a.js");
    assert.equal(normaliseCoveragePath("./src/a.js", options), "web/src/a.js");
    assert.equal(normaliseCoveragePath("../api/b.js", options), "api/b.js");
    assert.equal(normaliseCoveragePath("/ci/repo/web/src/a.js", options), "web/src/a.js");
    assert.deepEqual(resolveCoveragePath("../../x.js", options), {
      path: "../x.js",
      outside: true,
      underRoot: false,
    });
    assert.equal(normaliseCoveragePath("src/a.js", { workDir: "/ci/repo" }), "src/a.js");
  });

  test("findings: a relative artifact URI joins the directory, an absolute one leaves the root", () => {
    const context = { workDir: "/ci/repo", originalUriBaseIds: {}, workingDirectory: "web" };
    assert.deepEqual(resolveArtifactPath("src/a.js", undefined, context), {
      path: "web/src/a.js",
      outsideRepository: false,
    });
    assert.deepEqual(resolveArtifactPath("file:///ci/repo/web/src/a.js", undefined, context), {
      path: "web/src/a.js",
      outsideRepository: false,
    });
    assert.deepEqual(resolveArtifactPath("../../x.js", undefined, context), {
      path: "../x.js",
      outsideRepository: true,
    });
  });
});
