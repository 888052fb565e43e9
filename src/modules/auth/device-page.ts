import { formatUserCode, normaliseUserCode } from "./device-codes.ts";
import { DEVICE_CODE_SECONDS } from "./device-service.ts";

/**
 * The page `verificationUri` points at (`GET /device`, `/device?user_code=BCDF-GHJK`). Assay has no
 * passwords and so no sign-in form: the page explains how to approve the code with a request
 * that carries your own token, with the code filled in when the link has one.
 */

const PLACEHOLDER = "XXXX-XXXX";

/** HTML-escapes `text` for element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/**
 * The page for `userCodeParam` (the `user_code` query parameter, as sent). A well-formed code is
 * shown normalised (`BCDF-GHJK`) and filled into the instructions; anything else is never echoed,
 * and the instructions show a placeholder.
 */
export function renderDevicePage(userCodeParam: string | null): string {
  const normalised = normaliseUserCode(userCodeParam);
  const code = normalised === null ? null : formatUserCode(normalised);
  const shown = code ?? PLACEHOLDER;
  const mutation = `mutation { approveDevice(input: {userCode: "${shown}"}) { ok } }`;
  const deny = `mutation { denyDevice(input: {userCode: "${shown}"}) { ok } }`;
  const curl = [
    `curl -X POST "$ASSAY_URL/graphql/" \\`,
    `  -H "Authorization: Bearer $ASSAY_TOKEN" -H "Content-Type: application/json" \\`,
    `  -d '${JSON.stringify({ query: mutation })}'`,
  ].join("\n");
  const minutes = Math.round(DEVICE_CODE_SECONDS / 60);
  const intro =
    code !== null
      ? `<p>A program (the command-line client or an editor plugin) asked to sign in to Assay as you and showed this code:</p>
<p class="code">${escapeHtml(code)}</p>`
      : userCodeParam !== null
        ? `<p>That link's code is not a valid device code. Codes look like <code>BCDF-GHJK</code>: eight letters, no vowels, no digits. Copy it again from the program that showed it.</p>`
        : `<p>A program (the command-line client or an editor plugin) that asks to sign in to Assay shows a code like <code>BCDF-GHJK</code>. Approve it below, with your code in place of <code>${PLACEHOLDER}</code>.</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Approve a device login · Assay</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1d2422; }
h1 { font-size: 1.5rem; }
.code { font: 600 2rem ui-monospace, monospace; letter-spacing: 0.15em; }
pre { background: #f1f4f3; padding: 0.75rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
.warning { border-left: 4px solid #b3541e; padding-left: 0.75rem; }
</style>
</head>
<body>
<h1>Approve a device login</h1>
${intro}
<p class="warning">Approve only a code you started yourself, just now. Approving gives that program a personal access token with all your access, valid for 90 days. If you did not start it, deny it.</p>
<h2>Approve</h2>
<p>Assay has no passwords: you approve with a request that carries one of your personal access tokens. Send this mutation to this server's GraphQL endpoint (<code>/graphql/</code>):</p>
<pre>${escapeHtml(mutation)}</pre>
<p>With curl, where <code>ASSAY_URL</code> is this server's address and <code>ASSAY_TOKEN</code> one of your tokens:</p>
<pre>${escapeHtml(curl)}</pre>
<p>Or in the browser: open the <a href="/graphql/">playground</a>, paste your token in its token field, and run the mutation there.</p>
<p>The program receives its token the next time it checks, within a few seconds.</p>
<h2>Deny</h2>
<pre>${escapeHtml(deny)}</pre>
<p>Codes expire ${minutes} minutes after the program asked; after that, start again from the program.</p>
</body>
</html>
`;
}
