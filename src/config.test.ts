import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { CONFIG_VARIABLES, ConfigError, formatDuration, parseConfig, parseDuration } from "./config.ts";

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

const SESSION_SECRET = "a-session-secret-of-32-characters!";

test("production refuses to start without a token pepper", () => {
  assert.throws(() => parseConfig({ NODE_ENV: "production" }), /ASSAY_TOKEN_PEPPER must be set/);
  const config = parseConfig({
    NODE_ENV: "production",
    ASSAY_TOKEN_PEPPER: "a-real-secret-of-some-length",
    ASSAY_SESSION_SECRET: SESSION_SECRET,
  });
  assert.equal(config.isProduction, true);
  assert.equal(config.tokenPepperIsDefault, false);
});

test("production refuses to start without a session secret, and a short one is refused anywhere", () => {
  const pepper = "a-real-secret-of-some-length";
  assert.throws(
    () => parseConfig({ NODE_ENV: "production", ASSAY_TOKEN_PEPPER: pepper }),
    /ASSAY_SESSION_SECRET must be set/,
  );
  assert.throws(
    () => parseConfig({ ASSAY_SESSION_SECRET: SESSION_SECRET.slice(0, 31) }),
    /ASSAY_SESSION_SECRET must be at least 32 characters/,
  );
  const config = parseConfig({ ASSAY_SESSION_SECRET: SESSION_SECRET });
  assert.equal(config.sessionSecret, SESSION_SECRET);
  assert.equal(config.sessionSecretIsDefault, false);
});

test("outside production the session secret is derived from the pepper, never equal to it", () => {
  const one = parseConfig({ ASSAY_TOKEN_PEPPER: "pepper-number-one-0123" });
  const again = parseConfig({ ASSAY_TOKEN_PEPPER: "pepper-number-one-0123" });
  const two = parseConfig({ ASSAY_TOKEN_PEPPER: "pepper-number-two-0123" });
  assert.equal(one.sessionSecretIsDefault, true);
  assert.equal(one.sessionSecret, again.sessionSecret);
  assert.notEqual(one.sessionSecret, two.sessionSecret);
  assert.ok(one.sessionSecret.length >= 32);
  assert.ok(!one.sessionSecret.includes("pepper-number-one-0123"));
});

test("advisory sync is off by default: no URL, a 6h interval, 1 GiB exports, public addresses only", () => {
  const config = parseConfig({});
  assert.deepEqual(config.advisorySyncUrls, []);
  assert.equal(config.advisorySyncIntervalMs, 6 * 3_600_000);
  assert.equal(config.advisorySyncMaxBytes, 1_073_741_824);
  assert.equal(config.advisorySyncAllowPrivateNetworks, false);
});

test("advisory sync URLs are a comma-separated list; interval and size are read in their units", () => {
  const config = parseConfig({
    ASSAY_ADVISORY_SYNC_URLS:
      " https://osv-vulnerabilities.storage.googleapis.com/npm/all.zip , http://mirror.internal/PyPI/all.zip,",
    ASSAY_ADVISORY_SYNC_INTERVAL: "90m",
    ASSAY_ADVISORY_SYNC_MAX_BYTES: "2048",
    ASSAY_ADVISORY_SYNC_ALLOW_PRIVATE_NETWORKS: "true",
  });
  assert.deepEqual(config.advisorySyncUrls, [
    "https://osv-vulnerabilities.storage.googleapis.com/npm/all.zip",
    "http://mirror.internal/PyPI/all.zip",
  ]);
  assert.equal(config.advisorySyncIntervalMs, 90 * 60_000);
  assert.equal(config.advisorySyncMaxBytes, 2048);
  assert.equal(config.advisorySyncAllowPrivateNetworks, true);
  assert.equal(parseConfig({ ASSAY_ADVISORY_SYNC_INTERVAL: "1d" }).advisorySyncIntervalMs, 86_400_000);
  assert.equal(parseConfig({ ASSAY_ADVISORY_SYNC_INTERVAL: "900s" }).advisorySyncIntervalMs, 900_000);
});

