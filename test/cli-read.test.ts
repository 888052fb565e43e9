// test-runner: execution-mode independent (the CLI runs no GraphQL execution)
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type RunningApp, startApp } from "../src/app.ts";
import { formatCommandHelp } from "../src/cli/command.ts";
import { COMMANDS, commandsOfGroup, groupOf } from "../src/cli/commands.ts";
import { runCli as runCliInProcess } from "../src/cli/run-cli.ts";
import { parseConfig } from "../src/config.ts";
import type { RepositoryRow } from "../src/db/types.ts";
import { findRepositoryByDsnToken, repositoryDsn } from "../src/modules/repositories/dsn.ts";
import { anAccount, aRepository, aUser } from "./helpers/builders.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { testLogger } from "./helpers/log-capture.ts";
import { recordedLevel } from "./helpers/server.ts";
import { assayArgs } from "./helpers/start-command.ts";

/**
 * The admin CLI's read commands (`user list`, `account list`, `repository list`, `repository
 * dsn`) run as operators run them, against a seeded database, and `help` for every registered
 * command and group, both as `assay help <command>` and `assay <command> --help`.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const PEPPER = "cli-read-test-pepper-0123456789";
const STACK_FRAME = /^\s+at /m;

interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cliEnv(database: TestDatabase | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ASSAY_TOKEN_PEPPER: PEPPER, LOG_LEVEL: "silent" };
  delete env.NODE_TEST_CONTEXT;
  delete env.ASSAY_PUBLIC_URL;
  // Help opens no database; the directory is never used then.
  env.ASSAY_DATA_DIR = database?.dataDir ?? os.tmpdir();
  if (database?.databaseUrl) env.DATABASE_URL = database.databaseUrl;
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
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the CLI's process without waiting for it, so a few can run at once. */
function runCliAsync(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, assayArgs(...args), {
      cwd: ROOT,
      env: cliEnv(undefined),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * Runs the CLI in this process (what src/cli/assay.ts runs), for commands that open no database:
 * help for every command is dispatched here, and a few are checked through a real process above.
 */
async function runInProcess(args: string[]): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const status = await runCliInProcess(args, {
    print: (line) => {
      stdout += `${line}\n`;
    },
    note: (line) => {
      stderr += `${line}\n`;
    },
  });
  return { status, stdout, stderr };
}

describe("the CLI's read commands on a seeded database", () => {
  let database: TestDatabase;
  let app: RunningApp;
  let teaParty: RepositoryRow;
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
      ASSAY_WORKER: "false",
      LOG_LEVEL: "silent",
    });
    app = await startApp(config, testLogger("cli read app", recordedLevel(config)).logger);
    const db = app.database.db;
    const alice = await aUser(db, { email: "alice@lists.test", firstName: "Alice", lastName: "Liddell" });
    const bob = await aUser(db, { email: "bob@lists.test", firstName: "Bob", lastName: "" });
    const wonderland = await anAccount(db, { login: "wonderland" }, [
      { user: alice, role: "ADMIN", isOwner: true },
      { user: bob, role: "MEMBER" },
    ]);
    await anAccount(db, { login: "looking-glass", vcsProvider: "GITLAB" });
    teaParty = await aRepository(db, wonderland, { name: "tea-party" });
    await aRepository(db, wonderland, { name: "croquet", isPrivate: false, defaultBranch: "trunk" });
  });
  after(async () => {
    await app?.stop();
    await database?.drop();
  });

  test("user list shows every user with their accounts, as a table and as JSON", () => {
    const table = cli("user", "list");
    assert.equal(table.status, 0, table.stderr);
    const lines = table.stdout.trimEnd().split("\n");
    assert.match(lines[0] ?? "", /^ID\s+EMAIL\s+NAME\s+ACCOUNTS\s+CREATED$/);
    assert.match(
      lines[1] ?? "",
      /^[a-z0-9]{10}\s+alice@lists\.test\s+Alice Liddell\s+1\s+\d{4}-\d\d-\d\d \d\d:\d\dZ$/,
    );
    assert.match(lines[2] ?? "", /^[a-z0-9]{10}\s+bob@lists\.test\s+Bob\s+1\s+/);
    assert.equal(lines.length, 3);

    const json = cli("user", "list", "--json");
    assert.equal(json.status, 0, json.stderr);
    const users = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(
      users.map(({ email, firstName, lastName, accounts }) => ({ email, firstName, lastName, accounts })),
      [
        { email: "alice@lists.test", firstName: "Alice", lastName: "Liddell", accounts: 1 },
        { email: "bob@lists.test", firstName: "Bob", lastName: "", accounts: 1 },
      ],
    );
  });

  test("account list shows owner, members and repositories, and --provider narrows it", () => {
    const json = cli("account", "list", "--json");
    assert.equal(json.status, 0, json.stderr);
    const accounts = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(
      accounts.map(({ login, provider, type, owner, members, repositories }) => ({
        login,
        provider,
        type,
        owner,
        members,
        repositories,
      })),
      [
        {
          login: "wonderland",
          provider: "GITHUB",
          type: "TEAM",
          owner: "alice@lists.test",
          members: 2,
          repositories: 2,
        },
        {
          login: "looking-glass",
          provider: "GITLAB",
          type: "TEAM",
          owner: null,
          members: 0,
          repositories: 0,
        },
      ],
    );
    const gitlab = cli("account", "list", "--provider", "gitlab");
    assert.equal(gitlab.status, 0, gitlab.stderr);
    const lines = gitlab.stdout.trimEnd().split("\n");
    assert.match(lines[0] ?? "", /^ID\s+LOGIN\s+PROVIDER\s+TYPE\s+OWNER\s+MEMBERS\s+REPOSITORIES\s+CREATED$/);
    assert.match(lines[1] ?? "", /^[a-z0-9]{10}\s+looking-glass\s+GITLAB\s+TEAM\s+-\s+0\s+0\s+/);
    assert.equal(lines.length, 2);
  });

  test("repository list shows every repository or one account's, and names an unknown account", () => {
    const all = cli("repository", "list", "--json");
    assert.equal(all.status, 0, all.stderr);
    const repositories = JSON.parse(all.stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(
      repositories.map(({ account, name, defaultBranch, isPrivate, isActivated }) => ({
        account,
        name,
        defaultBranch,
        isPrivate,
        isActivated,
      })),
      [
        {
          account: "wonderland",
          name: "croquet",
          defaultBranch: "trunk",
          isPrivate: false,
          isActivated: true,
        },
        {
          account: "wonderland",
          name: "tea-party",
          defaultBranch: "main",
          isPrivate: true,
          isActivated: true,
        },
      ],
    );
    assert.equal(repositories[1]?.id, teaParty.key);
    const table = cli("repository", "list", "--account", "wonderland");
    assert.equal(table.status, 0, table.stderr);
    assert.match(
      table.stdout,
      /^ID\s+ACCOUNT\s+PROVIDER\s+NAME\s+BRANCH\s+VISIBILITY\s+ANALYSIS\s+CREATED\n/,
    );
    assert.match(table.stdout, /\bcroquet\s+trunk\s+public\s+on\b/);
    const empty = cli("repository", "list", "--account", "looking-glass", "--provider", "GITLAB");
    assert.equal(empty.status, 0, empty.stderr);
    assert.equal(empty.stdout, "looking-glass has no repositories.\n");
    const unknown = cli("repository", "list", "--account", "narnia");
    assert.equal(unknown.status, 1);
    assert.equal(unknown.stdout, "");
    assert.match(unknown.stderr, /^error: no GITHUB account with login narnia\n/);
    assert.doesNotMatch(unknown.stderr, STACK_FRAME);
  });

  test("repository dsn prints the DSN alone on stdout, and it authenticates the repository", async () => {
    const result = cli("repository", "dsn", "--account", "wonderland", "--name", "tea-party");
    assert.equal(result.status, 0, result.stderr);
    // The CLI's configuration has no ASSAY_PUBLIC_URL: the DSN names the default address.
    assert.equal(result.stdout, `${repositoryDsn(teaParty, PEPPER, "http://127.0.0.1:4000")}\n`);
    const token = new URL(result.stdout.trim()).username;
    const found = await findRepositoryByDsnToken(app.database.db, token, PEPPER);
    assert.equal(found?.key, teaParty.key);
    assert.match(result.stderr, /points at http:\/\/127\.0\.0\.1:4000 \(ASSAY_PUBLIC_URL\)/);

    const missing = cli("repository", "dsn", "--account", "wonderland", "--name", "hatter");
    assert.equal(missing.status, 1);
    assert.equal(missing.stdout, "");
    assert.match(missing.stderr, /^error: wonderland \(GITHUB\) has no repository named hatter\n/);
    const usage = cli("repository", "dsn", "--account", "wonderland");
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /^error: repository dsn: missing --name NAME\nusage: assay repository dsn /);
  });
});

