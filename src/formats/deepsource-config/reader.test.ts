// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  CONFIG_MAX_BYTES,
  enabledAnalyzerNames,
  RepositoryConfigError,
  readRepositoryConfig,
} from "./reader.ts";

/** The `.deepsource.toml` reader, on a file written after DeepSource's examples and on broken ones. */

const FIXTURE = fs.readFileSync(path.join(import.meta.dirname, "fixtures", "deepsource.toml"), "utf8");

function refusal(text: string): string {
  try {
    readRepositoryConfig(text);
  } catch (error) {
    assert.ok(error instanceof RepositoryConfigError, String(error));
    return error.message;
  }
  assert.fail("the configuration was accepted");
}

describe("readRepositoryConfig", () => {
  it("reads a documented configuration into the JSON Repository.configJson serves", () => {
    const { json, undocumentedKeys } = readRepositoryConfig(FIXTURE);
    assert.deepEqual(json, {
      version: 1,
      test_patterns: ["tests/**", "test_*.py"],
      exclude_patterns: ["bin/**", "**/node_modules/", "js/**/*.min.js"],
      analyzers: [
        {
          name: "python",
          enabled: true,
          dependency_file_paths: ["requirements.txt", "Pipfile"],
          meta: { runtime_version: "3.x.x" },
        },
        { name: "javascript", meta: { plugins: ["react"], environment: ["nodejs", "jest"] } },
        { name: "go", enabled: false },
      ],
      transformers: [{ name: "black", enabled: true }],
    });
    assert.deepEqual(undocumentedKeys, []);
  });

  it("turns on the analyzers not disabled, in order, each once", () => {
    assert.deepEqual(enabledAnalyzerNames(readRepositoryConfig(FIXTURE).json), ["python", "javascript"]);
    assert.deepEqual(
      enabledAnalyzerNames({ analyzers: [{ name: "a" }, "x", { name: "a" }, { name: 3 }, { name: "b" }] }),
      ["a", "b"],
    );
    assert.deepEqual(enabledAnalyzerNames({ version: 1 }), []);
    assert.deepEqual(enabledAnalyzerNames(null), []);
  });

  it("keeps keys DeepSource does not document and names those at the top level", () => {
    const { json, undocumentedKeys } = readRepositoryConfig(
      'version = 1\nexclude_pattern = ["vendor/**"]\n[[analyzers]]\nname = "go"\nruntime_version = "1.22"\n[[code_formatters]]\nname = "gofmt"\n',
    );
    assert.deepEqual(undocumentedKeys, ["exclude_pattern"]);
    assert.deepEqual(json.analyzers, [{ name: "go", runtime_version: "1.22" }]);
    assert.deepEqual(json.code_formatters, [{ name: "gofmt" }]);
  });

  it("writes TOML dates as ISO 8601 strings", () => {
    const { json } = readRepositoryConfig(
      'version = 1\n[[analyzers]]\nname = "go"\n[analyzers.meta]\nsince = 1979-05-27T07:32:00Z\n',
    );
    assert.deepEqual(json.analyzers, [{ name: "go", meta: { since: "1979-05-27T07:32:00.000Z" } }]);
  });

  it("refuses text that is not TOML with the parser's line and column", () => {
    assert.equal(
      refusal("version = 1\n[[analyzers]]\nname = \n"),
      ".deepsource.toml is not valid TOML at line 3, column 8: invalid value",
    );
    assert.match(
      refusal("version = 1\nversion = 1\n"),
      /^\.deepsource\.toml is not valid TOML at line 2, column 1: /,
    );
    assert.match(
      refusal('version = 1\n__proto__ = "x"\n'),
      /^\.deepsource\.toml is not valid TOML at line 2/,
    );
  });

  it("refuses a configuration without version 1, saying where it is", () => {
    assert.equal(
      refusal('[[analyzers]]\nname = "go"\n'),
      ".deepsource.toml: version is missing: the file must say version = 1",
    );
    assert.equal(
      refusal('# mine\nversion = 2\n[[analyzers]]\nname = "go"\n'),
      ".deepsource.toml: version must be 1, got 2 (line 2)",
    );
    assert.equal(
      refusal('version = "1"\n[[analyzers]]\nname = "go"\n'),
      '.deepsource.toml: version must be 1, got "1" (line 1)',
    );
  });

  it("refuses analyzers that are missing, empty or not entries with a name", () => {
    assert.match(
      refusal("version = 1\n"),
      /^\.deepsource\.toml: analyzers is missing: add an \[\[analyzers\]\] entry/,
    );
    assert.equal(
      refusal("version = 1\nanalyzers = []\n"),
      ".deepsource.toml: analyzers is empty: list at least one [[analyzers]] entry",
    );
    assert.equal(
      refusal('version = 1\nanalyzers = "python"\n'),
      '.deepsource.toml: analyzers must be an array of tables ([[analyzers]] entries), got "python" (line 2)',
    );
    assert.equal(
      refusal('version = 1\n\n[[analyzers]]\nname = "python"\n\n[[analyzers]]\nenabled = true\n'),
      '.deepsource.toml: analyzers[1] has no name: each entry needs name = "<shortcode>" (line 6)',
    );
    assert.equal(
      refusal('version = 1\n[[analyzers]]\nname = ""\n'),
      '.deepsource.toml: analyzers[0].name must be a shortcode (a non-empty string), got "" (line 2)',
    );
    assert.equal(
      refusal('version = 1\n[[analyzers]]\nname = "go"\nenabled = "yes"\n'),
      '.deepsource.toml: analyzers[0].enabled must be true or false, got "yes" (line 2)',
    );
    assert.equal(
      refusal('version = 1\n[[analyzers]]\nname = "go"\nmeta = "fast"\n'),
      '.deepsource.toml: analyzers[0].meta must be a table ([analyzers.meta]), got "fast" (line 2)',
    );
    assert.equal(
      refusal('version = 1\nanalyzers = [{ name = "go" }, 3]\n'),
      ".deepsource.toml: analyzers[1] must be a table, got 3",
    );
  });

  it("refuses transformers and patterns of the wrong shape", () => {
    const analyzer = '[[analyzers]]\nname = "go"\n';
    assert.equal(
      refusal(`version = 1\n${analyzer}[[transformers]]\nenabled = true\n`),
      '.deepsource.toml: transformers[0] has no name: each entry needs name = "<shortcode>" (line 4)',
    );
    assert.equal(
      refusal(`version = 1\nexclude_patterns = "vendor/**"\n${analyzer}`),
      ".deepsource.toml: exclude_patterns must be an array of glob patterns (line 2)",
    );
    assert.equal(
      refusal(`version = 1\ntest_patterns = ["tests/**", 4]\n${analyzer}`),
      ".deepsource.toml: test_patterns[1] must be a glob pattern (a string), got 4 (line 2)",
    );
  });

  it("refuses a configuration over the size limit before parsing it", () => {
    // Text that is not even TOML: the size is refused first.
    const over = `version = 1\n{${"x".repeat(CONFIG_MAX_BYTES)}\n`;
    assert.equal(
      refusal(over),
      `.deepsource.toml is ${Buffer.byteLength(over)} bytes; at most ${CONFIG_MAX_BYTES} are accepted`,
    );
    // Exactly at the limit is accepted.
    const body = 'version = 1\n[[analyzers]]\nname = "go"\n';
    const exact = `${body}#${"x".repeat(CONFIG_MAX_BYTES - body.length - 2)}\n`;
    assert.equal(Buffer.byteLength(exact), CONFIG_MAX_BYTES);
    assert.deepEqual(readRepositoryConfig(exact).json.analyzers, [{ name: "go" }]);
  });
});