test("bad advisory sync settings are each reported, and a URL is named by position, never echoed", () => {
  assert.throws(
    () =>
      parseConfig({
        ASSAY_ADVISORY_SYNC_URLS: "ftp://example.com/all.zip,https://user:pa55word@example.com/all.zip,nope",
        ASSAY_ADVISORY_SYNC_INTERVAL: "5m",
        ASSAY_ADVISORY_SYNC_MAX_BYTES: "12",
        ASSAY_ADVISORY_SYNC_ALLOW_PRIVATE_NETWORKS: "perhaps",
      }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(error.problems, [
        "ASSAY_ADVISORY_SYNC_URLS: URL 1 must use https:// or http://",
        "ASSAY_ADVISORY_SYNC_URLS: URL 2 must not contain a user name or password",
        "ASSAY_ADVISORY_SYNC_URLS: URL 3 is not a valid URL",
        'ASSAY_ADVISORY_SYNC_INTERVAL must be a duration from 15m to 30d (a number and s, m, h or d, e.g. 6h), got "5m"',
        'ASSAY_ADVISORY_SYNC_MAX_BYTES must be an integer from 1024 to 17179869184, got "12"',
        'ASSAY_ADVISORY_SYNC_ALLOW_PRIVATE_NETWORKS must be true or false, got "perhaps"',
      ]);
      assert.doesNotMatch(error.message, /pa55word/);
      return true;
    },
  );
  for (const interval of ["6 hours", "6", "0h", "31d", "h", "-1h"]) {
    assert.throws(
      () => parseConfig({ ASSAY_ADVISORY_SYNC_INTERVAL: interval }),
      /ASSAY_ADVISORY_SYNC_INTERVAL must be a duration/,
      interval,
    );
  }
});

test("durations read and print in the same units", () => {
  assert.equal(parseDuration("6h"), 21_600_000);
  assert.equal(parseDuration("15M"), 900_000);
  assert.equal(parseDuration("6 hours"), undefined);
  assert.equal(formatDuration(21_600_000), "6h");
  assert.equal(formatDuration(90 * 60_000), "90m");
  assert.equal(formatDuration(86_400_000 * 2), "2d");
  assert.equal(formatDuration(1500), "2s");
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

test("ASSAY_METRICS serves /metrics on the main port by default, off, or on a port of its own bound to loopback", () => {
  assert.deepEqual(parseConfig({}).metrics, { mode: "main" });
  assert.deepEqual(parseConfig({ ASSAY_METRICS: "off" }).metrics, { mode: "off" });
  assert.deepEqual(parseConfig({ ASSAY_METRICS: "ON" }).metrics, { mode: "main" });
  assert.deepEqual(parseConfig({ ASSAY_METRICS: "9464" }).metrics, {
    mode: "port",
    port: 9464,
    host: "127.0.0.1",
  });
  assert.deepEqual(parseConfig({ ASSAY_METRICS: "9464", ASSAY_METRICS_HOST: "0.0.0.0" }).metrics, {
    mode: "port",
    port: 9464,
    host: "0.0.0.0",
  });
});

test("ASSAY_METRICS refuses other words, port 0, the server's own port, and a host without a port", () => {
  const problems = (env: Record<string, string>) => {
    try {
      parseConfig(env);
      return [];
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems;
    }
  };
  assert.match(problems({ ASSAY_METRICS: "maybe" }).join(), /ASSAY_METRICS must be on, off or a port number/);
  assert.match(problems({ ASSAY_METRICS: "0" }).join(), /from 1 to 65535, got "0"/);
  assert.match(problems({ ASSAY_METRICS: "4000" }).join(), /is the server's own PORT \(4000\)/);
  assert.match(
    problems({ ASSAY_METRICS_HOST: "0.0.0.0" }).join(),
    /ASSAY_METRICS_HOST needs ASSAY_METRICS set to a port/,
  );
});
