// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import puppeteer, { type Browser, type HTTPRequest } from "puppeteer-core";
import { runLink } from "../src/cli/upload-wait.ts";
import { ingestRunSbom } from "../src/ingestion/sca/sbom-upload.ts";
import { seedDemo } from "../src/modules/demo/demo-seed.ts";
import { dataOf, gql, startTestServer, type TestServer } from "./helpers/server.ts";

/**
 * The in-browser playground: what browsers and API clients get from the GraphQL paths, the
 * bundled assets' headers, and GraphiQL driven in Debian's chromium against the demo data.
 */

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOT = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "test-output",
  "playground.png",
);
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** The asset paths the page links to. */
function assetPathsOf(html: string): string[] {
  return [...html.matchAll(/(?:href|src)="(\/playground\/[^"]+)"/g)].map((match) => match[1] ?? "");
}

describe("playground over HTTP", () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server?.stop();
  });

  test("a browser navigation to either endpoint path gets the page with a strict policy", async () => {
    for (const endpointPath of ["/graphql/", "/graphql", "/api/graphql/", "/api/graphql"]) {
      const res = await fetch(`${server.url}${endpointPath}`, { headers: { accept: BROWSER_ACCEPT } });
      assert.equal(res.status, 200, endpointPath);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
      assert.equal(res.headers.get("cache-control"), "no-cache");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      const csp = res.headers.get("content-security-policy") ?? "";
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /connect-src 'self'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      const html = await res.text();
      assert.match(html, /id="assay-playground"/);
      // No inline script: the only script element without src is a JSON data block.
      assert.doesNotMatch(html, /<script(?![^>]*(src=|type="application\/json"))/);
      assert.doesNotMatch(html, /https?:\/\//, "the page names no other origin");
      assert.equal(assetPathsOf(html).length, 2);
    }
  });

  test("the page offers every documented example operation as a tab", async () => {
    const res = await fetch(`${server.url}/graphql/`, { headers: { accept: BROWSER_ACCEPT } });
    const html = await res.text();
    const block = /<script type="application\/json" id="assay-playground-config">(.*?)<\/script>/s.exec(html);
    assert.ok(block?.[1]);
    const config = JSON.parse(block[1]) as { tabs: Array<{ query: string; variables?: string }> };
    const queries = config.tabs.map((tab) => tab.query);
    assert.match(queries[0] ?? "", /query ViewerAndAccounts/, "the viewer's example opens first");
    assert.ok(queries.some((query) => query.includes("query ViewerAndAccounts")));
    assert.ok(queries.some((query) => query.includes("query MetricsWithThresholds")));
    const withVariables = config.tabs.find((tab) => tab.query.includes("query MetricsWithThresholds"));
    assert.ok(withVariables?.variables);
    assert.doesNotThrow(() => JSON.parse(withVariables.variables ?? ""));
  });

  test("API clients keep the endpoint's answers: 401 without a token, 405 for other methods", async () => {
    for (const accept of ["application/json", "application/graphql-response+json", "*/*", ""]) {
      const res = await fetch(`${server.url}/graphql/`, { headers: accept ? { accept } : {} });
      assert.equal(res.status, 401, `Accept: ${accept}`);
      assert.match(res.headers.get("content-type") ?? "", /json/);
    }
    // A browser that asks for JSON too is an API client.
    const both = await fetch(`${server.url}/graphql/`, {
      headers: { accept: "text/html, application/json" },
    });
    assert.equal(both.status, 401);
    // A GET query from an API client stays a GET query.
    const queryUrl = `${server.url}/graphql/?query=${encodeURIComponent("{ viewer { email } }")}`;
    for (const accept of ["application/json", "application/graphql-response+json", "*/*"]) {
      const query = await fetch(queryUrl, { headers: { accept } });
      assert.equal(query.status, 401, `Accept: ${accept}`);
      assert.match(query.headers.get("content-type") ?? "", /json/);
    }
    const put = await fetch(`${server.url}/graphql/`, { method: "PUT", headers: { accept: BROWSER_ACCEPT } });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get("allow"), "GET, POST");
  });

  test("a browser following a link with a query gets the page, which opens the operation", async () => {
    const link = runLink(server.url, "00000000-0000-4000-8000-000000000000");
    const res = await fetch(link, { headers: { accept: BROWSER_ACCEPT } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(await res.text(), /id="assay-playground"/);
  });

  test("assets are served immutable with their type, and an unknown asset is a 404", async () => {
    const page = await fetch(`${server.url}/api/graphql/`, { headers: { accept: BROWSER_ACCEPT } });
    const assets = assetPathsOf(await page.text());
    for (const asset of assets) {
      assert.match(asset, /-[A-Z0-9]{8,}\.(js|css)$/, "the name carries a content hash");
      const res = await fetch(`${server.url}${asset}`);
      assert.equal(res.status, 200, asset);
      assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.match(
        res.headers.get("content-type") ?? "",
        asset.endsWith(".js") ? /^text\/javascript/ : /^text\/css/,
      );
      assert.ok((await res.arrayBuffer()).byteLength > 1000);
      const again = await fetch(`${server.url}${asset}`, {
        headers: { "if-none-match": res.headers.get("etag") ?? "" },
      });
      assert.equal(again.status, 304);
    }
    const missing = await fetch(`${server.url}/playground/client-NOTAHASH.js`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get("cache-control"), "no-store");
  });
});

