import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from "node:child_process";
import os from "node:os";

/**
 * Child processes for the benchmark: pinned to a core with `taskset` when it can, and registered
 * so every one of them is stopped on the way out, whether the run ends, fails or is interrupted.
 */

/** The core the server under test runs on, and the one the load generator runs on. */
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

/** Whether `taskset` exists and this machine has the two cores we pin to. */
export function canPin(): { ok: true } | { ok: false; reason: string } {
  if (os.availableParallelism() < 2) {
    return { ok: false, reason: `only ${os.availableParallelism()} core(s) available` };
  }
  const probe = spawnSync("taskset", ["-c", String(LOAD_CORE), "true"], { stdio: "ignore" });
  if (probe.error) return { ok: false, reason: "taskset is not installed (Debian: util-linux)" };
  if (probe.status !== 0) return { ok: false, reason: `taskset -c ${LOAD_CORE} failed (restricted cpuset?)` };
  return { ok: true };
}

/** Async clean-up steps, run newest first, each exactly once. */
export class Cleanup {
  readonly #steps: CleanupStep[] = [];
  #pending: Promise<void> = Promise.resolve();
  #closing = false;

  /** Registers `run` to happen at clean-up; returns a function that runs it now instead. */
  add(name: string, run: () => Promise<void>): () => Promise<void> {
    const step = { name, run };
    if (this.#closing) {
      // Registered by work that was already under way when clean-up began: undo it straight away.
      this.#pending = this.#pending.then(() => runStep(step));
      return async () => {};
    }
    this.#steps.push(step);
    return async () => {
      const index = this.#steps.indexOf(step);
      if (index < 0) return;
      this.#steps.splice(index, 1);
      await run();
    };
  }

  /** Runs every registered step; a failing step is reported and does not stop the others. */
  runAll(): Promise<void> {
    this.#closing = true;
    const steps = this.#steps.splice(0).reverse();
    this.#pending = this.#pending.then(async () => {
      for (const step of steps) await runStep(step);
    });
    return this.#pending;
  }
}

interface CleanupStep {
  name: string;
  run: () => Promise<void>;
}

async function runStep(step: CleanupStep): Promise<void> {
  try {
    await step.run();
  } catch (error) {
    process.stderr.write(`clean-up "${step.name}" failed: ${describe(error)}\n`);
  }
}

/** A message's text, whatever was thrown. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Spawns `command args` under `taskset -c core` when pinning, plain otherwise. */
export function spawnOnCore(
  core: number | null,
  command: string,
  args: string[],
  options: SpawnOptions,
): ChildProcess {
  return core === null
    ? spawn(command, args, options)
    : spawn("taskset", ["-c", String(core), command, ...args], options);
}

/** Resolves when `child` has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/**
 * Stops `child`: asks over IPC when it has a channel (so it can close its database), otherwise
 * SIGTERM; SIGKILL if it is still alive after `graceMs`.
 */
export async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child);
  if (child.connected) child.send({ type: "stop" });
  else child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await done;
  clearTimeout(timer);
}

/** Collects a child's stdout as text and resolves with it and its exit code once it exits. */
export function collectOutput(
  child: ChildProcess,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ stdout, stderr, code }));
  });
}
