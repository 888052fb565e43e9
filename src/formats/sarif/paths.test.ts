// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type PathContext, resolveArtifactPath } from "./paths.ts";

const posix: PathContext = {
  workDir: "/home/ci/work/repo",
  originalUriBaseIds: {
    SRCROOT: { uri: "file:///home/ci/work/repo/" },
    LIB: { uri: "lib/", uriBaseId: "SRCROOT" },
    ELSEWHERE: { uri: "file:///opt/tools/" },
  },
};

describe("resolveArtifactPath", () => {
  it("keeps a plain relative URI relative to the repository root", () => {
    assert.deepEqual(resolveArtifactPath("src/a.ts", undefined, posix), {
      path: "src/a.ts",
      outsideRepository: false,
    });
  });

  it("percent-decodes the URI", () => {
    assert.deepEqual(resolveArtifactPath("src/my%20file%23%C3%A9.ts", "SRCROOT", posix), {
      path: "src/my file#é.ts",
      outsideRepository: false,
    });
  });

  it("reads a plain path, with no base and no file: scheme, as the file name the tool wrote", () => {
    // Biome writes absolute paths and oxlint relative ones without encoding them: `a%20b.js` is a
    // file of that name, where ESLint's formatter would write file:///…/a%2520b.js.
    assert.deepEqual(resolveArtifactPath("pct/a%20b.js", undefined, posix), {
      path: "pct/a%20b.js",
      outsideRepository: false,
    });
    assert.deepEqual(resolveArtifactPath("/home/ci/work/repo/pct/100%25 sure.js", undefined, posix), {
      path: "pct/100%25 sure.js",
      outsideRepository: false,
    });
    assert.deepEqual(resolveArtifactPath("file:///home/ci/work/repo/pct/a%2520b.js", undefined, posix), {
      path: "pct/a%20b.js",
      outsideRepository: false,
    });
    // The checkout directory CI sends is a path too.
    const literal: PathContext = { workDir: "/builds/my%20repo", originalUriBaseIds: {} };
    assert.deepEqual(resolveArtifactPath("/builds/my%20repo/a.js", undefined, literal), {
      path: "a.js",
      outsideRepository: false,
    });
    assert.deepEqual(resolveArtifactPath("file:///builds/my%2520repo/a.js", undefined, literal), {
      path: "a.js",
      outsideRepository: false,
    });
  });

  it("resolves chained originalUriBaseIds", () => {
    assert.deepEqual(resolveArtifactPath("x/y.ts", "LIB", posix), {
      path: "lib/x/y.ts",
      outsideRepository: false,
    });
  });

  it("treats an undefined base id as the repository root", () => {
    assert.deepEqual(resolveArtifactPath("a.ts", "%SRCROOT%", posix), {
      path: "a.ts",
      outsideRepository: false,
    });
  });

  it("makes absolute file:// URIs relative to workDir", () => {
    assert.deepEqual(resolveArtifactPath("file:///home/ci/work/repo/src/./b/../a.ts", undefined, posix), {
      path: "src/a.ts",
      outsideRepository: false,
    });
  });

  it("reports a path outside the repository as such", () => {
    assert.deepEqual(resolveArtifactPath("file:///usr/include/stdio.h", undefined, posix), {
      path: "/usr/include/stdio.h",
      outsideRepository: true,
    });
    assert.deepEqual(resolveArtifactPath("lib.ts", "ELSEWHERE", posix), {
      path: "/opt/tools/lib.ts",
      outsideRepository: true,
    });
    assert.deepEqual(resolveArtifactPath("../other/x.ts", undefined, posix), {
      path: "../other/x.ts",
      outsideRepository: true,
    });
    assert.deepEqual(
      resolveArtifactPath("file:///home/ci/work/repository2/x.ts", undefined, posix).outsideRepository,
      true,
    );
  });

  it("reads a first segment with a colon as a path, and only file: and scheme:// as URI schemes", () => {
    // secretlint and oxlint write `prod:env.txt` for a file of that name at the root.
    assert.deepEqual(resolveArtifactPath("prod:env.txt", undefined, posix), {
      path: "prod:env.txt",
      outsideRepository: false,
    });
    assert.deepEqual(resolveArtifactPath("build:prod.js", "SRCROOT", posix), {
      path: "build:prod.js",
      outsideRepository: false,
    });
    assert.deepEqual(resolveArtifactPath("https://cdn.example.com/lib.js", undefined, posix), {
      path: "https:/cdn.example.com/lib.js",
      outsideRepository: true,
    });
    assert.equal(resolveArtifactPath("git://host/repo/a.c", undefined, posix).outsideRepository, true);
  });

  it("normalises Windows separators and drive letters", () => {
    const windows: PathContext = { workDir: "C:\\agent\\_work\\repo", originalUriBaseIds: {} };
    assert.deepEqual(resolveArtifactPath("file:///c:/agent/_work/repo/src/Main.cs", undefined, windows), {
      path: "src/Main.cs",
      outsideRepository: false,
    });
    assert.deepEqual(resolveArtifactPath("src\\util\\x.cs", undefined, windows), {
      path: "src/util/x.cs",
      outsideRepository: false,
    });
  });

  it("treats an absolute path as outside when workDir is unknown", () => {
    const context: PathContext = { workDir: null, originalUriBaseIds: {} };
    assert.equal(resolveArtifactPath("/src/a.ts", undefined, context).outsideRepository, true);
  });
});
