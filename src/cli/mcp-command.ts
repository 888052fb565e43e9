import { CliError, type Command } from "./command.ts";
import { DEFAULT_URL } from "./upload-options.ts";

/** `mcp`: Assay's MCP tools over stdio, for assistants that start a local process (docs/mcp.md). */
export const mcpCommand: Command = {
  name: "mcp",
  summary:
    "Serve Assay's MCP tools over stdio for a desktop AI assistant, relaying to a running server's /mcp. The server comes from --url or ASSAY_URL, the token from ASSAY_TOKEN (or --token). Runs until stdin closes; stdout carries only the protocol.",
  flags: {
    url: {
      type: "string",
      placeholder: "URL",
      description: `The server (default: ASSAY_URL, else ${DEFAULT_URL}).`,
    },
    token: {
      type: "string",
      placeholder: "TOKEN",
      description: "Personal access token (default: ASSAY_TOKEN; prefer the variable).",
    },
  },
  async run({ flags, note }) {
    // A client command, like `upload`: its settings are the caller's, not a server's configuration.
    const url = flags.optional("url") ?? process.env.ASSAY_URL?.trim() ?? DEFAULT_URL;
    const token = flags.optional("token") ?? process.env.ASSAY_TOKEN?.trim();
    if (!token) throw new CliError("no token: set ASSAY_TOKEN (or --token) to a personal access token");
    try {
      new URL(url);
    } catch {
      throw new CliError(`--url: "${url}" is not a URL`);
    }
    // The MCP SDK loads only for this command.
    const { runStdioBridge } = await import("../mcp/stdio-bridge.ts");
    await runStdioBridge({ url, token, note });
  },
};
