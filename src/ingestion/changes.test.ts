// test-runner: execution-mode independent (pure parser, no GraphQL)
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import {
  type ChangedLines,
  ChangedLinesFormatError,
  countChangedLines,
  isChanged,
  mergeChangedLines,
  parseChangedLines,
  parseRenamedFiles,
} from "./changes.ts";

function asObject(changed: ChangedLines): Record<string, Array<readonly [number, number]>> {
  return Object.fromEntries(changed);
}

function assertRefused(text: string, pattern: RegExp): void {
  assert.throws(
    () => parseChangedLines(text),
    (error: unknown) => error instanceof ChangedLinesFormatError && pattern.test(error.message),
  );
}

const GIT_DIFF = `diff --git a/src/cart.ts b/src/cart.ts
index 3b18e51..a9c1f2d 100644
--- a/src/cart.ts
+++ b/src/cart.ts
@@ -1,5 +1,7 @@
 import { price } from "./price.ts";
+import { tax } from "./tax.ts";
 
 export function total(items) {
-  return items.reduce((sum, i) => sum + price(i), 0);
+  const net = items.reduce((sum, i) => sum + price(i), 0);
+  return net + tax(net);
 }
@@ -20,3 +22,4 @@ export function empty() {
   return [];
 }
 
+export const VERSION = 2;
diff --git a/src/new.ts b/src/new.ts
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/src/new.ts
@@ -0,0 +1,3 @@
+export function fresh() {
+  return 1;
+}
\\ No newline at end of file
diff --git a/src/old.ts b/src/old.ts
deleted file mode 100644
index e69de29..0000000
--- a/src/old.ts
+++ /dev/null
@@ -1,2 +0,0 @@
-export const gone = true;
-export const alsoGone = true;
diff --git a/logo.png b/logo.png
index 1111111..2222222 100644
Binary files a/logo.png and b/logo.png differ
diff --git a/src/before.ts b/src/after.ts
similarity index 90%
rename from src/before.ts
rename to src/after.ts
index 3333333..4444444 100644
--- a/src/before.ts
+++ b/src/after.ts
@@ -2,2 +2,2 @@
 const a = 1;
-const b = 2;
+const b = 3;
`;

