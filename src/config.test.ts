import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { CONFIG_VARIABLES, ConfigError, parseConfig } from "./config.ts";

test("defaults follow the documented values when nothing is set", () => {
  const config = parseConfig({});
  assert.equal(config.port, 4000);
  assert.equal(config.databaseUrl, undefined);
  assert.equal(config.redisUrl, undefined);
  assert.equal(config.rateLimitPerHour, 5000);
  assert.equal(config.logLevel, "info");
  assert.equal(config.graphqlJit, false);
  assert.ok(config.dataDir.endsWith("/data"));
  assert.equal(config.tokenPepperIsDefault, true);
});

test("every problem is reported at once, not just the first", () => {
  assert.throws(
    () =>
      parseConfig({
        PORT: "eighty",
        DATABASE_URL: "mysql://x",
        REDIS_URL: "::not a url::",
        RATE_LIMIT_PER_HOUR: "-1",
        LOG_LEVEL: "loud",
        ASSAY_TOKEN_PEPPER: "short",
        ASSAY_GRAPHQL_JIT: "maybe",
      }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      const text = error.problems.join("\n");
      for (const name of [
        "PORT",
        "DATABASE_URL",
        "REDIS_URL",
        "RATE_LIMIT_PER_HOUR",
        "LOG_LEVEL",
        "ASSAY_TOKEN_PEPPER",
        "ASSAY_GRAPHQL_JIT",
      ]) {
        assert.match(text, new RegExp(name), `${name} should be reported`);
      }
      assert.equal(error.problems.length, 7);
      return true;
    },
  );
});

test("a rate limit of 0 turns limiting off and 10000 is accepted", () => {
  assert.equal(parseConfig({ RATE_LIMIT_PER_HOUR: "0" }).rateLimitPerHour, 0);
  assert.equal(parseConfig({ RATE_LIMIT_PER_HOUR: "10000" }).rateLimitPerHour, 10000);
});

test("production refuses to start without a token pepper", () => {
  assert.throws(() => parseConfig({ NODE_ENV: "production" }), /ASSAY_TOKEN_PEPPER must be set/);
  const config = parseConfig({ NODE_ENV: "production", ASSAY_TOKEN_PEPPER: "a-real-secret-of-some-length" });
  assert.equal(config.isProduction, true);
  assert.equal(config.tokenPepperIsDefault, false);
});

test("README documents every configuration variable", () => {
  const readme = fs.readFileSync(new URL("../README.md", import.meta.url), "utf8");
  for (const variable of CONFIG_VARIABLES) {
    assert.ok(readme.includes(`| \`${variable.name}\` |`), `README is missing ${variable.name}`);
  }
});

test("README opens with the two commands that matter on a fresh machine", () => {
  const readme = fs.readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const firstBlock = readme.slice(0, 300);
  assert.match(firstBlock, /npm ci && npm start/);
  assert.match(firstBlock, /npm ci && npm test/);
});
