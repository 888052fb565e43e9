// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { testLogger } from "./helpers/log-capture.ts";
import { findLeaks, registeredSecrets, registerSecret, registerSecretsIn } from "./helpers/secret-leaks.ts";

/**
 * The secret check itself (test/helpers/secret-leaks.ts): it finds what it should, and no test
 * file can slip past it by logging somewhere it does not read.
 */

const ROOT = path.resolve(import.meta.dirname, "..");

describe("the secret check", () => {
  test("finds a registered secret in a line and masks it in the report", () => {
    const leaks = findLeaks("log", '{"msg":"ok"}\n{"msg":"failed","input":"abc-secret-123456"}\n', [
      "abc-secret-123456",
    ]);
    assert.deepEqual(leaks, [{ source: "log", line: '{"msg":"failed","input":"[secret]"}' }]);
  });

  test("finds anything shaped like a personal access token or a JWT, registered or not", () => {
    const text = [
      "token assay_pat_0123456789abcdefghij in a message",
      "session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXBhcnQ was logged",
      'the display form assay_pat_…abcd is not a token, nor is "eyJ" alone',
    ].join("\n");
    const leaks = findLeaks("log", text, []);
    assert.equal(leaks.length, 2);
    assert.ok(leaks.every((leak) => leak.line.includes("[credential]")));
  });

  test("registers DSNs by their token too, secret-named fields anywhere, and ignores short values", () => {
    registerSecret("https://dsntoken0123456789@assay.example.test");
    registerSecretsIn({
      data: { createX: { payload: [{ secret: "webhook-secret-abcdef" }] } },
      token: "short",
    });
    const known = registeredSecrets();
    assert.ok(known.has("dsntoken0123456789"));
    assert.ok(known.has("webhook-secret-abcdef"));
    assert.ok(!known.has("short"));
  });

  test("a test logger's lines reach the text the check reads", () => {
    // Not registered: the check at exit would rightly fail this file on a registered one.
    const { logger, log } = testLogger("deliberate leak");
    logger.info({ reason: "leaked-on-purpose-0123456789" }, "a line that must fail the check");
    assert.equal(
      findLeaks(log.watchedText.source, log.watchedText.text, ["leaked-on-purpose-0123456789"]).length,
      1,
    );
  });
});

describe("no test escapes the secret check", () => {
  const testFiles = fs
    .readdirSync(path.join(ROOT, "test"))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => path.join("test", name));
  const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

  test("tests make loggers only through the test helpers, which record every line", () => {
    const offenders = testFiles.filter(
      (file) => file !== "test/secret-leaks.test.ts" && /\bcreateLogger\(|from "pino"/.test(read(file)),
    );
    assert.deepEqual(offenders, [], "use testLogger() (test/helpers/log-capture.ts) instead of createLogger");
  });

  test("every server or worker process a test starts has its output watched", () => {
    const offenders = testFiles.filter((file) => {
      const text = read(file);
      const spawns = text.match(/spawn\(process\.execPath, (npmStartArgs\(\)|assayArgs\("worker"\))/g);
      const watches = text.match(/watchChildOutput\(/g);
      return (spawns?.length ?? 0) > (watches?.length ?? 0);
    });
    assert.deepEqual(offenders, [], "call watchChildOutput(child, …) on each spawned server or worker");
  });
});