describe("parseChangedLines: unified diff", () => {
  test("added lines of each new file, deletions and binaries ignored, renames under the new name", () => {
    assert.deepEqual(asObject(parseChangedLines(GIT_DIFF)), {
      "src/cart.ts": [
        [2, 2],
        [5, 6],
        [25, 25],
      ],
      "src/new.ts": [[1, 3]],
      "src/after.ts": [[3, 3]],
    });
  });

  test("CRLF line endings read like LF", () => {
    const crlf = GIT_DIFF.replace(/\n/g, "\r\n");
    assert.deepEqual(parseChangedLines(crlf), parseChangedLines(GIT_DIFF));
  });

  test("an empty text is an empty change set (git diff with no changes)", () => {
    assert.equal(parseChangedLines("").size, 0);
    assert.equal(parseChangedLines("  \n").size, 0);
  });

  test("a mode-only change is valid and adds no lines", () => {
    const diff = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n";
    assert.equal(parseChangedLines(diff).size, 0);
  });

  test("GIT binary patch data is skipped up to the next file", () => {
    const diff = `diff --git a/img.bin b/img.bin
index 1111111..2222222 100644
GIT binary patch
literal 12
Tcmd;KV5s2WVqjz!0|Nm78-@Tc

literal 0
HcmV?d00001

diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1 +1,2 @@
 one
+two
`;
    assert.deepEqual(asObject(parseChangedLines(diff)), { "a.txt": [[2, 2]] });
  });

  test("plain diff -u headers: timestamps dropped, absolute paths under workDir made relative", () => {
    const diff = `--- /home/ci/repo/lib/x.py\t2024-05-01 10:00:00.000000000 +0000
+++ /home/ci/repo/lib/x.py\t2024-05-02 10:00:00.000000000 +0000
@@ -3,0 +4,2 @@
+a = 1
+b = 2
`;
    assert.deepEqual(asObject(parseChangedLines(diff, "/home/ci/repo")), { "lib/x.py": [[4, 5]] });
  });

  test("a top-level directory named b survives when the diff has no a/ b/ prefixes", () => {
    const diff = "--- b/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-old\n+new\n";
    assert.deepEqual(asObject(parseChangedLines(diff)), { "b/x.go": [[1, 1]] });
  });

  test("git's quoted paths are unquoted (escapes and UTF-8 octal bytes)", () => {
    const diff = `diff --git "a/caf\\303\\251 menu.txt" "b/caf\\303\\251 menu.txt"
--- "a/caf\\303\\251 menu.txt"
+++ "b/caf\\303\\251 menu.txt"
@@ -0,0 +1 @@
+hello
`;
    assert.deepEqual(asObject(parseChangedLines(diff)), { "café menu.txt": [[1, 1]] });
  });

  test("context lines stripped of their space still count", () => {
    const diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n one\n\n+new\n three\n";
    assert.deepEqual(asObject(parseChangedLines(diff)), { "f.txt": [[3, 3]] });
  });

  test("a file named twice merges its ranges", () => {
    const diff = "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n x\n+y\n--- a/f\n+++ b/f\n@@ -10 +11,2 @@\n z\n+w\n";
    assert.deepEqual(asObject(parseChangedLines(diff)), {
      f: [
        [2, 2],
        [12, 12],
      ],
    });
  });

  test("garbage is refused with a message naming the problem and line", () => {
    assertRefused("hello world\nthis is not a diff\n", /neither a unified diff .* nor JSON ranges/);
    assertRefused("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n", /ends inside the hunk that starts at line 3/);
    assertRefused(
      "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n x\n+y\nnot a hunk line\n",
      /line 6 is inside the hunk/,
    );
    assertRefused("--- a/f\n+++ b/f\n@@ bogus @@\n", /malformed hunk header at line 3/);
    assertRefused("@@ -1 +1 @@\n-a\n+b\n", /hunk at line 1 has no file header/);
    assertRefused(
      "--- a/f\n+++ b/f\n@@ -1 +1 @@\n+a\n+b\n",
      /line 5 is one new line more than the header of the hunk at line 3/,
    );
    assertRefused("diff --cc f\n@@@ -1,1 -1,1 +1,1 @@@\n", /combined diffs/);
    assertRefused('--- "a/f\n', /unterminated quoted path at line 1/);
  });
});