describe("help for every command", () => {
  test("every registered command has a summary and a description of each flag", () => {
    for (const command of COMMANDS) {
      assert.ok(command.summary.trim().length > 10, `${command.name} has no summary`);
      for (const [flag, spec] of Object.entries(command.flags)) {
        assert.ok(spec.description.trim().length > 3, `${command.name} --${flag} has no description`);
      }
    }
  });

  test("assay help <command> and assay <command> --help print the command's help, exit 0", async () => {
    for (const command of COMMANDS) {
      const words = command.name.split(" ");
      for (const args of [
        ["help", ...words],
        [...words, "--help"],
      ]) {
        const how = `assay ${args.join(" ")}`;
        const result = await runInProcess(args);
        assert.equal(result.status, 0, `${how}: ${result.stderr}`);
        assert.equal(result.stdout, `${formatCommandHelp(command)}\n`, how);
        assert.equal(result.stderr, "", how);
        assert.ok(result.stdout.startsWith(`Usage: assay ${command.name}`), how);
        assert.ok(result.stdout.includes(command.summary), how);
        for (const flag of Object.keys(command.flags)) assert.ok(result.stdout.includes(`--${flag}`), how);
      }
    }
  });

  test("assay help <group> and assay <group> --help list the group's commands", async () => {
    const groups = [...new Set(COMMANDS.map(groupOf).filter((group) => group !== undefined))];
    assert.ok(groups.includes("repository") && groups.includes("user") && groups.includes("account"));
    for (const group of groups) {
      for (const args of [
        ["help", group],
        [group, "--help"],
      ]) {
        const result = await runInProcess(args);
        assert.equal(result.status, 0, `${args.join(" ")}: ${result.stderr}`);
        for (const command of commandsOfGroup(group)) {
          assert.ok(result.stdout.includes(command.summary), `${args.join(" ")} lacks ${command.name}`);
        }
      }
    }
  });

  test("the assay process prints help on stdout and exits with its code", async () => {
    const command = COMMANDS.find((c) => c.name === "repository dsn");
    assert.ok(command);
    const [commandHelp, groupHelp, unknown] = await Promise.all([
      runCliAsync(["repository", "dsn", "--help"]),
      runCliAsync(["help", "repository"]),
      runCliAsync(["no-such-command"]),
    ]);
    assert.equal(commandHelp.status, 0, commandHelp.stderr);
    assert.equal(commandHelp.stdout, `${formatCommandHelp(command)}\n`);
    assert.equal(groupHelp.status, 0, groupHelp.stderr);
    assert.equal(groupHelp.stdout, (await runInProcess(["help", "repository"])).stdout);
    assert.equal(unknown.status, 2);
    assert.equal(unknown.stdout, "");
    assert.equal(unknown.stderr, (await runInProcess(["no-such-command"])).stderr);
    assert.match(unknown.stderr, /^error: /);
  });
});
