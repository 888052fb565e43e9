import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyingConfigOf, PathPatterns } from "./path-patterns.ts";

const config = (...patterns: unknown[]) => ({ version: 1, exclude_patterns: patterns });

describe("a configuration's path patterns", () => {
  it("match as DeepSource documents them: `dir/**`, `**/dir/` and `dir/**/*.ext`", () => {
    // The examples of docs.deepsource.com ".deepsource.toml".
    const exclude = PathPatterns.of(
      config("bin/**", "**/node_modules/", "js/**/*.min.js"),
      "exclude_patterns",
    );
    assert.equal(exclude.matching("bin/tool"), "bin/**");
    assert.equal(exclude.matching("bin/a/b/tool"), "bin/**");
    assert.equal(exclude.matching("node_modules/x/index.js"), "**/node_modules/");
    assert.equal(exclude.matching("web/app/node_modules/x/index.js"), "**/node_modules/");
    assert.equal(exclude.matching("js/a.min.js"), "js/**/*.min.js");
    assert.equal(exclude.matching("js/a/b/c.min.js"), "js/**/*.min.js");
    for (const kept of [
      "bin",
      "src/bin/tool",
      "node_modules",
      "web/node_modules_old/x.js",
      "js/a.js",
      "src/js/a.min.js",
    ]) {
      assert.equal(exclude.matching(kept), null, kept);
    }
  });

  it("a trailing `/` names a directory: everything under it, not a file of that name", () => {
    const exclude = PathPatterns.of(config("vendor/"), "exclude_patterns");
    assert.equal(exclude.matching("vendor/a.js"), "vendor/");
    assert.equal(exclude.matching("vendor/a/b.js"), "vendor/");
    assert.equal(exclude.matching("vendor"), null);
    assert.equal(exclude.matching("src/vendor/a.js"), null);
  });

  it("`*` stays inside one segment, and a pattern is matched against the whole path", () => {
    const exclude = PathPatterns.of(config("*.min.js", "docs/*.md"), "exclude_patterns");
    assert.equal(exclude.matching("app.min.js"), "*.min.js");
    assert.equal(exclude.matching("src/app.min.js"), null);
    assert.equal(exclude.matching("docs/a.md"), "docs/*.md");
    assert.equal(exclude.matching("docs/x/a.md"), null);
  });

  it("the first matching pattern is the one named", () => {
    const exclude = PathPatterns.of(config("src/**", "**/*.js"), "exclude_patterns");
    assert.equal(exclude.matching("src/a.js"), "src/**");
    assert.equal(exclude.matching("lib/a.js"), "**/*.js");
  });

  it("a pattern the matcher cannot read excludes nothing and is kept with its problem", () => {
    const exclude = PathPatterns.of(config("Demo/**.py", "/abs/**", "lib/**"), "exclude_patterns");
    assert.deepEqual(
      exclude.refused.map((r) => r.pattern),
      ["Demo/**.py", "/abs/**"],
    );
    assert.match(exclude.refused[0]!.problem, /`\*\*` inside a segment/);
    assert.equal(exclude.matching("Demo/a.py"), null);
    assert.equal(exclude.matching("lib/a.py"), "lib/**");
  });

  it("a configuration without exclude_patterns, or none at all, excludes nothing", () => {
    assert.equal(PathPatterns.of({ version: 1 }, "exclude_patterns").isEmpty, true);
    assert.equal(PathPatterns.of(null, "exclude_patterns").isEmpty, true);
    assert.equal(PathPatterns.of(config(), "exclude_patterns").isEmpty, true);
  });

  it("each key reads its own list: test_patterns name tests, exclude_patterns what is left out", () => {
    const both = { version: 1, exclude_patterns: ["vendor/"], test_patterns: ["tests/", "**/*_test.go"] };
    const tests = PathPatterns.of(both, "test_patterns");
    assert.equal(tests.matching("tests/unit/a.py"), "tests/");
    assert.equal(tests.matching("pkg/a_test.go"), "**/*_test.go");
    assert.equal(tests.matching("vendor/a.js"), null);
    assert.equal(PathPatterns.of(both, "exclude_patterns").matching("tests/unit/a.py"), null);
  });

  it("the run's configuration applies, else the repository's", () => {
    const run = config("a/**");
    const repository = config("b/**");
    assert.deepEqual(applyingConfigOf({ config_json: run }, { config_json: repository }), {
      config: run,
      whose: "run",
    });
    assert.deepEqual(applyingConfigOf({ config_json: null }, { config_json: repository }), {
      config: repository,
      whose: "repository",
    });
  });
});
