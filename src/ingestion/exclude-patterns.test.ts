import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ExcludePatterns, excludingConfigOf } from "./exclude-patterns.ts";

const config = (...patterns: unknown[]) => ({ version: 1, exclude_patterns: patterns });

describe("exclude_patterns", () => {
  it("match as DeepSource documents them: `dir/**`, `**/dir/` and `dir/**/*.ext`", () => {
    // The examples of docs.deepsource.com ".deepsource.toml".
    const exclude = ExcludePatterns.of(config("bin/**", "**/node_modules/", "js/**/*.min.js"));
    assert.equal(exclude.excluding("bin/tool"), "bin/**");
    assert.equal(exclude.excluding("bin/a/b/tool"), "bin/**");
    assert.equal(exclude.excluding("node_modules/x/index.js"), "**/node_modules/");
    assert.equal(exclude.excluding("web/app/node_modules/x/index.js"), "**/node_modules/");
    assert.equal(exclude.excluding("js/a.min.js"), "js/**/*.min.js");
    assert.equal(exclude.excluding("js/a/b/c.min.js"), "js/**/*.min.js");
    for (const kept of [
      "bin",
      "src/bin/tool",
      "node_modules",
      "web/node_modules_old/x.js",
      "js/a.js",
      "src/js/a.min.js",
    ]) {
      assert.equal(exclude.excluding(kept), null, kept);
    }
  });

  it("a trailing `/` names a directory: everything under it, not a file of that name", () => {
    const exclude = ExcludePatterns.of(config("vendor/"));
    assert.equal(exclude.excluding("vendor/a.js"), "vendor/");
    assert.equal(exclude.excluding("vendor/a/b.js"), "vendor/");
    assert.equal(exclude.excluding("vendor"), null);
    assert.equal(exclude.excluding("src/vendor/a.js"), null);
  });

  it("`*` stays inside one segment, and a pattern is matched against the whole path", () => {
    const exclude = ExcludePatterns.of(config("*.min.js", "docs/*.md"));
    assert.equal(exclude.excluding("app.min.js"), "*.min.js");
    assert.equal(exclude.excluding("src/app.min.js"), null);
    assert.equal(exclude.excluding("docs/a.md"), "docs/*.md");
    assert.equal(exclude.excluding("docs/x/a.md"), null);
  });

  it("the first matching pattern is the one named", () => {
    const exclude = ExcludePatterns.of(config("src/**", "**/*.js"));
    assert.equal(exclude.excluding("src/a.js"), "src/**");
    assert.equal(exclude.excluding("lib/a.js"), "**/*.js");
  });

  it("a pattern the matcher cannot read excludes nothing and is kept with its problem", () => {
    const exclude = ExcludePatterns.of(config("Demo/**.py", "/abs/**", "lib/**"));
    assert.deepEqual(
      exclude.refused.map((r) => r.pattern),
      ["Demo/**.py", "/abs/**"],
    );
    assert.match(exclude.refused[0]!.problem, /`\*\*` inside a segment/);
    assert.equal(exclude.excluding("Demo/a.py"), null);
    assert.equal(exclude.excluding("lib/a.py"), "lib/**");
  });

  it("a configuration without exclude_patterns, or none at all, excludes nothing", () => {
    assert.equal(ExcludePatterns.of({ version: 1 }).isEmpty, true);
    assert.equal(ExcludePatterns.of(null).isEmpty, true);
    assert.equal(ExcludePatterns.of(config()).isEmpty, true);
  });

  it("the run's configuration applies, else the repository's", () => {
    const run = config("a/**");
    const repository = config("b/**");
    assert.deepEqual(excludingConfigOf({ config_json: run }, { config_json: repository }), {
      config: run,
      whose: "run",
    });
    assert.deepEqual(excludingConfigOf({ config_json: null }, { config_json: repository }), {
      config: repository,
      whose: "repository",
    });
  });
});
