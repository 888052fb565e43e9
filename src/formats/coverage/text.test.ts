// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseLcov } from "./lcov.ts";
import { decodeReportText, latin1Warning } from "./text.ts";

/** An LCOV record for `path`, written as lcov 1.16 writes it: the path's bytes given. */
function record(pathBytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from("SF:"), pathBytes, Buffer.from("\nDA:1,1\nDA:2,0\nend_of_record\n")]);
}

test("a UTF-8 report decodes as UTF-8, with no line read otherwise", () => {
  const bytes = record(Buffer.from("/ci/src/日本/x.c", "utf8"));
  assert.deepEqual(decodeReportText(bytes), { text: bytes.toString("utf8"), latin1Lines: [] });
  assert.equal(latin1Warning([]), null);
});

test("a line that is not UTF-8 is read as Latin-1, the lines around it as UTF-8", () => {
  // lcov 1.16 prints src/données/ in Latin-1 (é is the byte E9) and src/日本/ in UTF-8.
  const bytes = Buffer.concat([
    record(Buffer.from("/ci/src/données/calc.c", "latin1")),
    record(Buffer.from("/ci/src/日本/x.c", "utf8")),
  ]);
  const { text, latin1Lines } = decodeReportText(bytes);
  assert.deepEqual(latin1Lines, [1]);
  assert.ok(!text.includes("\uFFFD"), "no character is replaced");
  const report = parseLcov(text, { workDir: "/ci" });
  assert.deepEqual(
    report.files.map((file) => file.path),
    ["src/données/calc.c", "src/日本/x.c"],
  );
  assert.deepEqual(report.totals.lines, { covered: 2, total: 4 });
  assert.match(
    latin1Warning(latin1Lines) ?? "",
    /^1 line\(s\) of the report are not UTF-8 and were read as Latin-1 \(first: line 1\)/,
  );
});

test("line ends, a last line without one and CRLF pass through decoding unchanged", () => {
  const bytes = Buffer.concat([Buffer.from("a\r\n"), Buffer.from("caf\xe9\r\n", "latin1"), Buffer.from("z")]);
  assert.deepEqual(decodeReportText(bytes), { text: "a\r\ncafé\r\nz", latin1Lines: [2] });
  assert.deepEqual(decodeReportText(Buffer.from("\xe9\n", "latin1")), { text: "é\n", latin1Lines: [1] });
});
