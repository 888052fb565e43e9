// test-runner: execution-mode independent (the stdio bridge's transport; the tools' answers are test/mcp.test.ts's, under both engines)
import assert from "node:assert/strict";
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

  test("a refused token is the API's UNAUTHENTICATED, as a JSON-RPC error on stdio", async () => {
    const { client, transport } = stdioClient(server.url, "assay_pat_notarealtoken");
    await assert.rejects(client.connect(transport), /UNAUTHENTICATED/);
    await client.close();
  });
});
