// test-runner: execution-mode independent (the stdio bridge's transport; the tools' answers are test/mcp.test.ts's, under both engines)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ASSAY_TOOLS } from "../src/mcp/mcp-server.ts";
import { anAccount, aRepository, aToken, aUser } from "./helpers/builders.ts";
import { startTestServer, type TestServer } from "./helpers/server.ts";
import { assayArgs } from "./helpers/start-command.ts";

/**
 * `assay mcp` spawned as a child process and driven with the SDK's stdio client: the server's
 * tools over stdio, as the caller's token sees them, and the API's 401 as a JSON-RPC error.
 */

const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * Runs `assay mcp` against `url` with `input` piped into its stdin, which then ends; answers the
 * JSON lines it wrote before exiting, and its exit code.
 */
async function pipeInto(
  url: string,
  token: string,
  input: string,
): Promise<{ answers: Array<Record<string, unknown>>; code: number | null }> {
  const child = spawn(process.execPath, assayArgs("mcp"), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ASSAY_URL: url, ASSAY_TOKEN: token },
    stdio: ["pipe", "pipe", "ignore"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  child.stdin.end(input);
  const code = await exited;
  const answers = out
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { answers, code };
}

/** JSON-RPC request lines, one per message. */
function lines(...messages: unknown[]): string {
  return `${messages.map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join("\n")}\n`;
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipe", version: "1" } },
};

/** A client of a freshly spawned `assay mcp` relaying to `url` with `token`. */
function stdioClient(url: string, token: string): { client: Client; transport: StdioClientTransport } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: assayArgs("mcp"),
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ASSAY_URL: url, ASSAY_TOKEN: token },
    stderr: "pipe",
  });
  return { client: new Client({ name: "assay-stdio-test", version: "1.0.0" }), transport };
}

describe("assay mcp (stdio)", () => {
  let server: TestServer;
  let token: string;
  let login: string;
  let repositoryName: string;

  before(async () => {
    server = await startTestServer();
    const user = await aUser(server.db);
    const account = await anAccount(server.db, {}, [{ user, role: "ADMIN", isOwner: true }]);
    const repository = await aRepository(server.db, account);
    login = account.login;
    repositoryName = repository.name;
    token = await aToken(server.db, server.config.tokenPepper, user);
  });

  after(async () => {
    await server?.stop();
  });

  test("offers the server's tools and answers them as the token's user", async () => {
    const { client, transport } = stdioClient(server.url, token);
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ASSAY_TOOLS.map((tool) => tool.name),
      );
      const listed = (await client.callTool({ name: "list_repositories", arguments: {} })) as CallToolResult;
      assert.notEqual(listed.isError, true, JSON.stringify(listed.content));
      assert.deepEqual(listed.structuredContent, {
        repositories: [
          {
            login,
            vcsProvider: "GITHUB",
            name: repositoryName,
            defaultBranch: "main",
            isActivated: true,
            openIssues: 0,
            vulnerabilities: 0,
            failingMetrics: 0,
            latestRun: null,
          },
        ],
        truncated: false,
      });
      const threshold = (await client.callTool({
        name: "set_metric_threshold",
        arguments: { login, name: repositoryName, metric: "LCV", threshold: 70 },
      })) as CallToolResult;
      assert.notEqual(threshold.isError, true, JSON.stringify(threshold.content));
      const metrics = (await client.callTool({
        name: "get_quality_metrics",
        arguments: { login, name: repositoryName, metrics: ["LCV"] },
      })) as CallToolResult;
      const lcv = (
        metrics.structuredContent as { metrics: Array<{ items: Array<{ key: string; threshold: number }> }> }
      ).metrics[0];
      assert.equal(lcv?.items.find((item) => item.key === "AGGREGATE")?.threshold, 70);
      const sdl = await client.readResource({ uri: "assay://schema.graphql" });
      assert.ok(sdl.contents[0] && "text" in sdl.contents[0] && sdl.contents[0].text.includes("type Query"));
    } finally {
      await client.close();
    }
  });

  test("when stdin ends, the requests in flight are answered before it exits", async () => {
    const { answers, code } = await pipeInto(
      server.url,
      token,
      lines(
        INITIALIZE,
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_repositories", arguments: {} } },
      ),
    );
    assert.equal(code, 0);
    const byId = new Map(answers.map((a) => [a.id, a]));
    assert.deepEqual([...byId.keys()].sort(), [1, 2, 3]);
    for (const answer of answers) assert.equal(answer.error, undefined, JSON.stringify(answer));
    const listed = byId.get(3)?.result as { structuredContent: { repositories: Array<{ name: string }> } };
    assert.deepEqual(
      listed.structuredContent.repositories.map((r) => r.name),
      [repositoryName],
    );
  });

  test("a line that is not JSON gets -32700 and a batch -32600, both with id null", async () => {
    const { answers, code } = await pipeInto(
      server.url,
      token,
      lines("this is not json", [{ jsonrpc: "2.0", id: 7, method: "tools/list" }], {
        id: 8,
        method: "tools/list",
      }),
    );
    assert.equal(code, 0);
    assert.deepEqual(
      answers.map((a) => [(a.error as { code: number }).code, a.id]),
      [
        [-32700, null],
        [-32600, null],
        [-32600, 8],
      ],
    );
  });

  test("a path prefix in ASSAY_URL is kept: it relays to <url>/mcp", async () => {
    // A reverse proxy serving Assay under /assay-prefix and nothing else.
    const target = new URL(server.url);
    const proxy = createServer((req, res) => {
      if (!req.url?.startsWith("/assay-prefix/")) {
        res.writeHead(404).end();
        return;
      }
      const forwarded = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url.slice("/assay-prefix".length),
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      const { answers } = await pipeInto(
        `http://127.0.0.1:${port}/assay-prefix`,
        token,
        lines({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
      );
      const tools = (answers[0]?.result as { tools?: unknown[] } | undefined)?.tools;
      assert.equal(tools?.length, ASSAY_TOOLS.length, JSON.stringify(answers));
    } finally {
      proxy.close();
    }
  });

  test("a refused token is the API's UNAUTHENTICATED, as a JSON-RPC error on stdio", async () => {
    const { client, transport } = stdioClient(server.url, "assay_pat_notarealtoken");
    await assert.rejects(client.connect(transport), /UNAUTHENTICATED/);
    await client.close();
  });
});
