import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";

/**
 * Running documented CI steps in tests: the shell blocks of a YAML example in the docs, run with
 * bash as a CI runner would, with only the variables the test gives.
 */

/** What a shell run printed, and its exit status. */
export interface ShellRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The shell blocks (`run: |`, `- |`) of the YAML example in `docsFile` whose first line is
 * `# <name>`, dedented, keeping those that contain `marker`.
 */
export async function shellBlocksOf(docsFile: string, name: string, marker: string): Promise<string[]> {
  const docs = await fs.readFile(docsFile, "utf8");
  const example = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .find((yaml) => yaml.startsWith(`# ${name}\n`));
  assert.ok(example, `${docsFile} has a YAML example for ${name}`);
  const lines = example.split("\n");
  const blocks: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const opener = lines[i]!;
    if (!/(?:run:|-)\s*\|$/.test(opener)) continue;
    const indent = opener.length - opener.trimStart().length;
    const body: string[] = [];
    while (i + 1 < lines.length) {
      const next = lines[i + 1]!;
      if (next.trim() !== "" && next.length - next.trimStart().length <= indent) break;
      body.push(next);
      i++;
    }
    const depth = Math.min(...body.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
    const script = body
      .map((l) => l.slice(depth))
      .join("\n")
      .trim();
    if (script.includes(marker)) blocks.push(script);
  }
  assert.ok(blocks.length > 0, `the ${name} example has a step with ${marker}`);
  return blocks;
}

/**
 * Runs `script` with `bash -e -o pipefail` in `cwd`, with PATH and exactly `env` (nothing else of
 * this process's environment, so the CI this suite may run in does not leak into the step).
 */
export function runShell(script: string, cwd: string, env: Record<string, string>): Promise<ShellRun> {
  const child = spawn("bash", ["-e", "-o", "pipefail", "-c", script], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

/** Runs `steps` in order, stopping at the first that fails, as a CI job does; their output joined. */
export async function runSteps(steps: string[], run: (step: string) => Promise<ShellRun>): Promise<ShellRun> {
  const all: ShellRun = { status: 0, stdout: "", stderr: "" };
  for (const step of steps) {
    const ran = await run(step);
    all.stdout += ran.stdout;
    all.stderr += ran.stderr;
    all.status = ran.status;
    if (ran.status !== 0) break;
  }
  return all;
}
