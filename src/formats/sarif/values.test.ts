// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { it } from "node:test";
import { resolveArtifactPath, type UriBase } from "./paths.ts";
import { readSarif } from "./reader.ts";
import { plainMessage } from "./values.ts";

it("resolves every location as resolveArtifactPath does, though resolved paths are cached per run", async () => {
  const bases: Record<string, UriBase> = {
    ROOT: { uri: "file:///work/repo/" },
    SRC: { uri: "src/", uriBaseId: "ROOT" },
    // A base id that is another's name with a URI's start: its key must not meet theirs.
    S: { uri: "lib/" },
  };
  const uris = ["a.js", "RCa.js", "../x.js", "file:///work/repo/b.js", "caf%C3%A9.js"];
  const locations = [null, "SRC", "S", "ROOT", "%SRCROOT%"].flatMap((uriBaseId) =>
    uris.map((uri) => ({ uri, uriBaseId })),
  );
  // More distinct URIs than one cache keeps, then the first ones again.
  const many = Array.from({ length: 2500 }, (_, i) => ({ uri: `f${i % 1200}.js`, uriBaseId: null }));
  const result = ({ uri, uriBaseId }: { uri: string; uriBaseId: string | null }) => ({
    ruleId: "r",
    message: { text: "m" },
    locations: [
      { physicalLocation: { artifactLocation: uriBaseId === null ? { uri } : { uri, uriBaseId } } },
    ],
  });
  const tool = { driver: { name: "t" } };
  const log = {
    version: "2.1.0",
    runs: [
      // Results before the bases resolve without them, those after with them.
      { tool, results: [...locations, ...many].map(result) },
      { tool, originalUriBaseIds: bases, results: locations.map(result) },
      { tool, results: locations.map(result), originalUriBaseIds: bases },
    ],
  };
  const workDir = "/work/repo";
  const expected = [
    ...[...locations, ...many].map((l) => [l, {}] as const),
    ...locations.map((l) => [l, bases] as const),
    ...locations.map((l) => [l, {}] as const),
  ].map(([{ uri, uriBaseId }, originalUriBaseIds]) =>
    resolveArtifactPath(uri, uriBaseId ?? undefined, { workDir, originalUriBaseIds }),
  );
  const resolved = [];
  for await (const event of readSarif([JSON.stringify(log)], { workDir })) {
    if (event.type !== "result") continue;
    const location = event.result.locations[0]!;
    resolved.push({ path: location.path, outsideRepository: location.outsideRepository });
  }
  assert.deepEqual(resolved, expected);
});

it("renders a plain-text message's embedded links as their text, and leaves other brackets", () => {
  assert.equal(
    plainMessage("possible nil pointer dereference\n\t[this check suggests that the pointer can be nil](1)"),
    "possible nil pointer dereference\n\tthis check suggests that the pointer can be nil",
  );
  assert.equal(plainMessage("see [the docs](https://example.com/a) and [x](0)"), "see the docs and x");
  assert.equal(plainMessage("a literal \\[1\\] and [a link](2)"), "a literal [1] and a link");
  assert.equal(plainMessage("a \\[link\\](2) escaped, and [one](2)"), "a [link](2) escaped, and one");
  // Without a link the text is left whole: ESLint's formatter writes its messages as ESLint prints them.
  assert.equal(plainMessage("Unnecessary escape character: \\[."), "Unnecessary escape character: \\[.");
  assert.equal(plainMessage("[nested \\] label](3)"), "nested ] label");
  // Not links: no target, a target that is neither an id nor an absolute URI, an index expression.
  for (const text of ["xs[i] is nil", "call f[0](x)", "[a] (1)", "[a](./rel)", "[a](https://x/a_(b))"]) {
    assert.equal(plainMessage(text), text);
  }
});
