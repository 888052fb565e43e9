// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { test } from "node:test";
import { goModuleWorkDir } from "./upload-go-module.ts";

const GO_MOD = "module example.com/warehouse // the shop's stock\n\ngo 1.19\n";
const readGoMod = (file: string) => (file === "/repo/go.mod" ? GO_MOD : null);

test("a profile naming a file of the root's module is sent relative to the module path, whatever else it names first", () => {
  // -coverpkg=all: another module's file may come first.
  const head =
    "mode: set\nexample.com/lib/x.go:3.2,4.3 1 1\nexample.com/warehouse/stock/stock.go:16.51,17.16 1 1\n";
  assert.equal(goModuleWorkDir(head, "/repo", readGoMod), "example.com/warehouse");
});

test("no module path for a profile of other modules, a text that is no profile, or a root without go.mod", () => {
  assert.equal(
    goModuleWorkDir("mode: set\nexample.com/warehousefront/a.go:1.1,2.2 1 1\n", "/repo", readGoMod),
    null,
  );
  assert.equal(
    goModuleWorkDir("TN:\nSF:example.com/warehouse/a.go\nend_of_record\n", "/repo", readGoMod),
    null,
  );
  assert.equal(
    goModuleWorkDir("mode: set\nexample.com/warehouse/a.go:1.1,2.2 1 1\n", "/other", readGoMod),
    null,
  );
});
