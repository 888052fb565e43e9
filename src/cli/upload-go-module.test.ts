// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gitIn, readTextFile } from "./ci-environment.ts";
import { goModulesNote, goModulesOf } from "./upload-go-module.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
// The go-modules project: example.com/shop in backend/, example.com/pricing in libs/pricing/, a go.work.
const PROJECT = path.join(ROOT, "test/fixtures/tools/go-modules");
const PROFILE = fs.readFileSync(
  path.join(ROOT, "src/formats/coverage/fixtures/go-modules/coverpkg.out"),
  "utf8",
);
const BOTH = [
  { modulePath: "example.com/shop", directory: "backend" },
  { modulePath: "example.com/pricing", directory: "libs/pricing" },
];

describe("the Go modules assay upload sends with a profile", () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-go-modules-"));
    fs.cpSync(PROJECT, dir, { recursive: true });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "init.defaultBranch=main", ...args], { cwd: dir, stdio: "ignore" });

  test("outside a git work tree: the root's module and those its go.work uses", () => {
    assert.deepEqual(goModulesOf(PROFILE, { root: dir, git: gitIn(dir), readText: readTextFile }), {
      modules: BOTH,
      ambiguous: [],
    });
  });

  test("in a git work tree, from any directory: every go.mod git tracks, but not in testdata, vendor or hidden directories", () => {
    fs.rmSync(path.join(dir, "go.work"));
    for (const ignored of ["backend/internal/cart/testdata/fake", "vendor/example.com/x", ".cache/mod"]) {
      fs.mkdirSync(path.join(dir, ignored), { recursive: true });
      fs.writeFileSync(path.join(dir, ignored, "go.mod"), `module example.com/${path.basename(ignored)}\n`);
    }
    fs.writeFileSync(path.join(dir, "go.mod"), "module example.com/tools // the repository's own tools\n");
    fs.writeFileSync(path.join(dir, "untracked.mod"), "");
    git("init", "-q");
    git("add", "-A");
    const fromBackend = gitIn(path.join(dir, "backend"));
    const root = fromBackend(["rev-parse", "--show-toplevel"])!;
    assert.deepEqual(goModulesOf(PROFILE, { root, git: fromBackend, readText: readTextFile }), {
      modules: [{ modulePath: "example.com/tools", directory: "" }, ...BOTH],
      ambiguous: [],
    });
  });

  test("a module path declared in two directories is left out and said; no profile or no module sends none", () => {
    const readText = (file: string) =>
      ({
        "/repo/go.work":
          'go 1.19\n\nuse ./api\nuse (\n\t./backend // the shop\n\t"./web"\n\t../elsewhere\n)\n',
        "/repo/api/go.mod": "module example.com/shop\n",
        "/repo/backend/go.mod": "module example.com/shop\n",
        "/repo/web/go.mod": 'module "example.com/web"\n',
      })[file] ?? null;
    const found = goModulesOf(PROFILE, { root: "/repo", git: () => null, readText });
    assert.deepEqual(found, {
      modules: [{ modulePath: "example.com/web", directory: "web" }],
      ambiguous: ["example.com/shop"],
    });
    assert.equal(
      goModulesNote(found!),
      "Go modules sent to place the profile's files: example.com/web in web; left out, declared in several directories: example.com/shop",
    );
    assert.equal(
      goModulesOf("TN:\nSF:a.go\nend_of_record\n", { root: "/repo", git: () => null, readText }),
      null,
    );
    assert.equal(goModulesOf(PROFILE, { root: "/none", git: () => null, readText }), null);
  });
});
