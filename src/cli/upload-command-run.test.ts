import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { answerJson, type ScriptedServer, startScriptedServer } from "../../test/helpers/scripted-server.ts";
import { parseConfig } from "../config.ts";
import { CliError, type CommandContext, Flags } from "./command.ts";
import { uploadCommand } from "./upload-command.ts";
import { waitForUpload } from "./upload-wait.ts";

/**
 * `assay upload` run against a scripted server: what it refuses before sending anything, and the
 * requests and output of `--wait`. The same flows against a real server, through the package the
 * server serves, are in test/upload-cli.test.ts.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const SHA = "0123456789abcdef0123456789abcdef01234567";

/** The flags of one `assay upload` command line, as the entry point hands them over. */
function flagsOf(values: Record<string, string | boolean>): Flags {
  return new Flags(uploadCommand, values);
}

/** Stops `server`, removes `dir` and puts INIT_CWD back as it was (`saved`). */
async function cleanUp(server: ScriptedServer, dir: string, saved: string | undefined): Promise<void> {
  if (saved === undefined) delete process.env.INIT_CWD;
  else process.env.INIT_CWD = saved;
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The server's answer to an accepted upload that opened the run `runUid`, still PENDING. */
function uploadAccepted(runUid: string) {
  return {
    data: {
      uploadArtifact: {
        ok: true,
        message: "Artifact uploaded.",
        error: null,
        artifact: { id: "QXJ0aWZhY3Q6YTE=" },
        run: { id: "QW5hbHlzaXNSdW46eHl6", runUid, status: "PENDING" },
      },
    },
  };
}
describe("assay upload against a scripted server", () => {
  let server: ScriptedServer;
  let dir: string;

  before(async () => {
    server = await startScriptedServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-upload-run-"));
  });
  after(async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("with --wait the command polls its artifact and the artifact's check, reads the result in one request, and fails with the check", async () => {
    server.captured.length = 0;
    const run = {
      id: "QW5hbHlzaXNSdW46eHl6",
      runUid: "7d1c2a4e-0000-4000-8000-000000000001",
      status: "PENDING",
    };
    const check = {
      status: "FAILURE",
      analyzer: { shortcode: "eslint" },
      summary: {
        occurrencesIntroduced: 2,
        occurrencesResolved: 0,
        occurrencesSuppressed: 0,
        occurrenceDistributionByCategory: [{ category: "SECURITY", introduced: 2 }],
        occurrenceDistributionBySeverity: [
          { severity: "CRITICAL", introduced: 1 },
          { severity: "MAJOR", introduced: 1 },
        ],
      },
      metrics: [],
    };
    server.respond = (_req, res, body) => {
      const { query } = JSON.parse(body.toString("utf8")) as { query: string };
      const data = query.includes("uploadArtifact")
        ? {
            uploadArtifact: {
              ok: true,
              message: "Artifact uploaded.",
              error: null,
              artifact: { id: "QXJ0aWZhY3Q6YTE=" },
              run,
            },
          }
        : {
            artifact: {
              kind: "SARIF",
              status: "PROCESSED",
              format: "SARIF 2.1.0",
              error: null,
              readCount: 3,
              storedCount: 2,
              skippedCount: 1,
              skipped: [{ reason: "NO_LOCATION", count: 1 }],
              warnings: [],
              check,
            },
            run: { ...run, status: "FAILURE" },
          };
      answerJson({ data })(_req, res, body);
    };
    const file = path.join(dir, "eslint.sarif");
    fs.writeFileSync(file, '{"version":"2.1.0","runs":[]}');
    const printed: string[] = [];
    const context: CommandContext = {
      config: parseConfig({}),
      flags: flagsOf({
        file,
        analyzer: "eslint",
        repository: "UmVwb3NpdG9yeTpnaXZlbg==",
        commit: SHA,
        url: server.url,
        token: "assay_pat_t",
        "no-progress": true,
        wait: true,
        timeout: "30",
      }),
      database: () => assert.fail("upload opens no database"),
      print: (line) => printed.push(line),
      note: (line) => printed.push(`note: ${line}`),
    };
    await assert.rejects(
      uploadCommand.run(context),
      (e: unknown) =>
        e instanceof CliError &&
        e.exitCode === 1 &&
        e.message === "the eslint check failed its quality gate: 2 new findings",
    );
    assert.deepEqual(printed.slice(0, 7), [
      "Artifact uploaded.",
      `Run ${run.runUid}: PENDING`,
      "note: Waiting up to 30 s for processing...",
      "Check eslint: FAILURE",
      "  Report: SARIF 2.1.0, 3 results read, 2 stored, 1 skipped (NO_LOCATION 1)",
      "  New findings: 2 (SECURITY 2; CRITICAL 1, MAJOR 1); resolved 0; suppressed 0",
      `Run ${run.runUid}: FAILURE`,
    ]);
    const queries = server.captured.map(
      (c) => JSON.parse(c.body.toString("utf8")) as { query: string; variables: unknown },
    );
    assert.equal(
      queries.length,
      3,
      "the upload, one poll that finds the check settled, one read of its result",
    );
    assert.match(queries[1]!.query, /^query AssayUploadState/);
    assert.match(queries[2]!.query, /^query AssayUploadResult/);
    const variables = { runUid: run.runUid, artifactId: "QXJ0aWZhY3Q6YTE=" };
    assert.deepEqual(queries[1]!.variables, variables);
    assert.deepEqual(queries[2]!.variables, variables);
    assert.ok(server.captured.every((c) => c.headers.authorization === "Bearer assay_pat_t"));
  });

  test("a real report of another kind than the analyzer takes is refused before anything is sent, in the server's words", async () => {
    const fixtures = path.join(ROOT, "src", "formats");
    const cases: Array<[string, Record<string, string>, string]> = [
      [
        "coverage/fixtures/c8/lcov.info",
        { analyzer: "eslint", "analyzer-type": "community" },
        "this looks like an LCOV coverage report, not SARIF: upload it with analyzer test-coverage and a language key (`key`; `--key` for assay upload)",
      ],
      [
        "coverage/fixtures/c8/clover.xml",
        { analyzer: "eslint", "analyzer-type": "community" },
        "this looks like a Clover coverage report, not SARIF: upload it with analyzer test-coverage and a language key (`key`; `--key` for assay upload)",
      ],
      [
        "sbom/fixtures/npm/cyclonedx.json",
        { analyzer: "eslint", "analyzer-type": "community" },
        "this looks like a CycloneDX SBOM (JSON), not SARIF: upload it with analyzer sca",
      ],
      [
        "sarif/fixtures/eslint/eslint.sarif",
        { analyzer: "test-coverage", key: "javascript" },
        "this looks like a SARIF log, not a coverage report: upload it with the shortcode of the analyzer that wrote it (with analyzerType community for one outside the catalog)",
      ],
    ];
    server.captured.length = 0;
    for (const [file, flags, message] of cases) {
      const context: CommandContext = {
        config: parseConfig({}),
        flags: flagsOf({
          file: path.join(fixtures, file),
          repository: "UmVwb3NpdG9yeTpnaXZlbg==",
          commit: SHA,
          url: server.url,
          token: "assay_pat_t",
          "no-progress": true,
          ...flags,
        }),
        database: () => assert.fail("upload opens no database"),
        print: () => assert.fail("nothing is printed"),
        note: () => {},
      };
      await assert.rejects(uploadCommand.run(context), (e: unknown) => {
        assert.ok(e instanceof CliError && e.exitCode === 1);
        assert.equal(e.message, message, file);
        return true;
      });
    }
    assert.equal(server.captured.length, 0, "no request was made");
    // Each report of the right kind passes the same look.
    server.respond = answerJson({
      data: { uploadArtifact: { ok: true, message: "Artifact uploaded.", error: null } },
    });
    for (const [file, flags] of [
      ["sarif/fixtures/eslint/eslint.sarif", { analyzer: "eslint", "analyzer-type": "community" }],
      ["coverage/fixtures/c8/lcov.info", { analyzer: "test-coverage", key: "javascript" }],
    ] as const) {
      const printed: string[] = [];
      await uploadCommand.run({
        config: parseConfig({}),
        flags: flagsOf({
          file: path.join(fixtures, file),
          repository: "UmVwb3NpdG9yeTpnaXZlbg==",
          commit: SHA,
          url: server.url,
          token: "assay_pat_t",
          "no-progress": true,
          ...flags,
        }),
        database: () => assert.fail("upload opens no database"),
        print: (line) => printed.push(line),
        note: () => {},
      });
      assert.deepEqual(printed, ["Artifact uploaded."], file);
    }
    assert.equal(server.captured.length, 2);
  });

  test("pylint's and Bandit's JSON are findings reports: sent with their analyzer, refused as coverage", async () => {
    const folder = path.join(ROOT, "src", "formats", "sarif", "fixtures", "python-lint");
    const run = (file: string, flags: Record<string, string>, printed: string[]) =>
      uploadCommand.run({
        config: parseConfig({}),
        flags: flagsOf({
          file: path.join(folder, file),
          repository: "UmVwb3NpdG9yeTpnaXZlbg==",
          commit: SHA,
          url: server.url,
          token: "assay_pat_t",
          "no-progress": true,
          ...flags,
        }),
        database: () => assert.fail("upload opens no database"),
        print: (line) => printed.push(line),
        note: () => {},
      });
    server.captured.length = 0;
    for (const [file, description] of [
      ["pylint.json", "pylint's JSON output"],
      ["bandit.json", "a Bandit JSON report"],
    ] as const) {
      await assert.rejects(run(file, { analyzer: "test-coverage", key: "python" }, []), (e: unknown) => {
        assert.ok(e instanceof CliError);
        assert.match(e.message, new RegExp(`^this looks like ${description}, not a coverage report: `));
        return true;
      });
    }
    assert.equal(server.captured.length, 0, "no request was made");
    server.respond = answerJson({
      data: { uploadArtifact: { ok: true, message: "Artifact uploaded.", error: null } },
    });
    for (const [file, analyzer] of [
      ["pylint.json", "pylint"],
      ["bandit.json", "bandit"],
    ] as const) {
      const printed: string[] = [];
      await run(file, { analyzer, "analyzer-type": "community" }, printed);
      assert.deepEqual(printed, ["Artifact uploaded."], file);
    }
    assert.equal(server.captured.length, 2);
  });

  test("a settled check whose result cannot be read at first is read again, not reported as unknown", async () => {
    server.captured.length = 0;
    let resultReads = 0;
    server.respond = (req, res, body) => {
      const { query } = JSON.parse(body.toString("utf8")) as { query: string };
      if (query.startsWith("query AssayUploadResult") && resultReads++ === 0) {
        answerJson({ errors: [{ message: "Bad gateway" }] }, 502)(req, res, body);
        return;
      }
      const check = {
        status: "SUCCESS",
        analyzer: { shortcode: "eslint" },
        summary: {
          occurrencesIntroduced: 0,
          occurrencesResolved: 0,
          occurrencesSuppressed: 0,
          occurrenceDistributionByCategory: [],
          occurrenceDistributionBySeverity: [],
        },
        metrics: [],
      };
      answerJson({
        data: {
          artifact: { kind: "SARIF", status: "PROCESSED", skipped: [], warnings: [], check },
          run: { runUid: "r", status: "SUCCESS" },
        },
      })(req, res, body);
    };
    let now = 0;
    const outcome = await waitForUpload(
      { url: server.url, token: "t", runUid: "r", artifactId: "a", analyzer: "eslint", timeoutSeconds: 60 },
      {
        now: () => now,
        sleep: async (ms) => {
          now += ms;
        },
        random: () => 0.5,
      },
    );
    assert.equal(outcome.check?.status, "SUCCESS");
    const sent = server.captured.map(
      (c) => (JSON.parse(c.body.toString("utf8")) as { query: string }).query.split("(")[0],
    );
    assert.deepEqual(sent, [
      "query AssayUploadState",
      "query AssayUploadResult",
      "query AssayUploadState",
      "query AssayUploadResult",
    ]);
  });
});

describe("assay upload sends the repository's .deepsource.toml", () => {
  let server: ScriptedServer;
  let dir: string;
  const savedCwd = process.env.INIT_CWD;
  const CONFIG = 'version = 1\n\n[[analyzers]]\nname = "javascript"\nenabled = true\n';

  before(async () => {
    server = await startScriptedServer();
    server.respond = answerJson(uploadAccepted("7d1c2a4e-0000-4000-8000-000000000002"));
    // Outside any git work tree: the root is the work dir, the directory the command runs in.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-upload-config-"));
    fs.writeFileSync(path.join(dir, "eslint.sarif"), JSON.stringify({ version: "2.1.0", runs: [] }));
    fs.writeFileSync(path.join(dir, ".deepsource.toml"), CONFIG);
    fs.writeFileSync(path.join(dir, "other.toml"), "version = 1\n");
    process.env.INIT_CWD = dir;
  });
  after(() => cleanUp(server, dir, savedCwd));

  /** Runs `assay upload` with `flags`; answers the `configToml` of each request sent (undefined when left out). */
  async function sentConfigs(flags: Record<string, string | boolean>): Promise<Array<string | undefined>> {
    server.captured.length = 0;
    await uploadCommand.run({
      config: parseConfig({}),
      flags: flagsOf({
        file: "eslint.sarif",
        analyzer: "eslint",
        "analyzer-type": "community",
        repository: "UmVwb3NpdG9yeTpnaXZlbg==",
        commit: SHA,
        branch: "main",
        url: server.url,
        token: "assay_pat_t",
        "no-progress": true,
        changes: "off",
        ...flags,
      }),
      database: () => assert.fail("upload opens no database"),
      print: () => {},
      note: () => {},
    });
    return server.captured.map((request) => {
      const body = JSON.parse(request.body.toString("utf8")) as {
        variables: { input: { configToml?: string } };
      };
      return body.variables.input.configToml;
    });
  }

  test("the one at the root by default, the one --config names, none with --no-config", async () => {
    assert.deepEqual(await sentConfigs({}), [CONFIG]);
    assert.deepEqual(await sentConfigs({ config: "other.toml" }), ["version = 1\n"]);
    assert.deepEqual(await sentConfigs({ "no-config": true }), [undefined]);
  });

  test("a --config that cannot be read, or is over the limit, is an error before anything is sent", async () => {
    await assert.rejects(sentConfigs({ config: "missing.toml" }), (error: unknown) => {
      assert.ok(error instanceof CliError);
      assert.equal(error.message, `--config: cannot read ${path.join(dir, "missing.toml")}: no such file`);
      return true;
    });
    fs.writeFileSync(path.join(dir, "big.toml"), `# ${"x".repeat(70_000)}\n`);
    await assert.rejects(
      sentConfigs({ config: "big.toml" }),
      /big\.toml is 70003 bytes; a \.deepsource\.toml of at most 65536 is accepted/,
    );
    assert.equal(server.captured.length, 0, "no request was made");
  });
});

describe("assay upload sends a Go cover profile with the checkout's Go modules", () => {
  let server: ScriptedServer;
  let dir: string;
  const savedCwd = process.env.INIT_CWD;
  // go test's real profile of the go-coverage project (module example.com/warehouse) and its go.mod.
  const PROFILE = path.join(ROOT, "src/formats/coverage/fixtures/go/set.out");
  const GO_MOD = path.join(ROOT, "test/fixtures/tools/go-coverage/go.mod");

  before(async () => {
    server = await startScriptedServer();
    server.respond = answerJson(uploadAccepted("7d1c2a4e-0000-4000-8000-000000000003"));
    // Outside any git work tree: the root is the directory the command runs in.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-upload-go-"));
    fs.copyFileSync(PROFILE, path.join(dir, "set.out"));
    process.env.INIT_CWD = dir;
  });
  after(() => cleanUp(server, dir, savedCwd));

  /** Runs `assay upload` of the profile with `flags`; answers the workDir and goModules sent, and the notes printed. */
  async function sent(
    flags: Record<string, string | boolean>,
  ): Promise<{ workDir: string; goModules?: unknown; notes: string[] }> {
    server.captured.length = 0;
    const notes: string[] = [];
    await uploadCommand.run({
      config: parseConfig({}),
      flags: flagsOf({
        file: "set.out",
        analyzer: "test-coverage",
        key: "go",
        repository: "UmVwb3NpdG9yeTpnaXZlbg==",
        commit: SHA,
        branch: "main",
        url: server.url,
        token: "assay_pat_t",
        "no-progress": true,
        "no-config": true,
        changes: "off",
        ...flags,
      }),
      database: () => assert.fail("upload opens no database"),
      print: () => {},
      note: (text) => notes.push(text),
    });
    assert.equal(server.captured.length, 1);
    const body = JSON.parse(server.captured[0]!.body.toString("utf8")) as {
      variables: { input: { workDir: string; goModules?: unknown } };
    };
    const { workDir, goModules } = body.variables.input;
    return { workDir, ...(goModules === undefined ? {} : { goModules }), notes };
  }

  test("the module of the root's go.mod, in the root, with the directory as workDir", async () => {
    fs.copyFileSync(GO_MOD, path.join(dir, "go.mod"));
    assert.deepEqual(await sent({}), {
      workDir: dir,
      goModules: [{ modulePath: "example.com/warehouse", directory: "" }],
      notes: ["Go modules sent to place the profile's files: example.com/warehouse in ."],
    });
    assert.equal((await sent({ "work-dir": "." })).workDir, dir);
  });

  test("a module in a subdirectory and the root's go.work: each module with its directory", async () => {
    fs.rmSync(path.join(dir, "go.mod"), { force: true });
    fs.mkdirSync(path.join(dir, "backend"));
    fs.writeFileSync(path.join(dir, "backend", "go.mod"), "module example.com/warehouse\n\ngo 1.19\n");
    fs.writeFileSync(path.join(dir, "go.work"), "go 1.19\n\nuse ./backend\n");
    assert.deepEqual((await sent({})).goModules, [
      { modulePath: "example.com/warehouse", directory: "backend" },
    ]);
    fs.rmSync(path.join(dir, "go.work"));
    assert.deepEqual(await sent({}), { workDir: dir, notes: [] }, "no module found: none sent");
  });
});
