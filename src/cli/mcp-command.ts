import type { Command } from "./command.ts";
import { SERVER_FLAGS, serverOf } from "./server-flags.ts";

/** `mcp`: Assay's MCP tools over stdio, for assistants that start a local process (docs/mcp.md). */
export const mcpCommand: Command = {
  name: "mcp",
  summary:
    "Serve Assay's MCP tools over stdio for a desktop AI assistant, relaying to a running server's /mcp. The server comes from --url or ASSAY_URL, the token from ASSAY_TOKEN (or --token). Runs until stdin closes; stdout carries only the protocol.",
  flags: SERVER_FLAGS,
  async run({ flags, note }) {
    const { url, token } = serverOf(flags, process.env, "a personal access token");
    // The MCP SDK loads only for this command.
    const { runStdioBridge } = await import("../mcp/stdio-bridge.ts");
    await runStdioBridge({ url, token, note });
  },
};
