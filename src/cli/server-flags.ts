import { CliError, type FlagSpec, type Flags } from "./command.ts";

/**
 * The server and token of the client commands (`upload`, `mcp`): from `--url` and `--token`, else
 * ASSAY_URL and ASSAY_TOKEN. They are the caller's settings, not a server's configuration.
 */

/** The server used when neither `--url` nor ASSAY_URL names one. */
export const DEFAULT_URL = "http://localhost:4000";

/** The two flags, as each client command declares them. */
export const SERVER_FLAGS: Record<"url" | "token", FlagSpec> = {
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
};

/**
 * The server's base URL (http or https, without trailing slashes) and the token; `tokenUse` says
 * what the token must be allowed to do, for the error when none is given.
 */
export function serverOf(
  flags: Flags,
  env: Readonly<Record<string, string | undefined>>,
  tokenUse: string,
): { url: string; token: string } {
  const token = flags.optional("token") ?? env.ASSAY_TOKEN?.trim();
  if (!token) throw new CliError(`no token: set ASSAY_TOKEN (or --token) to ${tokenUse}`);
  const url = (flags.optional("url") ?? env.ASSAY_URL?.trim() ?? DEFAULT_URL).replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/.test(url)) throw new CliError(`--url must be an http or https URL, got "${url}"`);
  return { url, token };
}
