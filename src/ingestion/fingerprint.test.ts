// test-runner: execution-mode independent (pure functions, no GraphQL)
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  FingerprintSequence,
  fingerprintContext,
  fingerprintOf,
  messageContext,
  snippetContext,
  toolFingerprintContext,
} from "./fingerprint.ts";

const identity = { analyzer: "eslint", ruleId: "no-eval", path: "src/a.js", context: "eval(x)" };

/** A result as the reader gives it, reduced to what the context reads. */
function result(
  fields: Partial<{
    message: string;
    partialFingerprints: Record<string, string>;
    fingerprints: Record<string, string>;
  }>,
) {
  return { message: "", partialFingerprints: {}, fingerprints: {}, ...fields };
}

describe("fingerprintOf", () => {
  it("is 32 hex characters and the same for the same finding", () => {
    const fingerprint = fingerprintOf(identity, 0);
    assert.match(fingerprint, /^[0-9a-f]{32}$/);
    assert.equal(fingerprintOf({ ...identity }, 0), fingerprint);
  });

  it("stays what every earlier version stored, so findings keep matching after an upgrade", () => {
    // SHA-256 of ["eslint","no-eval","src/a.js","eval(x)",n], first 16 bytes in hex.
    const pinned = { analyzer: "eslint", ruleId: "no-eval", path: "src/a.js", context: "eval(x)" };
    assert.equal(fingerprintOf(pinned, 0), "9698d1d73a2484e7e989cc3dbcf16234");
    assert.equal(fingerprintOf(pinned, 2), "5b12c0c60aed57bda50a8a759f54bcfe");
  });

  it("changes with the analyzer, the rule, the path, the context and the ordinal", () => {
    const fingerprint = fingerprintOf(identity, 0);
    for (const changed of [
      fingerprintOf({ ...identity, analyzer: "biome" }, 0),
      fingerprintOf({ ...identity, ruleId: "no-implied-eval" }, 0),
      fingerprintOf({ ...identity, path: "src/b.js" }, 0),
      fingerprintOf({ ...identity, context: "eval(y)" }, 0),
      fingerprintOf(identity, 1),
    ]) {
      assert.notEqual(changed, fingerprint);
    }
  });

  it("does not confuse fields whose concatenation is the same", () => {
    assert.notEqual(
      fingerprintOf({ ...identity, ruleId: "a", path: "bc" }, 0),
      fingerprintOf({ ...identity, ruleId: "ab", path: "c" }, 0),
    );
  });
});

describe("FingerprintSequence", () => {
  it("keeps identical findings distinct by their order, and repeats itself for the same stream", () => {
    const first = new FingerprintSequence();
    const a = [first.next(identity), first.next(identity), first.next({ ...identity, path: "src/b.js" })];
    assert.equal(new Set(a).size, 3);
    assert.equal(a[0], fingerprintOf(identity, 0));
    assert.equal(a[1], fingerprintOf(identity, 1));
    assert.equal(first.identities, 2);
    const second = new FingerprintSequence();
    assert.deepEqual(
      [second.next(identity), second.next(identity), second.next({ ...identity, path: "src/b.js" })],
      a,
    );
  });

  it("knows every fingerprint it gave, the repeats' too, and no other", () => {
    const sequence = new FingerprintSequence();
    assert.equal(sequence.has(fingerprintOf(identity, 0)), false);
    const given = [sequence.next(identity), sequence.next(identity), sequence.next(identity)];
    for (const fingerprint of given) assert.equal(sequence.has(fingerprint), true);
    assert.equal(sequence.has(fingerprintOf(identity, 3)), false);
    assert.equal(sequence.has(fingerprintOf({ ...identity, path: "src/b.js" }, 0)), false);
  });

  it("gives a finding of a renamed file its fingerprint at the old path too, with the same ordinal", () => {
    const before = new FingerprintSequence();
    const old = [
      before.next({ ...identity, path: "src/old.js" }),
      before.next({ ...identity, path: "src/old.js" }),
    ];
    const after = new FingerprintSequence();
    const moved = { ...identity, path: "src/new.js" };
    const atOldPath = { ...moved, path: "src/old.js" };
    const renamed = [after.nextWithFormer(moved, atOldPath), after.nextWithFormer(moved, atOldPath)];
    assert.deepEqual(
      renamed.map((r) => r.former),
      old,
    );
    assert.deepEqual(
      renamed.map((r) => r.fingerprint),
      [fingerprintOf(moved, 0), fingerprintOf(moved, 1)],
    );
    for (const fingerprint of old) assert.equal(after.has(fingerprint), true);
    assert.deepEqual(after.nextWithFormer(identity, undefined), {
      fingerprint: fingerprintOf(identity, 0),
      former: null,
    });
  });

  it("counts former identities apart: a version 1 base tells apart what version 2 repeats", () => {
    const counted = (message: string) => ({ ...identity, ruleId: "max-params", context: message });
    const messages = [
      "Function 'a' has too many parameters (3).",
      "Function 'a' has too many parameters (4).",
    ];
    const before = new FingerprintSequence();
    const old = messages.map((message) => before.next(counted(messageContext(message, 1))));
    const after = new FingerprintSequence();
    const now = messages.map((message) =>
      after.nextWithFormer(counted(messageContext(message, 2)), counted(messageContext(message, 1))),
    );
    // Version 2: one identity, ordinals 0 and 1; version 1: two identities, each ordinal 0.
    assert.deepEqual(
      now.map((r) => r.fingerprint),
      [0, 1].map((ordinal) => fingerprintOf(counted("Function 'a' has too many parameters (#)."), ordinal)),
    );
    assert.deepEqual(
      now.map((r) => r.former),
      old,
    );
    // A former that is the finding's own fingerprint is not repeated.
    assert.equal(new FingerprintSequence().nextWithFormer(identity, { ...identity }).former, null);
  });

  it("gives a finding the same fingerprint when other findings move around it", () => {
    const before = new FingerprintSequence();
    before.next({ ...identity, ruleId: "eqeqeq", context: "x == 1" });
    const target = before.next(identity);
    const after = new FingerprintSequence();
    after.next({ ...identity, ruleId: "no-debugger", context: "debugger;" });
    assert.equal(after.next(identity), target);
  });
});

