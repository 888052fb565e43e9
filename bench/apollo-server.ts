/**
 * The comparison the performance targets are set against (issue 14): Apollo Server 5 serving
 * Assay's own schema, with Assay's own context built the same way per request — the same
 * credential check (`CredentialAuthenticator`, so the same token lookup and identity cache), the
 * same `GraphQLContext` with fresh per-request loaders, on the same database pool. What differs is
 * only the server around the schema: Apollo's request pipeline (its parsed-document cache,
 * validation, execution with graphql-js, its default plugins) instead of Assay's endpoint
 * (graphql-http, the document cache, the variable and page-size checks, rate limiting and logging).
 *
 * The HTTP side is the leanest integration Apollo documents: `executeHTTPGraphQLRequest` behind
 * `node:http`, the body read whole and parsed with `JSON.parse` — what `startStandaloneServer`
 * does, minus its CORS and body-parser middleware. A request whose credential is refused gets a
 * 401 with UNAUTHENTICATED (the benchmark never sends one; its pre-flight check would fail).
 *
 * Started by bench/run.ts like bench/server.ts, speaking bench/child-protocol.ts: the environment
 * gives the database and the keys. No migration: the benchmark's database is already migrated and
 * seeded.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ApolloServer, HeaderMap } from "@apollo/server";
import { GraphQLError } from "graphql";
import { parseConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/database.ts";
import { type GraphQLContext, RequestLoaders } from "../src/graphql/context.ts";
import { unauthenticated } from "../src/graphql/errors.ts";
import { parseBearer } from "../src/http/bearer.ts";
import { createLogger } from "../src/logger.ts";
import { CredentialAuthenticator } from "../src/modules/auth/credential-service.ts";
import { buildAssaySchema } from "../src/schema.ts";
import { runBenchChild } from "./child-protocol.ts";

runBenchChild(async () => {
  const config = parseConfig();
  const logger = createLogger(config.logLevel);
  // The API's pool as startApp opens it (named statements on PostgreSQL included).
  const database = await openDatabase(config, { preparedStatements: true });
  const { db } = database;
  const authenticator = new CredentialAuthenticator(db, {
    tokenPepper: config.tokenPepper,
    sessionSecret: config.sessionSecret,
    identityCacheMs: config.identityCacheMs,
  });
  const apollo = new ApolloServer<GraphQLContext>({ schema: buildAssaySchema() });
  await apollo.start();

  let requests = 0;
  const contextOf = async (req: http.IncomingMessage): Promise<GraphQLContext> => {
    const viewer = await authenticator.authenticate(parseBearer(req.headers.authorization));
    if (typeof viewer === "string") {
      // Apollo answers an error of the context function with the status it names.
      const refusal = unauthenticated();
      throw new GraphQLError(refusal.message, {
        extensions: { ...refusal.extensions, http: { status: 401 } },
      });
    }
    requests += 1;
    return {
      requestId: String(requests),
      viewer,
      db,
      config,
      logger,
      loaders: new RequestLoaders(db),
    };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void answer(req, res, Buffer.concat(chunks).toString("utf8"));
    });
  });

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, text: string): Promise<void> {
    try {
      const headers = new HeaderMap();
      for (const [key, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
      }
      const url = new URL(req.url ?? "/", "http://localhost");
      const response = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: {
          method: (req.method ?? "GET").toUpperCase(),
          headers,
          search: url.search,
          body: req.method === "POST" && text !== "" ? JSON.parse(text) : undefined,
        },
        context: () => contextOf(req),
      });
      for (const [key, value] of response.headers) res.setHeader(key, value);
      res.statusCode = response.status ?? 200;
      if (response.body.kind === "complete") {
        res.end(response.body.string);
        return;
      }
      for await (const chunk of response.body.asyncIterator) res.write(chunk);
      res.end();
    } catch (error) {
      // Only a body that is not JSON gets here: Apollo answers everything else itself.
      const status = error instanceof SyntaxError ? 400 : 500;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ errors: [{ message: status === 400 ? "body is not JSON" : "request failed" }] }),
      );
    }
  }

  const url = await new Promise<string>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}/graphql/`);
    });
  });
  return {
    url,
    async stop() {
      server.close();
      server.closeAllConnections();
      await apollo.stop();
      await database.close();
    },
  };
});
