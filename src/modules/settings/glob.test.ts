import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileGlob, globMatches, MAX_PATH_LENGTH, relativePathProblem } from "./glob.ts";

/** Asserts which of `paths` `glob` matches (`yes`) and which it does not (`no`). */
function expectMatches(glob: string, yes: string[], no: string[]): void {
  for (const path of yes) assert.ok(globMatches(glob, path), `${glob} should match ${path}`);
  for (const path of no) assert.ok(!globMatches(glob, path), `${glob} should not match ${path}`);
}

describe("repository-relative paths", () => {
  test("accept plain relative paths, dotfiles and unicode names", () => {
    for (const path of [
      "a.py",
      "src/app/main.py",
      ".github/workflows/ci.yml",
      "docs/ünïcode file.md",
      "a..b/c",
    ]) {
      assert.equal(relativePathProblem(path), null, path);
    }
  });

  test("refuse absolute paths, dot segments, empty segments, backslashes and control characters", () => {
    const cases: Record<string, RegExp> = {
      "": /empty/,
      "/etc/passwd": /leading/,
      "../outside.py": /`\.\.`/,
      "src/../x.py": /`\.\.`/,
      "./x.py": /`\.`/,
      "src//x.py": /empty segments/,
      "src/": /empty segments/,
      "src\\x.py": /`\/`/,
      "a\nb": /control/,
      "a\u0000b": /control/,
    };
    for (const [path, problem] of Object.entries(cases)) {
      assert.match(relativePathProblem(path) ?? "(none)", problem, JSON.stringify(path));
    }
    assert.equal(relativePathProblem("a".repeat(MAX_PATH_LENGTH)), null);
    assert.match(relativePathProblem("a".repeat(MAX_PATH_LENGTH + 1)) ?? "", /at most/);
  });
});

describe("glob matching", () => {
  test("a literal glob matches exactly that path", () => {
    expectMatches("src/app.py", ["src/app.py"], ["src/app.pyc", "lib/src/app.py", "src/app_py", "src"]);
  });

  test("`*` and `?` stay inside one segment", () => {
    expectMatches("src/*.py", ["src/a.py", "src/.hidden.py", "src/.py"], ["src/a/b.py", "a.py", "src/a.pyc"]);
    expectMatches("test_?.py", ["test_1.py", "test_a.py"], ["test_10.py", "test_.py", "x/test_1.py"]);
    expectMatches("a*b", ["ab", "axxb"], ["a/b", "axx/b"]);
  });

  test("`**` as a whole segment matches any number of segments, none included", () => {
    expectMatches("**", ["a", "a/b/c.py"], []);
    expectMatches("tests/**", ["tests/a.py", "tests/unit/b.py"], ["tests", "a/tests/b.py", "testsx/a.py"]);
    expectMatches(
      "**/*_test.go",
      ["x_test.go", "pkg/x_test.go", "a/b/c/x_test.go"],
      ["x_test.go.bak", "x.go"],
    );
    expectMatches(
      "**/__tests__/**",
      ["__tests__/a.js", "src/__tests__/a/b.js"],
      ["src/__tests__", "src/a.js"],
    );
    expectMatches("a/**/b", ["a/b", "a/x/b", "a/x/y/b"], ["a/xb", "b", "a/b/c"]);
    expectMatches("**/**/x", ["x", "a/x", "a/b/x"], ["ax"]);
  });

  test("classes match one character of a set, never `/`", () => {
    expectMatches("file[0-9].txt", ["file1.txt", "file9.txt"], ["filea.txt", "file10.txt"]);
    expectMatches("[!a]x", ["bx", ".x"], ["ax", "/x"]);
    expectMatches("[^a]x", ["bx"], ["ax"]);
    expectMatches("[]]", ["]"], ["a"]);
    expectMatches("[a\\-z]", ["a", "-", "z"], ["b"]);
  });

  test("braces match one of their alternatives, which may hold wildcards", () => {
    expectMatches("src/*.{js,ts}", ["src/a.js", "src/b.ts"], ["src/c.py", "src/d.{js,ts}"]);
    expectMatches("{spec,test}_*.rb", ["spec_a.rb", "test_b.rb"], ["unit_c.rb"]);
    expectMatches("x{,.bak}", ["x", "x.bak"], ["x.old"]);
  });

  test("regular-expression characters and escaped wildcards are literal", () => {
    expectMatches("a+b(1).$x|y", ["a+b(1).$x|y"], ["aab(1)x$x|y"]);
    expectMatches("what\\?.md", ["what?.md"], ["whatx.md"]);
    expectMatches("\\*.md", ["*.md"], ["a.md"]);
    expectMatches("\\{a\\}", ["{a}"], ["a"]);
    expectMatches("a.py", ["a.py"], ["aXpy"]);
  });

  test("matching is case-sensitive", () => {
    expectMatches("README.md", ["README.md"], ["readme.md"]);
  });

  test("refuses malformed globs, saying what is wrong", () => {
    const cases: Record<string, RegExp> = {
      "": /empty/,
      "/src/**": /leading/,
      "!tests/**": /negation/,
      "src/../x": /`\.\.`/,
      "./x": /`\.`/,
      "src//x": /empty segments/,
      "src/": /empty segments/,
      "src/**.py": /inside a segment/,
      "a**": /inside a segment/,
      "file[0-9": /`\[` without its `\]`/,
      "x[a": /`\[` without its `\]`/,
      "[z-a]": /end comes before its start/,
      "{a,b": /`\{` without its `\}`/,
      "{a,{b,c}}": /nest/,
      "a}": /`\}` without its `\{`/,
      "a\\": /lone/,
      "{src/a,b}": /`\{` without its `\}`/,
      "a\tb": /control/,
    };
    for (const [glob, problem] of Object.entries(cases)) {
      const compiled = compileGlob(glob);
      assert.ok(!compiled.ok, `${JSON.stringify(glob)} should be refused`);
      assert.match(compiled.problem, problem, JSON.stringify(glob));
    }
    assert.ok(!compileGlob("a".repeat(MAX_PATH_LENGTH + 1)).ok);
  });

  test("a malformed glob matches nothing", () => {
    assert.equal(globMatches("src/**.py", "src/a.py"), false);
  });
});
