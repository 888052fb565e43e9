// test-runner: execution-mode independent (a client of the API; it runs no GraphQL execution)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { gunzipSync } from "node:zlib";
import { assayArgs } from "../../test/helpers/start-command.ts";
import { parseConfig } from "../config.ts";
import type { Env } from "./ci-environment.ts";
import { CliError, type CommandContext, Flags, OutcomeUnknownError } from "./command.ts";
import { base64Of, peekHead, UPLOAD_MUTATION, type UploadFields, uploadBody } from "./upload-body.ts";
import { uploadCommand } from "./upload-command.ts";
import { createProgress, formatBytes } from "./upload-progress.ts";
import { interpretUploadAnswer, postGraphql, resolveRepositoryId } from "./upload-request.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SHA = "0123456789abcdef0123456789abcdef01234567";
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string })
  .version;

/** The flags of one `assay upload` command line, as the entry point hands them over. */
function flagsOf(values: Record<string, string | boolean>): Flags {
  return new Flags(uploadCommand, values);
}

/** A report of about `bytes`, SARIF-like so that it compresses like one. */
function reportOf(bytes: number): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `{"ruleId":"rule-${i % 41}","message":{"text":"finding ${i} at ${(i * 7919) % 10007}"}},\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join("").slice(0, bytes));
}

async function* inPieces(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const FIELDS: UploadFields = {
  repositoryId: "UmVwb3NpdG9yeTphYmNkZWZnaGlq",
  commitOid: SHA,
  branch: "feature/x",
  pullRequestNumber: 12,
  baseBranch: "main",
  analyzer: "eslint",
  analyzerType: null,
  key: null,
  workDir: "/ci/repo",
  reporter: "assay-cli",
  reporterVersion: VERSION,
};

describe("the request body", () => {
  test("is JSON whose data is the base64 of the gzipped file, built from a file read in small pieces", async () => {
    const report = reportOf(6 * 1024 * 1024 + 17);
    const reads: number[] = [];
    let ended = -1;
    const chunks: Buffer[] = [];
    let readWhenDataStarted = -1;
    for await (const chunk of uploadBody(inPieces(report, 4096), FIELDS, {
      onRead: (bytes) => reads.push(bytes),
      onEnd: (bytes) => {
        ended = bytes;
      },
    })) {
      if (chunks.length === 1) readWhenDataStarted = reads.at(-1) ?? 0;
      chunks.push(Buffer.from(chunk));
    }
    const body = Buffer.concat(chunks);
    const document = JSON.parse(body.toString("utf8")) as {
      query: string;
      variables: { input: Record<string, unknown> & { data: string } };
    };
    assert.equal(document.query, UPLOAD_MUTATION);
    const { data, ...input } = document.variables.input;
    assert.deepEqual(input, { ...FIELDS, compression: "GZIP" });
    assert.ok(gunzipSync(Buffer.from(data, "base64")).equals(report));
    assert.equal(data.length % 4, 0);

    assert.equal(ended, body.length, "onEnd gets the body's size");
    assert.equal(reads.at(-1), report.length);
    assert.ok(
      reads.every((bytes, i) => i === 0 || bytes > reads[i - 1]!),
      "bytes read only grow",
    );
    assert.ok(
      readWhenDataStarted > 0 && readWhenDataStarted < report.length / 4,
      `the body starts before the file is read (${readWhenDataStarted} of ${report.length} bytes read)`,
    );
  });

  test("the head of a stream is read for the sniffer and the whole stream is still sent", async () => {
    const bytes = reportOf(200_000);
    for (const [chunk, head] of [
      [1000, 65_536],
      [70_000, 65_536],
      [1000, 500_000],
    ] as const) {
      const peeked = await peekHead(inPieces(bytes, chunk), head);
      assert.ok(peeked.head.equals(bytes.subarray(0, head)), `head of ${head} from chunks of ${chunk}`);
      const all: Buffer[] = [];
      for await (const piece of peeked.chunks) all.push(Buffer.from(piece));
      assert.ok(Buffer.concat(all).equals(bytes), `the whole stream from chunks of ${chunk}`);
    }
  });

  test("base64 pieces join into the base64 of the whole, whatever the chunk sizes", async () => {
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 37) % 256));
    for (const size of [1, 2, 3, 4, 5, 7, 64, 1000]) {
      const pieces: string[] = [];
      for await (const piece of base64Of(inPieces(bytes, size))) pieces.push(piece);
      assert.equal(pieces.join(""), bytes.toString("base64"), `chunks of ${size}`);
    }
  });
});

describe("progress", () => {
  test("on a terminal one line is redrawn a few times a second, then a final line", () => {
    let clock = 1000;
    const written: string[] = [];
    const progress = createProgress({
      label: "report.sarif",
      total: 4 * 1024 * 1024,
      write: (text) => written.push(text),
      interactive: true,
      now: () => clock,
    });
    progress.read(1024 * 1024);
    clock += 100;
    progress.read(2 * 1024 * 1024);
    clock += 200;
    progress.read(3 * 1024 * 1024);
    clock += 100;
    progress.read(4 * 1024 * 1024);
    clock += 1700;
    progress.done(2_500_000);
    assert.deepEqual(written, [
      "\rUploading report.sarif: 1.0 MiB / 4.0 MiB (25%)\u001b[K",
      "\rUploading report.sarif: 3.0 MiB / 4.0 MiB (75%)\u001b[K",
      "\rUploaded report.sarif: 4.0 MiB / 4.0 MiB (100%), 2.4 MiB sent in 2.1 s\u001b[K\n",
    ]);
  });

  test("in a log each update is a line, every few seconds; stdin has no total", () => {
    let clock = 0;
    const written: string[] = [];
    const progress = createProgress({
      label: "stdin",
      total: null,
      write: (text) => written.push(text),
      interactive: false,
      now: () => clock,
    });
    for (let i = 1; i <= 8; i++) {
      progress.read(i * 1000);
      clock += 1000;
    }
    progress.done(900);
    assert.deepEqual(written, [
      "Uploading stdin: 1000 B\n",
      "Uploading stdin: 3.9 KiB\n",
      "Uploading stdin: 6.8 KiB\n",
      "Uploaded stdin: 7.8 KiB, 900 B sent in 8.0 s\n",
    ]);
  });

  test("sizes read as B, KiB, MiB and GiB", () => {
    assert.deepEqual([0, 1023, 1024, 1536, 5 * 1024 * 1024, 3 * 1024 ** 3].map(formatBytes), [
      "0 B",
      "1023 B",
      "1.0 KiB",
      "1.5 KiB",
      "5.0 MiB",
      "3.0 GiB",
    ]);
  });
});

describe("the answer", () => {
  const ok = (payload: unknown) => ({
    status: 200,
    text: JSON.stringify({ data: { uploadArtifact: payload } }),
  });
  /** Refused with `message` and exit code 1 (the upload was answered), or 3 when `unknown`. */
  const refusedWith = (answer: { status: number; text: string }, message: RegExp, exitCode = 1) =>
    assert.throws(
      () => interpretUploadAnswer(answer, 1234),
      (e: unknown) => e instanceof CliError && message.test(e.message) && e.exitCode === exitCode,
    );

  test("ok: true gives the message, the artifact and the run", () => {
    const run = { id: "QW5hbHlzaXNSdW46YWJj", runUid: "5a0e…", status: "PENDING" };
    assert.deepEqual(
      interpretUploadAnswer(
        ok({
          ok: true,
          message: "Artifact uploaded.",
          error: null,
          artifact: { id: "QXJ0aWZhY3Q6YTE=" },
          run,
        }),
        10,
      ),
      { message: "Artifact uploaded.", artifactId: "QXJ0aWZhY3Q6YTE=", run },
    );
  });

  test("ok: false, GraphQL errors and HTTP errors are refusals that say why", () => {
    refusedWith(
      ok({ ok: false, message: null, error: "the SARIF version must be 2.1.0" }),
      /^the SARIF version must be 2.1.0$/,
    );
    refusedWith(
      { status: 200, text: JSON.stringify({ errors: [{ message: "Repository not found" }], data: null }) },
      /^the server answered with an error: Repository not found$/,
    );
    refusedWith(
      { status: 413, text: "{}" },
      /^the server refused the upload with HTTP 413: the file exceeds the server's upload limit/,
    );
    refusedWith(
      { status: 401, text: JSON.stringify({ errors: [{ message: "Invalid token" }] }) },
      /HTTP 401\): Invalid token; set ASSAY_TOKEN/,
    );
    refusedWith({ status: 400, text: "{}" }, /^the server answered HTTP 400: \{\}$/);
  });

  test("a server error or a rate limit leaves the outcome unknown: exit code 3", () => {
    refusedWith(
      { status: 502, text: "<html>Bad gateway</html>" },
      /^the server answered HTTP 502: <html>Bad gateway/,
      3,
    );
    refusedWith(
      { status: 429, text: JSON.stringify({ errors: [{ message: "Rate limit exceeded" }] }) },
      /^the server answered HTTP 429: Rate limit exceeded$/,
      3,
    );
    refusedWith({ status: 200, text: "not json" }, /^the server answered HTTP 200: not json$/);
    refusedWith(
      { status: 200, text: JSON.stringify({ data: { uploadArtifact: null } }) },
      /no uploadArtifact result/,
    );
  });
});

/** A tiny server that records each request and answers from a queue. */
interface Captured {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

describe("the request, against a local HTTP server", () => {
  let server: http.Server;
  let url: string;
  const captured: Captured[] = [];
  let respond: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;
  /** When set, answers as soon as the request arrives, before its body (as the server's 413 does). */
  let respondEarly: ((res: http.ServerResponse) => void) | null = null;
  /** When set, bodies are counted here and dropped, so the server's own memory stays flat. */
  let discarded: { bytes: number } | null = null;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "assay-upload-"));
    server = http.createServer((req, res) => {
      if (respondEarly) {
        respondEarly(res);
        req.resume();
        return;
      }
      const parts: Buffer[] = [];
      req.on("data", (chunk: Buffer) => {
        if (discarded) discarded.bytes += chunk.length;
        else parts.push(chunk);
      });
      req.on("end", () => {
        const body = Buffer.concat(parts);
        captured.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
        respond(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const answerJson =
    (payload: unknown, status = 200) =>
    (_req: http.IncomingMessage, res: http.ServerResponse) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    };

  test("the upload is one streamed POST to /graphql/ with the token, and its body decodes to the file", async () => {
    captured.length = 0;
    respond = answerJson({
      data: { uploadArtifact: { ok: true, message: "Artifact uploaded.", error: null } },
    });
    const report = reportOf(3 * 1024 * 1024);
    const answer = await postGraphql(url, "assay_pat_secret", uploadBody(inPieces(report, 1000), FIELDS));
    assert.deepEqual(interpretUploadAnswer(answer, null), {
      message: "Artifact uploaded.",
      artifactId: null,
      run: null,
    });

    assert.equal(captured.length, 1);
    const [request] = captured;
    assert.equal(request!.method, "POST");
    assert.equal(request!.url, "/graphql/");
    assert.equal(request!.headers.authorization, "Bearer assay_pat_secret");
    assert.equal(request!.headers["content-type"], "application/json");
    assert.equal(request!.headers["user-agent"], `assay-cli/${VERSION}`);
    assert.equal(
      request!.headers["transfer-encoding"],
      "chunked",
      "streamed, so no length is known up front",
    );
    assert.equal(request!.headers["content-length"], undefined);
    const document = JSON.parse(request!.body.toString("utf8")) as {
      query: string;
      variables: { input: UploadFields & { data: string; compression: string } };
    };
    assert.equal(document.query, UPLOAD_MUTATION);
    assert.equal(document.variables.input.compression, "GZIP");
    assert.equal(document.variables.input.commitOid, SHA);
    assert.ok(gunzipSync(Buffer.from(document.variables.input.data, "base64")).equals(report));
    assert.ok(request!.body.length < report.length / 2, "the body is compressed");
  });

  test("a 413 sent before the body was read is reported as the upload limit", async () => {
    respondEarly = (res) => {
      res.writeHead(413, { "content-type": "application/json", connection: "close" });
      res.end(JSON.stringify({ errors: [{ message: "Payload too large" }] }));
    };
    try {
      const answer = await postGraphql(url, "t", uploadBody(inPieces(reportOf(2_000_000), 1000), FIELDS));
      assert.equal(answer.status, 413);
      assert.throws(
        () => interpretUploadAnswer(answer, null),
        /HTTP 413: the file exceeds the server's upload limit/,
      );
    } finally {
      respondEarly = null;
    }
  });

  test("a repository given as provider/login/name is looked up by the contract's repository query", async () => {
    captured.length = 0;
    respond = answerJson({ data: { repository: { id: "UmVwb3NpdG9yeTpmb3VuZA==" } } });
    const id = await resolveRepositoryId({
      url,
      token: "t",
      repository: { vcsProvider: "GITLAB", login: "acme", name: "api" },
    });
    assert.equal(id, "UmVwb3NpdG9yeTpmb3VuZA==");
    const document = JSON.parse(captured[0]!.body.toString("utf8")) as { query: string; variables: unknown };
    assert.match(
      document.query,
      /repository\(name: \$name, login: \$login, vcsProvider: \$vcsProvider\) \{ id \}/,
    );
    assert.deepEqual(document.variables, { vcsProvider: "GITLAB", login: "acme", name: "api" });

    respond = answerJson({ data: { repository: null } });
    await assert.rejects(
      resolveRepositoryId({
        url,
        token: "t",
        repository: { vcsProvider: "GITHUB", login: "acme", name: "gone" },
      }),
      /^CliError: no repository acme\/gone on GITHUB that this token can see$/,
    );
    captured.length = 0;
    assert.equal(await resolveRepositoryId({ url, token: "t", repository: { id: "given" } }), "given");
    assert.equal(captured.length, 0, "an id needs no look-up");
  });

  test("a redirect is refused with a hint, not followed", async () => {
    respondEarly = (res) => {
      res.writeHead(308, { location: "https://elsewhere.example/graphql/" });
      res.end();
    };
    try {
      await assert.rejects(
        postGraphql(url, "t", uploadBody(inPieces(reportOf(10_000), 1000), FIELDS)),
        /^CliError: cannot reach http:\/\/127\.0\.0\.1:\d+\/graphql\/: the server answered with a redirect; give --url the address it redirects to$/,
      );
    } finally {
      respondEarly = null;
    }
  });

  test("uploading 40 MB keeps memory flat: the body is never held whole", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    // Random bytes do not compress: the body is some 53 MB, which would show if it were held.
    const total = 40 * 1024 * 1024;
    async function* randomReport(): AsyncGenerator<Uint8Array> {
      for (let made = 0; made < total; made += 1024 * 1024) yield randomBytes(1024 * 1024);
    }
    discarded = { bytes: 0 };
    respond = answerJson({ data: { uploadArtifact: { ok: true, message: "ok", error: null } } });
    gc();
    const baseline = process.memoryUsage().arrayBuffers;
    const alive: number[] = [];
    let nextSample = 0;
    let bodyBytes = 0;
    try {
      const answer = await postGraphql(
        url,
        "t",
        uploadBody(randomReport(), FIELDS, {
          onRead: (bytes) => {
            if (bytes < nextSample) return;
            nextSample += 4 * 1024 * 1024;
            gc();
            alive.push(process.memoryUsage().arrayBuffers - baseline);
          },
          onEnd: (bytes) => {
            bodyBytes = bytes;
          },
        }),
      );
      assert.equal(interpretUploadAnswer(answer, null).message, "ok");
      assert.equal(discarded.bytes, bodyBytes);
    } finally {
      discarded = null;
    }
    assert.ok(bodyBytes > 50 * 1024 * 1024, `a body of ${formatBytes(bodyBytes)}`);
    // Sampled every 4 MiB read, after a collection. A held body grows with what was read: by the
    // eighth sample (32 MiB of the report read) it holds over 40 MiB of body, which no collection
    // can free, and the last three 48-53 MiB. Streaming keeps only what is in flight: a few chunks
    // on a quiet machine. Beside a CPU load the counter is noisy (a plateau of about 22 MiB that
    // rose in one step and held, freed buffers not yet swept, a baseline 11 MB too high), which a
    // bound of 12 MiB on the median once called a held body; 32 MiB on every sample is above that
    // noise and below what a held body must reach.
    assert.equal(alive.length, 11, "one sample per 4 MiB read");
    assert.ok(
      Math.max(...alive) < 32 * 1024 * 1024,
      `buffers alive while uploading: ${alive.map(formatBytes).join(", ")}`,
    );
  });

  test("a server that cannot be reached is named in the error, with the exit code of an unknown outcome", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(
      postGraphql(`http://127.0.0.1:${port}`, "t", "{}"),
      (e: unknown) =>
        e instanceof OutcomeUnknownError &&
        e.exitCode === 3 &&
        e.message.startsWith(`cannot reach http://127.0.0.1:${port}/graphql/: `) &&
        /ECONNREFUSED/.test(e.message),
    );
  });

  test("the command uploads the file and prints the message and the run", async () => {
    captured.length = 0;
    const run = { id: "QW5hbHlzaXNSdW46eHl6", runUid: "7d1c2a", status: "PENDING" };
    respond = answerJson({
      data: { uploadArtifact: { ok: true, message: "Artifact uploaded.", error: null, run } },
    });
    const file = path.join(dir, "coverage.lcov");
    const report = reportOf(200_000);
    fs.writeFileSync(file, report);
    const printed: string[] = [];
    const context: CommandContext = {
      config: parseConfig({}),
      flags: flagsOf({
        file,
        analyzer: "test-coverage",
        key: "javascript",
        repository: "UmVwb3NpdG9yeTpnaXZlbg==",
        commit: SHA,
        branch: "main",
        "work-dir": dir,
        url,
        token: "assay_pat_t",
        "no-progress": true,
      }),
      database: () => assert.fail("upload opens no database"),
      print: (line) => printed.push(line),
      note: (line) => printed.push(`note: ${line}`),
    };
    await uploadCommand.run(context);
    assert.deepEqual(printed, ["Artifact uploaded.", "Run 7d1c2a: PENDING"]);
    const input = (
      JSON.parse(captured[0]!.body.toString("utf8")) as { variables: { input: Record<string, unknown> } }
    ).variables.input;
    assert.ok(gunzipSync(Buffer.from(input.data as string, "base64")).equals(report));
    delete input.data;
    assert.deepEqual(input, {
      repositoryId: "UmVwb3NpdG9yeTpnaXZlbg==",
      commitOid: SHA,
      branch: "main",
      analyzer: "test-coverage",
      analyzerType: null,
      key: "javascript",
      workDir: dir,
      reporter: "assay-cli",
      reporterVersion: VERSION,
      compression: "GZIP",
    });
  });

  test("run as a program it exits 0 on ok, 1 with the server's error on a refusal", async () => {
    const file = path.join(dir, "report.sarif");
    fs.writeFileSync(file, '{"version":"2.1.0","runs":[]}');
    const args = ["--file", file, "--analyzer", "eslint", "--repository", "UmVwb3NpdG9yeTp4", "--url", url];
    const env = { ASSAY_TOKEN: "assay_pat_t", GITHUB_SHA: SHA, GITHUB_REF_NAME: "main" };

    respond = answerJson({
      data: { uploadArtifact: { ok: true, message: "Artifact uploaded.", error: null } },
    });
    const accepted = await runCli(args, env);
    assert.deepEqual(accepted, { status: 0, stdout: "Artifact uploaded.\n", stderr: "" });

    respond = answerJson({
      data: { uploadArtifact: { ok: false, message: null, error: "unknown analyzer eslint2" } },
    });
    const refused = await runCli(args, env);
    assert.deepEqual(refused, { status: 1, stdout: "", stderr: "error: unknown analyzer eslint2\n" });
  });
});

/** Runs `assay upload` in a child process (asynchronously: the test's server must keep answering). */
function runCli(
  args: string[],
  extraEnv: Env,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  // The variables of a CI this suite may itself run in would name another commit or branch.
  for (const name of Object.keys(env)) {
    if (/^(GITHUB_|CI_|GITLAB_)/.test(name) && !(name in extraEnv)) delete env[name];
  }
  for (const name of ["NODE_TEST_CONTEXT", "INIT_CWD"]) delete env[name];
  const child = spawn(process.execPath, assayArgs("upload", ...args), {
    cwd: ROOT,
    env,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}
