import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/**
 * Prompts for the questions people ask most, each a short instruction naming the tools to use;
 * the tools do the work, so a prompt holds no data.
 */

const repositoryArgs = {
  login: z.string().min(1).describe("The account that owns the repository, e.g. `acme-labs`."),
  name: z.string().min(1).describe("The repository's name."),
};

/** Offers the prompts on `server`. */
export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    "review_pull_request",
    {
      title: "What did my pull request introduce?",
      description: "Summarise what a pull request introduced and resolved, worst findings first.",
      argsSchema: {
        ...repositoryArgs,
        number: z.string().regex(/^\d+$/).describe("The pull request's number."),
      },
    },
    ({ login, name, number }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: `Use the Assay tool get_changes with login "${login}", name "${name}" and pullRequest ${number}. Summarise what the pull request introduced and resolved. List only the findings it introduced (those with isIntroduced true) by severity (CRITICAL first) with file and line; the findings with isIntroduced false were already there before the pull request, so do not present them as its own (mention at most how many there are). Mention any dependency vulnerabilities it introduced.`,
          },
        },
      ],
    }),
  );
  server.registerPrompt(
    "security_overview",
    {
      title: "Security overview of a repository",
      description: "Fixable vulnerable dependencies and the OWASP Top 10 status of a repository.",
      argsSchema: repositoryArgs,
    },
    ({ login, name }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: `For the repository ${login}/${name}: use the Assay tool list_dependency_vulnerabilities and list the CRITICAL and HIGH vulnerabilities that have a fix, with the smallest upgrade per package; then use get_compliance_report with report OWASP_TOP_10 and summarise the open categories.`,
          },
        },
      ],
    }),
  );
}