describe("playground in a real browser", () => {
  let server: TestServer;
  let token: string;
  let email: string;
  let browser: Browser | undefined;
  let profile: string;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    server = await startTestServer();
    ({ token } = await seedDemo(server.db, { pepper: server.config.tokenPepper, uploadSbom: ingestRunSbom }));
    const viewer = dataOf(await gql(server.endpoint, token, "{ viewer { email } }")).viewer as {
      email: string;
    };
    email = viewer.email;
    profile = mkdtempSync(path.join(os.tmpdir(), "assay-chromium-"));
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      userDataDir: profile,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  test("entering the demo token and running a viewer query shows the demo user's email", async () => {
    assert.ok(browser);
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const requests: HTTPRequest[] = [];
    const problems: string[] = [];
    page.on("request", (request) => requests.push(request));
    page.on("pageerror", (error) => problems.push(String(error)));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });

    await page.goto(`${server.url}/graphql/`, { waitUntil: "load" });
    await page.waitForSelector("#assay-token");
    const hint = await page.$eval("#assay-token-hint", (element) => element.textContent ?? "");
    assert.match(hint, /No token/);
    assert.equal(
      await page.$eval("#assay-token-hint a", (element) => element.getAttribute("href")),
      "/device",
    );
    // Without a token nothing is sent: the page says what to do rather than showing a 401.
    assert.deepEqual(
      requests.filter((r) => r.method() === "POST").map((r) => r.url()),
      [],
    );

    await page.type("#assay-token", token);
    const schemaLoaded = page.waitForResponse(
      (response) =>
        response.request().method() === "POST" && (response.request().postData() ?? "").includes("__schema"),
    );
    await page.click("#assay-use-token");
    // The hint changes in the same render that mounts GraphiQL again with the token, so any
    // editor found after it belongs to the new instance.
    await page.waitForFunction(
      `document.getElementById("assay-token-hint").textContent.startsWith("Sent as")`,
    );
    assert.equal((await schemaLoaded).status(), 200);
    await page.waitForFunction(
      `document.querySelector(".graphiql-query-editor .CodeMirror")?.CodeMirror !== undefined`,
    );
    await page.evaluate(
      `document.querySelector(".graphiql-query-editor .CodeMirror").CodeMirror.setValue("query PlaygroundViewer { viewer { email } }")`,
    );
    // GraphiQL reads the operation's name from the editor a moment after a change; the tab's
    // title shows it once it is read, and only then does "run" send the new name.
    await page.waitForFunction(
      `(document.querySelector(".graphiql-tab-active")?.textContent ?? "").includes("PlaygroundViewer")`,
    );
    await page.click(".graphiql-execute-button");
    try {
      await page.waitForFunction(
        `(document.querySelector(".graphiql-response")?.textContent ?? "").includes(${JSON.stringify(email)})`,
        { timeout: 20_000 },
      );
    } finally {
      mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT });
    }

    const origin = new URL(server.url).origin;
    const elsewhere = requests
      .map((r) => r.url())
      .filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:"));
    assert.deepEqual(elsewhere, [], "no request leaves the server's origin");
    const operations = requests.filter((r) => r.method() === "POST");
    const introspection = operations.filter((r) => (r.postData() ?? "").includes("__schema"));
    assert.ok(introspection.length > 0, "the schema was fetched");
    for (const request of operations) {
      assert.equal(request.headers().authorization, `Bearer ${token}`, request.postData());
    }
    assert.deepEqual(problems, [], "no script error and no policy violation");

    // The token is remembered by this browser.
    await page.reload({ waitUntil: "load" });
    await page.waitForSelector("#assay-token");
    assert.equal(
      await page.$eval("#assay-token", (element) => (element as unknown as { value: string }).value),
      token,
    );
    await page.close();
  });

  test("the Details link `assay upload --wait` prints opens the run's query in a tab that runs as is", async () => {
    assert.ok(browser);
    const runs = dataOf(
      await gql(
        server.endpoint,
        token,
        "{ viewer { accounts(first: 1) { edges { node { repositories(first: 1) { edges { node { analysisRuns(first: 1) { edges { node { runUid } } } } } } } } } } }",
      ),
    );
    const runUid = JSON.stringify(runs).match(/"runUid":"([0-9a-f-]{36})"/)?.[1];
    assert.ok(runUid, "the demo has a run");
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(String(error)));
    // The token the first test entered is remembered by this browser, and so are its tabs.
    await page.goto(runLink(server.url, runUid), { waitUntil: "load" });
    await page.waitForFunction(
      `(document.querySelector(".graphiql-tab-active")?.textContent ?? "").includes("AssayRun")`,
    );
    const editors = await page.evaluate(
      `[...document.querySelectorAll(".CodeMirror")].map((e) => e.CodeMirror.getValue())`,
    );
    assert.ok(
      (editors as string[]).some((text) => text.startsWith("query AssayRun(")),
      "the query editor holds the link's query",
    );
    assert.ok(
      (editors as string[]).some((text) => text.includes(`"runUid": "${runUid}"`)),
      "the variables editor holds the link's variables, indented",
    );
    await page.click(".graphiql-execute-button");
    await page.waitForFunction(
      `(document.querySelector(".graphiql-response")?.textContent ?? "").includes(${JSON.stringify(`"runUid": "${runUid}"`)})`,
      { timeout: 20_000 },
    );
    const response = await page.$eval(".graphiql-response", (element) => element.textContent ?? "");
    assert.doesNotMatch(response, /"errors"/);
    assert.deepEqual(problems, [], "no script error and no policy violation");
    await page.close();
  });
});
