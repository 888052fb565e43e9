import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { registerPrompts } from "./prompts.ts";
import { type McpDocuments, registerResources } from "./resources.ts";
import type { ToolBackend } from "./tool-kit.ts";
import type { AssayTool } from "./tool-registry.ts";
import { addIgnoreRule, setMetricThreshold, updateMetricSetting } from "./tools-actions.ts";
import { getComplianceReport, getQualityMetrics, listDependencyVulnerabilities } from "./tools-health.ts";
import { listRepositories, listRepositoryIssues } from "./tools-repositories.ts";
import { getChanges, getRunChecks } from "./tools-runs.ts";

/** Every tool, in the order `tools/list` answers them: reads first, then the actions. */
export const ASSAY_TOOLS: readonly AssayTool[] = [
  listRepositories,
  listRepositoryIssues,
  getChanges,
  getRunChecks,
  getQualityMetrics,
  listDependencyVulnerabilities,
  getComplianceReport,
  setMetricThreshold,
  updateMetricSetting,
  addIgnoreRule,
];

/** The name and version the server gives in its `initialize` answer. */
export const MCP_SERVER_INFO = { name: "assay", version: "0.1.0" } as const;

const INSTRUCTIONS =
  "Assay is a code-health service: analysis runs, issues, metrics, dependency vulnerabilities and compliance reports of the repositories you can see. Start with list_repositories to find a repository's login and name. The tools that change settings (set_metric_threshold, update_metric_setting, add_ignore_rule) need the ADMIN or MEMBER role in the repository's account. For anything the tools do not cover, read the resource assay://schema.graphql and the example operations, and send GraphQL to /graphql/ with the same token.";

/**
 * One validator for every server: each `McpServer` would otherwise build its own Ajv instance,
 * about 20 ms a request on the HTTP transport, for a validator only elicitation answers use.
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

/**
 * An MCP server with Assay's tools and resources, answering through `backend`. One per request
 * on the HTTP transport (stateless), one per process on stdio.
 */
export function createAssayMcpServer(backend: ToolBackend, documents: McpDocuments): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: SHARED_VALIDATOR,
  });
  for (const tool of ASSAY_TOOLS) tool.register(server, backend);
  registerResources(server, documents);
  registerPrompts(server);
  // The SDK advertises `listChanged: true` once a tool, resource or prompt is registered; this
  // server's lists never change while a client talks to it (and it is stateless: it could not
  // send the notification), so it says so.
  server.server.registerCapabilities({
    tools: { listChanged: false },
    resources: { listChanged: false },
    prompts: { listChanged: false },
  });
  return server;
}
