import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fakeGit } from "../../test/helpers/fake-git.ts";
import { gitIn } from "./ci-environment.ts";
import { planLockfiles } from "./upload-lockfiles.ts";

/**
 * The lockfiles `assay upload` lists with an SBOM, read by real git from a scratch repository
 * whose second commit removes a project.
 */

describe("the lockfiles git tracks at the uploaded commit", () => {
  let dir: string;
  let both: string;
  let rootOnly: string;

  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=Assay Test", "-c", "user.email=test@example.com", ...args], {
      cwd: dir,
      encoding: "utf8",
    }).trim();
  const write = (file: string, text = "{}\n") => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-lockfiles-"));
    git("init", "--quiet", "--initial-branch=main");
    for (const file of ["package.json", "package-lock.json", "src/index.js", "web/package.json"]) write(file);
    write("web/package-lock.json");
    write("services/api/go.sum", "");
    write("docs/requirements.txt.md", "not a lockfile\n");
    git("add", "--all");
    git("commit", "--quiet", "-m", "both");
    both = git("rev-parse", "HEAD");
    fs.rmSync(path.join(dir, "web"), { recursive: true });
    git("add", "--all");
    git("commit", "--quiet", "-m", "web removed");
    rootOnly = git("rev-parse", "HEAD");
    // An untracked lockfile in the working tree is not the commit's.
    write("web/package-lock.json");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("are the known manifests and lockfiles of the commit's tree, sorted, whatever the working tree holds", () => {
    assert.deepEqual(planLockfiles({ analyzer: "sca", commit: both, off: false }, gitIn(dir)), {
      send: [
        "package-lock.json",
        "package.json",
        "services/api/go.sum",
        "web/package-lock.json",
        "web/package.json",
      ],
    });
    assert.deepEqual(
      planLockfiles({ analyzer: "sca", commit: rootOnly, off: false }, gitIn(path.join(dir, "src"))),
      {
        send: ["package-lock.json", "package.json", "services/api/go.sum"],
      },
    );
  });

  test("are listed only for an SBOM, and not with --no-lockfiles", () => {
    assert.deepEqual(planLockfiles({ analyzer: "eslint", commit: both, off: false }, gitIn(dir)), {
      skip: null,
    });
    assert.deepEqual(planLockfiles({ analyzer: "sca", commit: both, off: true }, gitIn(dir)), { skip: null });
  });

  test("are not sent, with a warning, outside a git work tree or for a commit the clone lacks", () => {
    const outside = planLockfiles({ analyzer: "sca", commit: both, off: false }, fakeGit({}));
    assert.deepEqual(outside, {
      skip: "lockfile list not sent: this directory is not in a git work tree (--no-lockfiles sends none)",
    });
    const missing = "0123456789abcdef0123456789abcdef01234567";
    assert.deepEqual(planLockfiles({ analyzer: "sca", commit: missing, off: false }, gitIn(dir)), {
      skip: "lockfile list not sent: the commit 0123456789ab is not in this clone (fetch it, or give --no-lockfiles)",
    });
  });
});
