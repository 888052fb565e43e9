// test-runner: execution-mode independent (the CLI runs no GraphQL execution)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type RunningApp, startApp } from "../src/app.ts";
import { effectiveValues } from "../src/cli/setup-commands.ts";
import { CONFIG_VARIABLES, parseConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/database.ts";
import { TokenAuthenticator } from "../src/modules/auth/token-service.ts";
import { DEMO_USER_EMAIL } from "../src/modules/demo/demo-seed.ts";
import { findUsersByIds } from "../src/modules/users/user-store.ts";
import { anAccount, aToken, aUser } from "./helpers/builders.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { rawRequest } from "./helpers/raw-request.ts";
import { gql, recordedLevel } from "./helpers/server.ts";
import { assayArgs } from "./helpers/start-command.ts";
import { githubHeaders, githubPingPayload } from "./helpers/vcs-payloads.ts";

/**
 * The admin CLI run as operators run it: a child process per command, over a database of the
 * file's own. Each spawn costs a second or two, so a test checks several things per command.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const PEPPER = "cli-test-pepper-0123456789abcdef";
const TOKEN_LINE = /^assay_pat_[0-9A-Za-z]{38}\n$/;
const STACK_FRAME = /^\s+at /m;

interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The environment the CLI sees for `database`: embedded when it has no URL. */
function cliEnv(database: TestDatabase): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ASSAY_DATA_DIR: database.dataDir,
    ASSAY_TOKEN_PEPPER: PEPPER,
    LOG_LEVEL: "silent",
  };
  delete env.NODE_TEST_CONTEXT;
  if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
  else delete env.DATABASE_URL;
  return env;
}

function runCli(database: TestDatabase, args: string[]): CliResult {
  const result = spawnSync(process.execPath, assayArgs(...args), {
    cwd: ROOT,
    env: cliEnv(database),
    encoding: "utf8",
    timeout: 300_000,
  });
  // What `npm run assay` runs is the compiled CLI; falling back to tsx would say so here.
  assert.doesNotMatch(result.stderr ?? "", /running the TypeScript under tsx/);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Asserts a failure: the exit code, one line on stderr matching `message`, nothing on stdout, no stack. */
function assertFails(result: CliResult, code: number, message: RegExp): void {
  assert.equal(result.status, code, `exit code; stderr: ${result.stderr}`);
  assert.equal(result.stdout, "");
  assert.match(result.stderr.split("\n")[0] ?? "", message);
  assert.doesNotMatch(result.stderr, STACK_FRAME);
}

describe("assay CLI on its own", () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  test("migrate applies whatever is pending, then says the database is up to date", () => {
    // The cloned template is normally migrated already; either way the first run must succeed.
    const first = runCli(database, ["migrate"]);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /^((Applied \S+\n)+|The (embedded|PostgreSQL) database is up to date\.\n)$/);
    const second = runCli(database, ["migrate"]);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /^The (embedded|PostgreSQL) database is up to date\.\n$/);
  });

  test("demo seed prints a token once, saves it owner-only, and it authenticates the demo admin", async () => {
    const seeded = runCli(database, ["demo", "seed"]);
    assert.equal(seeded.status, 0, seeded.stderr);
    assert.match(seeded.stdout, TOKEN_LINE);
    const token = seeded.stdout.trim();
    assert.match(seeded.stderr, /only time/);
    const file = path.join(database.dataDir, "demo-token");
    assert.equal(fs.readFileSync(file, "utf8"), `${token}\n`);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);

    const handle = await openDatabase({ ...database, databasePoolSize: 1 });
    try {
      const identity = await new TokenAuthenticator(handle.db, PEPPER).authenticate(token);
      assert.equal(typeof identity, "object", `the token is refused: ${String(identity)}`);
      const [user] = await findUsersByIds(handle.db, [typeof identity === "object" ? identity.userId : "0"]);
      assert.equal(user?.email, DEMO_USER_EMAIL);
    } finally {
      await handle.close();
    }
  });

  test("a second demo seed refuses, and an unknown size is refused by name", () => {
    assertFails(runCli(database, ["demo", "seed"]), 1, /^error: the demo is already seeded/);
    assertFails(
      runCli(database, ["demo", "seed", "--size", "huge"]),
      1,
      /--size must be one of small, large, got "huge"/,
    );
  });
});