describe("fingerprintContext", () => {
  it("prefers the tool's fingerprints, sorted, over the snippet and the message", () => {
    const context = fingerprintContext(
      result({
        message: "m",
        partialFingerprints: { primaryLocationLineHash: "39fa2ee980eb94b0:1", b: "2" },
        fingerprints: { "matchBasedId/v1": "abc" },
      }),
      "eval(x)",
    );
    assert.equal(context, "b=2\nmatchBasedId/v1=abc\nprimaryLocationLineHash=39fa2ee980eb94b0:1");
  });

  it("leaves out tool fingerprints whose key names a line, keeping primaryLocationLineHash", () => {
    assert.equal(toolFingerprintContext(result({ partialFingerprints: { startLine: "12" } })), null);
    assert.equal(
      toolFingerprintContext(result({ fingerprints: { lineNumber: "12", "rule/v1": "x" } })),
      "rule/v1=x",
    );
    assert.equal(
      toolFingerprintContext(result({ partialFingerprints: { primaryLocationLineHash: "h:1" } })),
      "primaryLocationLineHash=h:1",
    );
    // Only line-bearing keys: the snippet decides.
    assert.equal(
      fingerprintContext(result({ partialFingerprints: { lineHash: "3" } }), "  eval( x )\n"),
      "eval( x )",
    );
  });

  it("uses the snippet with whitespace collapsed, so re-indented code keeps its context", () => {
    assert.equal(snippetContext("  if (a)\n\t\treturn   b;  "), "if (a) return b;");
    assert.equal(
      fingerprintContext(result({ message: "line 3" }), "if (a)\n  return b;"),
      fingerprintContext(result({ message: "line 9" }), "    if (a)   return b;"),
    );
    assert.equal(snippetContext("   \n "), null);
    assert.equal(snippetContext(null), null);
  });

  it("falls back to the message without positions, and to empty", () => {
    assert.equal(
      fingerprintContext(result({ message: "'x' is defined but never used." }), null),
      "'x' is defined but never used.",
    );
    assert.equal(fingerprintContext(result({}), "   "), "");
  });
});

describe("messageContext", () => {
  it("removes the numbers that look like positions", () => {
    const cases: Array<[string, string]> = [
      [
        "'x' is already declared in the upper scope on line 3 column 7.",
        "'x' is already declared in the upper scope on line column.",
      ],
      ["Line 12 exceeds 100 characters.", "Line exceeds 100 characters."],
      ["Duplicated in lines 3-5 and lines 10 to 12.", "Duplicated in lines and lines."],
      ["Defined at col. 4, ln: 8", "Defined at col, ln"],
      ["Duplicate key 'a' (first defined at 12:5).", "Duplicate key 'a' (first defined at )."],
      ["Also reported in src/a.ts:40:2 and b.py:7", "Also reported in src/a.ts and b.py"],
      ["Same block as #L40-L52 and L3C5", "Same block as and"],
    ];
    for (const [message, expected] of cases) assert.equal(messageContext(message, 1), expected, message);
    assert.equal(messageContext("Line 12 exceeds 100 characters.", 2), "Line exceeds # characters.");
  });

  it("keeps numbers that are not positions in version 1", () => {
    for (const message of [
      "Function has a complexity of 12 (max 10).",
      "Expected 2 arguments, got 3.",
      "Use of MD5 (CWE-327).",
    ]) {
      assert.equal(messageContext(message, 1), message);
    }
  });

  it("replaces the counts of version 2 by #, and keeps numbers that are part of a name", () => {
    const cases: Array<[string, string]> = [
      [
        "File has too many lines (539). Maximum allowed is 500.",
        "File has too many lines (#). Maximum allowed is #.",
      ],
      [
        "Function 'price' has a complexity of 4. Maximum allowed is 2.",
        "Function 'price' has a complexity of #. Maximum allowed is #.",
      ],
      ["Expected 2 arguments, got 3.5", "Expected # arguments, got #"],
      [
        "Use of SHA-1 (CWE-327) in v1.2.3 on x86_64, rule E501, a 3-way merge, 0x1F",
        "Use of SHA-1 (CWE-327) in v1.2.3 on x86_64, rule E501, a 3-way merge, 0x1F",
      ],
      ["'item2' is defined but never used.", "'item2' is defined but never used."],
    ];
    for (const [message, expected] of cases) assert.equal(messageContext(message, 2), expected, message);
    assert.equal(messageContext("Too many lines (540)."), messageContext("Too many lines (12)."));
    assert.notEqual(messageContext("Too many lines (540).", 1), messageContext("Too many lines (12).", 1));
  });

  it("makes a moved finding's message match and a changed one differ", () => {
    assert.equal(
      messageContext("'y' shadows the variable on line 4."),
      messageContext("'y' shadows the variable on line 40."),
    );
    assert.notEqual(messageContext("'y' is unused."), messageContext("'z' is unused."));
  });
});
