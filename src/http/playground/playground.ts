import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { errorDocument, notFound } from "../../graphql/errors.ts";
import { sendJson } from "../json.ts";

/**
 * The in-browser playground: GraphiQL, bundled by esbuild from its npm package on the first
 * browser visit and kept in memory, so an offline installation serves it with nothing fetched from
 * anywhere. Browsers navigating to the GraphQL endpoint get the page; API clients keep getting the
 * endpoint's answers.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ENTRY = path.join(HERE, "client.js");

/** Where the playground's assets are served; their names carry a hash of their content. */
export const PLAYGROUND_ASSET_PREFIX = "/playground/";

/**
 * The page's policy: scripts, styles and requests from this origin only, fonts from the bundled
 * stylesheet (data URLs), never framed.
 */
export const PLAYGROUND_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const IMMUTABLE = "public, max-age=31536000, immutable";

/** An example operation offered as a tab: GraphiQL's `TabDefinition`. */
export interface PlaygroundTab {
  query: string;
  variables?: string;
}

interface Asset {
  contentType: string;
  body: Uint8Array;
  etag: string;
}

interface Bundle {
  /** By path under {@link PLAYGROUND_ASSET_PREFIX}. */
  assets: Map<string, Asset>;
  script: string;
  stylesheet: string;
}

/** The playground's two routes: the page (on the GraphQL paths) and its assets. */
export interface Playground {
  /** Sends the page for a browser navigation. */
  page(res: ServerResponse): Promise<void>;
  /** Sends the asset at `path` (under {@link PLAYGROUND_ASSET_PREFIX}), or a 404. */
  asset(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
}

/**
 * True for a browser navigation to the endpoint: a GET whose Accept lists `text/html` and no JSON
 * type. Every other request is left to the GraphQL endpoint. A navigation with a `query`
 * parameter (the link `assay upload --wait` prints) gets the page too, which opens that operation
 * in a tab: a browser sends no Authorization header, so the endpoint could only have answered 401.
 */
export function isPlaygroundRequest(req: IncomingMessage): boolean {
  if (req.method !== "GET") return false;
  const types = (req.headers.accept ?? "")
    .toLowerCase()
    .split(",")
    .map((part) => part.split(";")[0]?.trim() ?? "");
  if (!types.includes("text/html")) return false;
  return !types.some((type) => type === "application/json" || type === "application/graphql-response+json");
}

/** The example opened first: it needs no variables and shows who the token belongs to. */
const FIRST_EXAMPLE = "viewer-and-accounts";

/**
 * The operations in `dir` (`name.graphql`, with `name.variables.json` when there is one) as tabs:
 * {@link FIRST_EXAMPLE} first, the others by name.
 */
export async function readExampleTabs(dir: string): Promise<PlaygroundTab[]> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const names = files
    .filter((file) => file.endsWith(".graphql"))
    .map((file) => file.slice(0, -".graphql".length))
    .sort((a, b) => Number(b === FIRST_EXAMPLE) - Number(a === FIRST_EXAMPLE) || a.localeCompare(b));
  return Promise.all(
    names.map(async (name) => {
      const query = await readFile(path.join(dir, `${name}.graphql`), "utf8");
      const variables = await readFile(path.join(dir, `${name}.variables.json`), "utf8").catch(
        () => undefined,
      );
      return variables === undefined ? { query } : { query, variables };
    }),
  );
}

/** The content type of a bundled file, by extension. */
function contentTypeOf(file: string): string {
  if (file.endsWith(".js")) return "text/javascript; charset=utf-8";
  if (file.endsWith(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

/** Bundles the client with GraphiQL and React into hashed, minified assets held in memory. */
async function buildBundle(): Promise<Bundle> {
  // Loaded here, not at the top: most servers never see a browser.
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    absWorkingDir: HERE,
    outdir: "out",
    entryNames: "[name]-[hash]",
    bundle: true,
    write: false,
    minify: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    define: { "process.env.NODE_ENV": '"production"' },
    legalComments: "eof",
    logLevel: "silent",
  });
  const assets = new Map<string, Asset>();
  let script = "";
  let stylesheet = "";
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    const etag = `"${createHash("sha256").update(file.contents).digest("base64url").slice(0, 22)}"`;
    assets.set(name, { contentType: contentTypeOf(name), body: file.contents, etag });
    if (name.endsWith(".js")) script = name;
    if (name.endsWith(".css")) stylesheet = name;
  }
  return { assets, script, stylesheet };
}

/** A JSON data block: `<` escaped, so the text cannot close the element. */
function jsonBlock(value: unknown): string {
  return JSON.stringify(value).replaceAll("<", "\\u003c");
}

function renderPage(bundle: Bundle, tabs: PlaygroundTab[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Playground · Assay</title>
<link rel="icon" href="/static/logo.svg">
<link rel="stylesheet" href="${PLAYGROUND_ASSET_PREFIX}${bundle.stylesheet}">
<script type="application/json" id="assay-playground-config">${jsonBlock({ tabs })}</script>
<script defer src="${PLAYGROUND_ASSET_PREFIX}${bundle.script}"></script>
</head>
<body>
<div id="assay-playground"><noscript>The Assay playground needs JavaScript. The GraphQL endpoint is this address: send it POST requests with an Authorization: Bearer token.</noscript></div>
</body>
</html>
`;
}

/**
 * The playground, offering the operations in `examplesDir` as tabs. The bundle is built once, on
 * the first request that needs it; a failed build is retried on the next.
 */
export function createPlayground(examplesDir: string): Playground {
  let built: Promise<{ bundle: Bundle; html: string }> | undefined;
  const load = () => {
    built ??= (async () => {
      const [bundle, tabs] = await Promise.all([buildBundle(), readExampleTabs(examplesDir)]);
      return { bundle, html: renderPage(bundle, tabs) };
    })();
    built.catch(() => {
      built = undefined;
    });
    return built;
  };
  return {
    async page(res) {
      const { html } = await load();
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-length": Buffer.byteLength(html),
        "cache-control": "no-cache",
        "content-security-policy": PLAYGROUND_CSP,
        "referrer-policy": "no-referrer",
        "x-content-type-options": "nosniff",
        "x-frame-options": "DENY",
        vary: "Accept",
      });
      res.end(html);
    },
    async asset(req, res, assetPath) {
      const name = assetPath.slice(PLAYGROUND_ASSET_PREFIX.length);
      const asset = (await load()).bundle.assets.get(name);
      if (!asset || (req.method !== "GET" && req.method !== "HEAD")) {
        sendJson(res, 404, errorDocument(notFound(`No playground asset ${assetPath}.`)), {
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
        });
        return;
      }
      const headers = {
        "cache-control": IMMUTABLE,
        etag: asset.etag,
        "x-content-type-options": "nosniff",
      };
      if (req.headers["if-none-match"] === asset.etag) {
        res.writeHead(304, headers);
        res.end();
        return;
      }
      res.writeHead(200, {
        ...headers,
        "content-type": asset.contentType,
        "content-length": asset.body.byteLength,
      });
      res.end(req.method === "HEAD" ? undefined : asset.body);
    },
  };
}

/** `endpoint`, answering a browser's navigation ({@link isPlaygroundRequest}) with the page. */
export function withPlayground<R>(
  endpoint: (req: IncomingMessage, res: ServerResponse, record: R) => Promise<void>,
  playground: Playground,
): (req: IncomingMessage, res: ServerResponse, record: R) => Promise<void> {
  return async (req, res, record) => {
    if (isPlaygroundRequest(req)) return playground.page(res);
    return endpoint(req, res, record);
  };
}
