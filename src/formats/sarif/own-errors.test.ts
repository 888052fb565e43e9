// test-runner: execution-mode independent
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { readFindings } from "../findings.ts";
import type { SarifEvent } from "./types.ts";

/**
 * Results that are their tool's own errors (src/formats/sarif/own-errors.ts), on oxlint's real
 * report of a file it could not parse (scripts/make-fixtures.sh oxlint-parse).
 */

const FOLDER = path.join(import.meta.dirname, "..", "..", "..", "test", "fixtures", "oxlint-parse");
const broken = fs.readFileSync(path.join(FOLDER, "broken.sarif"), "utf8");
const { workDir } = JSON.parse(fs.readFileSync(path.join(FOLDER, "broken.summary.json"), "utf8")) as {
  workDir: string;
};

async function eventsOf(text: string): Promise<SarifEvent[]> {
  const events: SarifEvent[] = [];
  for await (const event of readFindings([text], { workDir })) events.push(event);
  return events;
}

describe("a result that is its tool's own error", () => {
  it("oxlint's OXL0001 is read as the tool's error naming the file it could not parse, not as a result", async () => {
    const events = await eventsOf(broken);
    assert.deepEqual(
      events.filter((event) => event.type !== "run"),
      [
        {
          type: "toolError",
          error: {
            runIndex: 0,
            message: "Unexpected token (OXL0001)",
            path: "src/badge.js",
            line: 6,
            unanalyzedPath: "src/badge.js",
          },
        },
      ],
    );
  });

  it("the same rule id from another tool is a result like any other", async () => {
    const renamed = JSON.parse(broken) as { runs: Array<{ tool: { driver: { name: string } } }> };
    renamed.runs[0]!.tool.driver.name = "some-linter";
    const events = await eventsOf(JSON.stringify(renamed));
    assert.deepEqual(
      events.flatMap((event) => (event.type === "result" ? [event.result.ruleId] : [event.type])),
      ["run", "OXL0001"],
    );
  });
});