describe("parseChangedLines: JSON ranges", () => {
  test("ranges are sorted and merged; paths normalised and made relative to workDir", () => {
    const json = JSON.stringify({
      files: {
        "src/a.ts": [
          [10, 12],
          [1, 3],
          [4, 4],
          [11, 20],
        ],
        "/ci/repo/src/b.ts": [[7, 7]],
        "./src/c.ts": [],
      },
    });
    assert.deepEqual(asObject(parseChangedLines(json, "/ci/repo")), {
      "src/a.ts": [
        [1, 4],
        [10, 20],
      ],
      "src/b.ts": [[7, 7]],
      "src/c.ts": [],
    });
  });

  test("malformed JSON and bad ranges are refused naming the file and range", () => {
    assertRefused("{ files: ", /not valid JSON/);
    assertRefused('{"lines": {}}', /expected an object \{"files"/);
    assertRefused(
      '{"files": {"a.ts": [[3, 1]]}}',
      /"files"\["a.ts"\]\[0\] must be \[start, end\].*not \[3,1\]/,
    );
    assertRefused('{"files": {"a.ts": [[0, 1]]}}', /\[0\] must be/);
    assertRefused('{"files": {"a.ts": [[1.5, 2]]}}', /\[0\] must be/);
    assertRefused('{"files": {"a.ts": [[1, 2], [3]]}}', /\[1\] must be/);
    assertRefused('{"files": {"a.ts": {"start": 1}}}', /"files"\["a.ts"\] must be a list/);
  });
});

describe("isChanged, mergeChangedLines, countChangedLines", () => {
  const changed = parseChangedLines(
    JSON.stringify({
      files: {
        "a.ts": [
          [1, 3],
          [10, 10],
          [20, 25],
        ],
      },
    }),
  );

  test("isChanged answers inside ranges only, and false for other files", () => {
    const hits = [0, 1, 3, 4, 9, 10, 11, 19, 20, 25, 26].filter((line) => isChanged(changed, "a.ts", line));
    assert.deepEqual(hits, [1, 3, 10, 20, 25]);
    assert.equal(isChanged(changed, "b.ts", 1), false);
  });

  test("merging unions the files and ranges of several change sets", () => {
    const other = parseChangedLines("--- a/a.ts\n+++ b/a.ts\n@@ -3,0 +4,6 @@\n+1\n+2\n+3\n+4\n+5\n+6\n");
    const merged = mergeChangedLines([changed, other, parseChangedLines('{"files": {"b.ts": [[2, 2]]}}')]);
    assert.deepEqual(asObject(merged), {
      "a.ts": [
        [1, 10],
        [20, 25],
      ],
      "b.ts": [[2, 2]],
    });
    assert.equal(countChangedLines(merged), 17);
  });
});

describe("parseRenamedFiles", () => {
  /** A git repository of its own, and git run in it with none of the machine's configuration. */
  function gitRepository(): { dir: string; git: (...args: string[]) => string } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-renames-"));
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=Assay Test", "-c", "user.email=test@example.com", ...args], {
        cwd: dir,
        encoding: "utf8",
        env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      });
    git("init", "--quiet", "--initial-branch=main");
    return { dir, git };
  }

  /** What `assay upload` runs (docs/ingestion.md "Changed lines of a pull request"). */
  const DIFF = ["diff", "--no-color", "--find-renames", "--unified=0", "--src-prefix=a/", "--dst-prefix=b/"];

  test("reads git's renames, with and without edits and under names git quotes, and nothing else", (t) => {
    const { dir, git } = gitRepository();
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const lines = Array.from({ length: 20 }, (_, i) => `export const v${i} = ${i};`);
    fs.mkdirSync(path.join(dir, "src"));
    fs.writeFileSync(path.join(dir, "src/moved.js"), `${lines.join("\n")}\n`);
    fs.writeFileSync(path.join(dir, "src/edited.js"), `${lines.map((l) => `${l} // e`).join("\n")}\n`);
    fs.writeFileSync(path.join(dir, "src/kept.js"), "export const kept = 1;\n");
    fs.writeFileSync(path.join(dir, "src/caf\u00e9.js"), "export const coffee = 1;\n");
    git("add", "--all");
    git("commit", "--quiet", "-m", "before");
    fs.mkdirSync(path.join(dir, "lib"));
    git("mv", "src/moved.js", "lib/moved.js");
    git("mv", "src/edited.js", "lib/edited.js");
    git("mv", "src/caf\u00e9.js", "src/th\u00e9 vert.js");
    fs.appendFileSync(path.join(dir, "lib/edited.js"), "export const added = 1;\n");
    fs.appendFileSync(path.join(dir, "src/kept.js"), "export const more = 2;\n");
    git("add", "--all");
    git("commit", "--quiet", "-m", "after");
    const diff = git(...DIFF, "HEAD~1", "HEAD");
    assert.match(diff, /rename from "src\/caf\\303\\251\.js"/, "git quotes the name");
    assert.deepEqual(Object.fromEntries(parseRenamedFiles(diff)), {
      "lib/edited.js": "src/edited.js",
      "lib/moved.js": "src/moved.js",
      "src/th\u00e9 vert.js": "src/caf\u00e9.js",
    });
    // The changed lines of the same diff: only the edited rename's and the kept file's added lines.
    assert.deepEqual(asObject(parseChangedLines(diff)), {
      "lib/edited.js": [[21, 21]],
      "src/kept.js": [[2, 2]],
    });
  });

  test("reads a rename without edits, which has no file header; JSON ranges and no changes name none", (t) => {
    const { dir, git } = gitRepository();
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, "a.js"), "export const a = 1;\nexport const b = 2;\n");
    git("add", "--all");
    git("commit", "--quiet", "-m", "before");
    git("mv", "a.js", "b.js");
    git("commit", "--quiet", "-m", "after");
    const diff = git(...DIFF, "HEAD~1", "HEAD");
    assert.doesNotMatch(diff, /^\+\+\+ /m);
    assert.deepEqual(Object.fromEntries(parseRenamedFiles(diff, "/work/checkout")), { "b.js": "a.js" });
    assert.equal(parseChangedLines(diff).size, 0);
    assert.equal(parseRenamedFiles('{"files": {"b.js": [[1, 2]]}}').size, 0);
    assert.equal(parseRenamedFiles("").size, 0);
  });
});
