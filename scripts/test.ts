/**
 * `npm test`: the whole suite on the backend the environment selects (embedded database, or
 * PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set), first with graphql-js execution and
 * then the HTTP tests again with graphql-jit. Prepares one migrated template database so each
 * test file can clone its own in milliseconds.
 *
 * Usage: npm test [-- file-or-directory ...]
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { compiledModule } from "../src/compiled/tree.mjs";
import { dropTemplate, prepareTemplate } from "../test/helpers/database.ts";
import {
  filesWithoutTests,
  missingTargets,
  noTestsMessage,
  readRunReport,
  slowestFiles,
} from "./test-registration.ts";

const root = path.resolve(import.meta.dirname, "..");
/** A test file holding this line does not depend on the execution mode and runs in the first pass only. */
const ONCE_MARKER = "// test-runner: execution-mode independent";
/**
 * A test file holding this line measures latency, which another file running beside it would
 * distort: it runs after the others, in a pass of its own, one file at a time (with graphql-js).
 */
const ALONE_MARKER = "// test-runner: alone";
/**
 * How long a test file may run before it fails as cancelled (Node's `--test-timeout`, which the
 * test runner of Node 20 applies to each file as a whole): a test that waits for something that
 * never comes (a server that did not start, an event never sent) then fails the run with the
 * file's name instead of holding it until CI gives up. The slowest files take a few minutes on a
 * loaded 2-core machine; ASSAY_TEST_FILE_TIMEOUT_MS sets another limit.
 */
const FILE_TIMEOUT_MS = Number(process.env.ASSAY_TEST_FILE_TIMEOUT_MS) || 15 * 60 * 1000;

function findTests(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  if (fs.statSync(dir).isFile()) return [dir];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === "node_modules" ? [] : findTests(full);
      return entry.name.endsWith(".test.ts") ? [full] : [];
    })
    .sort();
}

function relative(files: string[]): string[] {
  return files.map((f) => path.relative(root, f));
}

interface PassResult {
  pass: number;
  fail: number;
  skipped: number;
}

function runPass(label: string, files: string[], env: Record<string, string>, concurrency = 2): PassResult {
  const registered = path.join(root, ".tmp", `test-${label}-${process.pid}.registered.jsonl`);
  fs.mkdirSync(path.dirname(registered), { recursive: true });
  process.stdout.write(`\n== ${label}: ${files.length} file(s) ==\n`);
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--test",
      `--test-concurrency=${concurrency}`,
      `--test-timeout=${FILE_TIMEOUT_MS}`,
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      "--test-reporter=./scripts/registered-tests-reporter.mjs",
      `--test-reporter-destination=${registered}`,
      ...relative(files),
    ],
    { cwd: root, stdio: "inherit", env: { ...process.env, ...env } },
  );
  const { finished, totals } = readRunReport(
    fs.existsSync(registered) ? fs.readFileSync(registered, "utf8") : "",
  );
  fs.rmSync(registered, { force: true });
  const total = (name: string) => totals.get(name) ?? 0;
  const counts = {
    pass: total("pass"),
    fail: total("fail") + total("cancelled"),
    skipped: total("skipped") + total("todo"),
  };
  if (result.status !== 0 && counts.fail === 0) counts.fail = 1;
  const slowest = slowestFiles(finished, 8);
  if (slowest.length > 0 && files.length > 1) {
    process.stdout.write(`\n${label}: slowest files\n`);
    for (const { file, ms } of slowest)
      process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${path.relative(root, file)}\n`);
  }
  const empty = filesWithoutTests(relative(files), finished);
  if (empty.length > 0) {
    process.stdout.write(`\n${noTestsMessage(empty)}`);
    counts.fail += empty.length;
  }
  return counts;
}

/**
 * Runs `files`: every file under graphql-js, the HTTP tests again under graphql-jit, then the
 * files marked to run alone, one at a time.
 */
function runPasses(files: readonly string[]): PassResult {
  const marked = (file: string, marker: string) => fs.readFileSync(file, "utf8").includes(marker);
  const alone = files.filter((f) => marked(f, ALONE_MARKER));
  const together = files.filter((f) => !alone.includes(f));
  const totals: PassResult = { pass: 0, fail: 0, skipped: 0 };
  const add = (pass: PassResult) => {
    totals.pass += pass.pass;
    totals.fail += pass.fail;
    totals.skipped += pass.skipped;
  };
  if (together.length > 0) add(runPass("graphql-js", together, { ASSAY_GRAPHQL_JIT: "false" }));
  const httpFiles = together.filter(
    (f) => f.startsWith(path.join(root, "test") + path.sep) && !marked(f, ONCE_MARKER),
  );
  // Compiled at the first run, so every operation of the pass runs compiled.
  const jit = { ASSAY_GRAPHQL_JIT: "true", ASSAY_GRAPHQL_JIT_AFTER_RUNS: "0" };
  if (httpFiles.length > 0) add(runPass("graphql-jit", httpFiles, jit));
  if (alone.length > 0) add(runPass("alone", alone, { ASSAY_GRAPHQL_JIT: "false" }, 1));
  return totals;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const targets =
    args.length > 0 ? args.map((a) => path.resolve(a)) : [path.join(root, "src"), path.join(root, "test")];
  const missing = missingTargets(args);
  if (missing.length > 0) throw new Error(`no such test file or folder: ${missing.join(", ")}`);
  const files = targets.flatMap(findTests);
  if (files.length === 0) throw new Error("no test files found");

  // The processes tests start (npm start, npm run assay) run the compiled server: after an edit it
  // is built once here, not by the first of them while others start beside it.
  if (!compiledModule("src/main.ts")) {
    const build = spawnSync(
      process.execPath,
      ["--import", "tsx", path.join(root, "scripts", "compile-server.ts")],
      {
        cwd: root,
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
    if (build.status !== 0) throw new Error("the compiled server could not be built (see above)");
  }

  const backend = process.env.DATABASE_URL
    ? `PostgreSQL${process.env.REDIS_URL ? " + Redis" : ""}`
    : "embedded database";
  process.stdout.write(`Preparing the template database (${backend})...\n`);
  // One template per run, so runs side by side do not rebuild each other's.
  const templateDir = path.join(root, ".tmp", `test-template-${process.pid}`);
  process.env.ASSAY_TEST_TEMPLATE_DIR = templateDir;
  process.env.ASSAY_TEST_PG_TEMPLATE = `assay_test_template_${process.pid}`;
  await prepareTemplate(process.env.DATABASE_URL);

  let totals: PassResult;
  try {
    totals = runPasses(files);
  } finally {
    await dropTemplate(process.env.DATABASE_URL);
    fs.rmSync(templateDir, { recursive: true, force: true });
  }
  process.stdout.write(
    `\n${backend}: ${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped\n`,
  );
  if (totals.skipped > 0)
    process.stdout.write("Skipped tests count as failures: nothing here may be skipped silently.\n");
  process.exit(totals.fail > 0 || totals.skipped > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
  process.stderr.write(`test runner failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
