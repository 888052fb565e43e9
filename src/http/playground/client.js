// The playground's browser code, bundled by esbuild (./bundle.ts) with GraphiQL, React and
// their styles into the hashed assets the server serves. Plain JavaScript with createElement:
// the project's TypeScript configuration is for Node, not the DOM.
import { GraphiQL } from "graphiql";
import { createElement as h, useState } from "react";
import { createRoot } from "react-dom/client";
import "graphiql/style.css";
import "./playground.css";

/** Where the token is remembered in this browser. */
const TOKEN_KEY = "assay:playground:token";

/** The page's configuration: the example operations, as a JSON data block the server wrote. */
function readConfig() {
  const element = document.getElementById("assay-playground-config");
  return JSON.parse(element?.textContent ?? "{}");
}

/**
 * The operation a link to this page carries (`?query=…&variables=…`, the GET form of a GraphQL
 * request, as `assay upload --wait` prints it), or null. Its variables are shown indented.
 */
function readLinkedOperation() {
  const parameters = new URLSearchParams(window.location.search);
  const query = parameters.get("query");
  if (!query) return null;
  let variables = parameters.get("variables");
  try {
    if (variables) variables = JSON.stringify(JSON.parse(variables), null, 2);
  } catch {
    // Not JSON: shown as it came, for the user to correct.
  }
  return { query, variables };
}

function readToken() {
  try {
    return window.localStorage.getItem(TOKEN_KEY) ?? "";
  } catch {
    return "";
  }
}

function storeToken(token) {
  try {
    if (token) window.localStorage.setItem(TOKEN_KEY, token);
    else window.localStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage may be off (private windows); the token then lasts as long as the page.
  }
}

/** True when the headers editor already sets Authorization, which then wins over the field. */
function hasAuthorization(headers) {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === "authorization");
}

/**
 * A fetcher sending each operation, the schema's introspection included, to this page's own
 * endpoint with the token; a refusal becomes an error that says what to do.
 */
function createFetcher(endpoint, token) {
  return async (params, options) => {
    const extra = options?.headers ?? {};
    if (!token && !hasAuthorization(extra)) {
      return {
        errors: [
          {
            message:
              "No token yet: paste an Assay personal access token in the field at the top of the page and choose \u201cUse token\u201d. The schema, auto-completion and the docs load with it.",
          },
        ],
      };
    }
    const headers = {
      "content-type": "application/json",
      accept: "application/graphql-response+json, application/json",
      ...(token && !hasAuthorization(extra) ? { authorization: `Bearer ${token}` } : {}),
      ...extra,
    };
    const response = await fetch(endpoint, { method: "POST", headers, body: JSON.stringify(params) });
    const body = await response.json().catch(() => null);
    if (response.status === 401) {
      const reason = body?.errors?.[0]?.message ?? "the token was refused";
      return { errors: [{ message: `This token was refused (401): ${reason} Paste a valid token above.` }] };
    }
    if (body === null)
      return { errors: [{ message: `The server answered ${response.status} without JSON.` }] };
    return body;
  };
}

function TokenBar({ token, onUse }) {
  const [draft, setDraft] = useState(token);
  const submit = (event) => {
    event.preventDefault();
    onUse(draft.trim());
  };
  return h(
    "form",
    { className: "assay-token-bar", onSubmit: submit },
    h("strong", { className: "assay-title" }, "Assay playground"),
    h("label", { htmlFor: "assay-token" }, "API token"),
    h("input", {
      id: "assay-token",
      type: "password",
      autoComplete: "off",
      spellCheck: false,
      placeholder: "Paste a personal access token",
      value: draft,
      onChange: (event) => setDraft(event.target.value),
    }),
    h("button", { type: "submit", id: "assay-use-token" }, "Use token"),
    h(
      "span",
      { className: token ? "assay-hint" : "assay-hint assay-hint-missing", id: "assay-token-hint" },
      token
        ? "Sent as Authorization: Bearer with every request; remembered in this browser."
        : "No token: the schema, auto-completion and docs need one. Create one with `assay token create` (a fresh install's demo token is in data/demo-token); device logins are approved at ",
      token ? null : h("a", { href: "/device" }, "/device"),
    ),
  );
}

function Playground({ config, linked }) {
  const [token, setToken] = useState(readToken);
  const use = (next) => {
    storeToken(next);
    setToken(next);
  };
  return h(
    "div",
    { className: "assay-playground" },
    h(TokenBar, { token, onUse: use }),
    h(
      "div",
      { className: "assay-graphiql" },
      // Keyed by the token: a new token fetches the schema again with it.
      h(GraphiQL, {
        key: token,
        fetcher: createFetcher(window.location.pathname, token),
        // A linked operation opens in a tab of its own, the active one: first among the examples on
        // a first visit, and added to (or found among) the tabs this browser kept on a later one.
        defaultTabs: linked ? [linked, ...(config.tabs ?? [])] : (config.tabs ?? []),
        ...(linked ? { query: linked.query, variables: linked.variables ?? "" } : {}),
        isHeadersEditorEnabled: true,
      }),
    ),
  );
}

const root = document.getElementById("assay-playground");
if (root) createRoot(root).render(h(Playground, { config: readConfig(), linked: readLinkedOperation() }));
