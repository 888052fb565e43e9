import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError, Flags } from "./command.ts";
import { mcpCommand } from "./mcp-command.ts";
import { DEFAULT_URL, serverOf } from "./server-flags.ts";

/** `assay mcp`'s flags: the client command that has no options of its own besides these. */
function flagsOf(values: Record<string, string>): Flags {
  return new Flags(mcpCommand, values);
}

test("the flags win over ASSAY_URL and ASSAY_TOKEN, which win over the default server", () => {
  const env = { ASSAY_URL: "https://assay.example/", ASSAY_TOKEN: " assay_pat_fromenv " };
  assert.deepEqual(serverOf(flagsOf({}), env, "a token"), {
    url: "https://assay.example",
    token: "assay_pat_fromenv",
  });
  assert.deepEqual(
    serverOf(flagsOf({ url: "http://localhost:9000//", token: "assay_pat_fromflag" }), env, "a token"),
    { url: "http://localhost:9000", token: "assay_pat_fromflag" },
  );
  assert.deepEqual(serverOf(flagsOf({}), { ASSAY_TOKEN: "t" }, "a token"), { url: DEFAULT_URL, token: "t" });
});

test("no token, or a server that is not an http or https URL, is refused before any request", () => {
  assert.throws(
    () => serverOf(flagsOf({}), {}, "a personal access token"),
    (error: unknown) =>
      error instanceof CliError &&
      error.message === "no token: set ASSAY_TOKEN (or --token) to a personal access token",
  );
  for (const url of ["localhost:4000", "ftp://assay.example", "http:///x"]) {
    assert.throws(
      () => serverOf(flagsOf({ url }), { ASSAY_TOKEN: "t" }, "a token"),
      (error: unknown) =>
        error instanceof CliError && error.message.startsWith("--url must be an http or https URL"),
    );
  }
});