describe("assay CLI beside a running server", () => {
  let database: TestDatabase;
  let app: RunningApp;
  let endpoint: string;
  const cli = (...args: string[]) => runCli(database, args);

  before(async () => {
    database = await createTestDatabase();
    // With the embedded database the CLI reaches the server's database through its lock file.
    const config = parseConfig({
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: database.databaseUrl,
      ASSAY_DATA_DIR: database.dataDir,
      ASSAY_TOKEN_PEPPER: PEPPER,
      ASSAY_REDIS_KEY_PREFIX: `assay:test:${randomBytes(6).toString("hex")}`,
      // Every request reads its token, so what the CLI changes is seen by the next request. With
      // the identity cache, a revocation from another process takes up to a second to be seen
      // (test/identity-cache.test.ts holds that bound, `assay token revoke` included).
      ASSAY_IDENTITY_CACHE_MS: "0",
      LOG_LEVEL: "silent",
    });
    app = await startApp(config, testLogger("cli app", recordedLevel(config)).logger);
    endpoint = `${app.url}/graphql/`;
  });
  after(async () => {
    await app.stop();
    await database.drop();
  });

  test("users, an owned account, a member, a repository and a token made with the CLI work over HTTP", async () => {
    for (const email of ["queen@hearts.test", "knave@hearts.test"]) {
      const created = cli("user", "create", "--email", email, "--first-name", "Card");
      assert.equal(created.status, 0, created.stderr);
      assert.match(created.stdout, new RegExp(`^Created user ${email} \\(id [a-z0-9]{10}\\)\\.\\n$`));
    }
    const account = cli("account", "create", "--login", "hearts", "--owner", "queen@hearts.test");
    assert.equal(account.status, 0, account.stderr);
    const added = cli(
      "member",
      "add",
      "--account",
      "hearts",
      "--user",
      "knave@hearts.test",
      "--role",
      "contributor",
    );
    assert.equal(added.stdout, "Added knave@hearts.test to hearts (GITHUB) as CONTRIBUTOR.\n");
    const changed = cli(
      "member",
      "add",
      "--account",
      "hearts",
      "--user",
      "knave@hearts.test",
      "--role",
      "MEMBER",
    );
    assert.equal(
      changed.stdout,
      "Changed the role of knave@hearts.test in hearts (GITHUB) from CONTRIBUTOR to MEMBER.\n",
    );
    const repository = cli("repository", "create", "--account", "hearts", "--name", "croquet", "--public");
    assert.equal(repository.status, 0, repository.stderr);

    const minted = cli(
      "token",
      "create",
      "--user",
      "knave@hearts.test",
      "--name",
      "ci",
      "--expires-in",
      "30",
    );
    assert.equal(minted.status, 0, minted.stderr);
    assert.match(minted.stdout, TOKEN_LINE, "stdout is the token and nothing else");
    assert.match(
      minted.stderr,
      /^Created token [a-z0-9]{10} "ci" for knave@hearts\.test; it expires \d{4}-.*only time/,
    );

    const res = await gql(
      endpoint,
      minted.stdout.trim(),
      `{ viewer { email firstName }
         account(login: "hearts", vcsProvider: GITHUB) {
           members { edges { node { role isOwner user { email } } } } }
         repository(login: "hearts", name: "croquet", vcsProvider: GITHUB) { isPrivate defaultBranch isActivated } }`,
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, {
      viewer: { email: "knave@hearts.test", firstName: "Card" },
      account: {
        members: {
          edges: [
            { node: { role: "ADMIN", isOwner: true, user: { email: "queen@hearts.test" } } },
            { node: { role: "MEMBER", isOwner: false, user: { email: "knave@hearts.test" } } },
          ],
        },
      },
      repository: { isPrivate: false, defaultBranch: "main", isActivated: true },
    });
  });

  test("repository vcs-secret prints a secret once that authenticates webhooks; --remove stops them", async () => {
    const ping = async (secret: string) => {
      const body = JSON.stringify(githubPingPayload("hearts", "croquet"));
      // A connection of its own each time: spawnSync stops this process (and its server) for
      // seconds, and a kept-alive socket of fetch's pool may be closed by the server as it is reused.
      const response = await rawRequest(`${app.url}/webhooks/github`, {
        method: "POST",
        headers: githubHeaders("ping", body, secret),
        chunks: [body],
      });
      return response.status;
    };
    const set = cli("repository", "vcs-secret", "--account", "hearts", "--name", "croquet");
    assert.equal(set.status, 0, set.stderr);
    assert.match(set.stdout, /^vcs_[A-Za-z0-9_-]{32}\n$/, "stdout is the secret and nothing else");
    assert.match(set.stderr, /shown only now/);
    assert.equal(await ping(set.stdout.trim()), 200);
    const chosen = cli(
      "repository",
      "vcs-secret",
      "--account",
      "hearts",
      "--name",
      "croquet",
      "--secret",
      "chosen-secret-0123456789",
    );
    assert.equal(chosen.stdout, "chosen-secret-0123456789\n");
    assert.equal(await ping(set.stdout.trim()), 401, "the earlier secret is replaced");
    assert.equal(await ping("chosen-secret-0123456789"), 200);
    assertFails(
      cli("repository", "vcs-secret", "--account", "hearts", "--name", "croquet", "--secret", "short"),
      1,
      /^error: --secret must be 16 to 256 characters long/,
    );
    assertFails(
      cli("repository", "vcs-secret", "--account", "hearts", "--name", "nothing"),
      1,
      /^error: hearts \(GITHUB\) has no repository named nothing/,
    );
    const removed = cli("repository", "vcs-secret", "--account", "hearts", "--name", "croquet", "--remove");
    assert.equal(removed.status, 0, removed.stderr);
    assert.equal(removed.stdout, "");
    assert.equal(await ping("chosen-secret-0123456789"), 401);
  });

  test("account vcs-secret covers the account's repositories without a secret of their own; --remove stops it", async () => {
    const ping = async (secret: string) => {
      const body = JSON.stringify(githubPingPayload("hearts", "croquet"));
      const response = await rawRequest(`${app.url}/webhooks/github`, {
        method: "POST",
        headers: githubHeaders("ping", body, secret),
        chunks: [body],
      });
      return response.status;
    };
    const set = cli(
      "account",
      "vcs-secret",
      "--account",
      "hearts",
      "--secret",
      "hearts-app-secret-0123456789",
    );
    assert.equal(set.status, 0, set.stderr);
    assert.equal(set.stdout, "hearts-app-secret-0123456789\n");
    assert.match(set.stderr, /account hearts \(GITHUB\); it is shown only now/);
    // croquet's own secret was removed above: the account's now authenticates its deliveries.
    assert.equal(await ping("hearts-app-secret-0123456789"), 200);
    assertFails(
      cli(
        "account",
        "vcs-secret",
        "--account",
        "hearts",
        "--remove",
        "--secret",
        "hearts-app-secret-0123456789",
      ),
      1,
      /^error: --remove and --secret cannot be used together/,
    );
    const removed = cli("account", "vcs-secret", "--account", "hearts", "--remove");
    assert.equal(removed.status, 0, removed.stderr);
    assert.match(removed.stderr, /Removed the VCS webhook secret of account hearts/);
    assert.equal(await ping("hearts-app-secret-0123456789"), 401);
  });

  test("repository create takes a GitLab subgroup path as the name, and refuses slashes elsewhere", async () => {
    const account = cli("account", "create", "--login", "tea-party", "--provider", "GITLAB");
    assert.equal(account.status, 0, account.stderr);
    const nested = cli(
      "repository",
      "create",
      "--account",
      "tea-party",
      "--provider",
      "gitlab",
      "--name",
      "table/teapot",
    );
    assert.equal(nested.status, 0, nested.stderr);
    assert.match(nested.stdout, /^Created private repository tea-party\/table\/teapot on GITLAB/);
    assertFails(
      cli("repository", "create", "--account", "hearts", "--name", "garden/roses"),
      1,
      /^error: --name must not contain "\/" on GITHUB/,
    );
    assertFails(
      cli("repository", "create", "--account", "tea-party", "--provider", "GITLAB", "--name", "table//cup"),
      1,
      /^error: --name must be 1 to 100 characters without backslashes/,
    );
  });

  test("token list shows the last four characters and never the token; revoke stops it at once", async () => {
    const user = await aUser(app.database.db, { email: "dormouse@teapot.test" });
    const token = await aToken(app.database.db, PEPPER, user, { name: "laptop" });
    assert.equal((await gql(endpoint, token, "{ viewer { email } }")).status, 200);

    const listed = cli("token", "list", "--user", "dormouse@teapot.test");
    assert.equal(listed.status, 0, listed.stderr);
    assert.ok(!`${listed.stdout}${listed.stderr}`.includes(token), "the plaintext token is never printed");
    assert.ok(!listed.stdout.includes(token.slice(10, 30)), "nor any part of its secret");
    const [header, row, ...rest] = listed.stdout.trimEnd().split("\n");
    assert.match(header ?? "", /^ID\s+NAME\s+TOKEN\s+CREATED\s+EXPIRES\s+LAST USED\s+STATUS$/);
    assert.equal(rest.length, 0);
    const key = row?.split(/\s+/)[0] ?? "";
    assert.match(row ?? "", new RegExp(`^${key}\\s+laptop\\s+assay_pat_…${token.slice(-4)}\\s.*\\sactive$`));

    const revoked = cli("token", "revoke", key);
    assert.equal(revoked.stdout, `Revoked token ${key} "laptop" of dormouse@teapot.test.\n`);
    const refused = await gql(endpoint, token, "{ viewer { email } }");
    assert.equal(refused.status, 401);

    const asJson = cli("token", "list", "--user", "dormouse@teapot.test", "--json");
    assert.ok(!asJson.stdout.includes(token));
    const tokens = JSON.parse(asJson.stdout) as Array<Record<string, unknown>>;
    assert.equal(tokens.length, 1);
    assert.equal(tokens[0]?.id, key);
    assert.equal(tokens[0]?.token, `assay_pat_…${token.slice(-4)}`);
    assert.equal(tokens[0]?.status, "revoked");
    assert.equal(typeof tokens[0]?.revokedAt, "string");

    assertFails(
      cli("token", "revoke", "--id", key),
      1,
      new RegExp(`^error: token ${key} was already revoked`),
    );
  });

  test("bad input fails with one line naming the problem, exit 1 and no stack trace", async () => {
    await anAccount(app.database.db, { login: "tweedle" });
    assertFails(
      cli("token", "create", "--user", "nobody@nowhere.test", "--name", "x", "--expires-in", "7"),
      1,
      /^error: no user with e-mail nobody@nowhere\.test/,
    );
    assertFails(
      cli("account", "create", "--login", "Tweedle"),
      1,
      /^error: a GITHUB account with login Tweedle already exists$/,
    );
    assertFails(
      cli("member", "add", "--account", "tweedle", "--user", "a@b.test", "--role", "king"),
      1,
      /^error: --role must be one of ADMIN, MEMBER, CONTRIBUTOR, got "king"$/,
    );
    assertFails(
      cli("user", "create", "--email", "not-an-address"),
      1,
      /"not-an-address" is not a valid e-mail address/,
    );
    assertFails(
      cli("account", "create", "--login", "corp", "--provider", "ADS"),
      1,
      /--vcs-url is required for ADS/,
    );
  });

  test("a wrong command line exits 2 with the usage of the command", () => {
    const missing = cli("token", "create", "--user", "a@b.test", "--name", "x");
    assert.equal(missing.status, 2);
    assert.match(
      missing.stderr,
      /^error: token create: missing --expires-in DAYS\|never\nusage: assay token create /,
    );
    const unknown = cli("frobnicate");
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /^error: unknown command "frobnicate"/);
    assert.doesNotMatch(`${missing.stderr}${unknown.stderr}`, STACK_FRAME);
  });

  test("config lists every variable with its effective value and never the pepper", () => {
    const result = cli("config");
    assert.equal(result.status, 0, result.stderr);
    for (const variable of CONFIG_VARIABLES)
      assert.match(result.stdout, new RegExp(`^${variable.name} = `, "m"));
    assert.match(result.stdout, /^ASSAY_TOKEN_PEPPER = \(set\)$/m);
    assert.ok(!result.stdout.includes(PEPPER));
  });
});

test("effectiveValues covers every configuration variable and hides secrets", () => {
  const config = parseConfig({
    ASSAY_TOKEN_PEPPER: PEPPER,
    DATABASE_URL: "postgres://assay:hunter2@db.internal:5432/assay",
  });
  const values = effectiveValues(config);
  assert.deepEqual(Object.keys(values).sort(), CONFIG_VARIABLES.map((v) => v.name).sort());
  assert.equal(values.ASSAY_TOKEN_PEPPER, "(set)");
  assert.equal(values.DATABASE_URL, "postgres://assay:****@db.internal:5432/assay");
  assert.ok(!Object.values(values).some((value) => value.includes(PEPPER) || value.includes("hunter2")));
});
