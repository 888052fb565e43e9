import { type ChildProcess, fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { compiledModule } from "../compiled/tree.mjs";

/** Longest Unix socket path the kernel accepts is 107 bytes; leave room. */
const MAX_SOCKET_PATH = 100;
/** PGlite's socket is named as PostgreSQL names its own, so `pg` finds it from a directory and port. */
const SOCKET_PORT = 5432;

/** The database process's module: it holds PGlite and serves it on a socket. */
const ENTRY = "src/db/embedded-server.ts";

/** How to fork the embedded database's process: the script, and node's options for it. */
export interface EmbeddedServerCommand {
  script: string;
  execArgv: string[];
}

/**
 * The database process's compiled module under plain node when the compiled tree is current
 * (src/compiled/tree.mjs); its TypeScript under tsx otherwise, which costs the process about 40 MB
 * more (a developer who edited the sources since the tree was built, an install without scripts).
 */
export function embeddedServerCommand(): EmbeddedServerCommand {
  const compiled = compiledModule(ENTRY);
  if (compiled) return { script: compiled, execArgv: [] };
  return { script: path.join(import.meta.dirname, "embedded-server.ts"), execArgv: ["--import", "tsx"] };
}

/**
 * The database process's environment: the server's, with glibc's malloc told to keep less of what
 * is freed, unless the operator chose otherwise. V8 compiles PGlite's WebAssembly on several
 * threads at a start, and glibc gives each thread that allocates an arena of its own (up to 8 a
 * core), which keeps what was freed in it: two arenas (`MALLOC_ARENA_MAX`) hold about 20 MB less
 * at idle. Setting the trim threshold (`MALLOC_TRIM_THRESHOLD_`, here glibc's own default) turns
 * off glibc's sliding mmap threshold, which otherwise rises to the largest block freed and keeps
 * later blocks of that size in the heap; about 15 MB less at idle for the same CPU
 * (docs/benchmarks.md). Other C libraries ignore both.
 */
export function embeddedServerEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX || "2",
    MALLOC_TRIM_THRESHOLD_: env.MALLOC_TRIM_THRESHOLD_ || "131072",
  };
}

/** A running embedded database and how to reach it. */
export interface EmbeddedDatabase {
  /** Directory holding the socket; give it to `pg` as `host`. */
  socketDirectory: string;
  port: number;
  stop(): Promise<void>;
}

/** Raised when another live process already serves this data directory. */
export class DataDirectoryInUseError extends Error {}

interface LockFile {
  pid: number;
  socketDirectory: string;
}

/** Data directories this process serves, so a second open in the same process reuses the first. */
const startedHere = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Where the lock of a data directory is: it names the process serving it and its socket. */
function lockPath(dataDir: string): string {
  return path.join(dataDir, "embedded.lock");
}

/**
 * The embedded database another live process is serving from `dataDir`, if any, so a second
 * program (the admin CLI while the server runs) can connect to it instead of opening the files.
 */
export function findRunningEmbedded(dataDir: string): { socketDirectory: string; port: number } | undefined {
  try {
    const lock = JSON.parse(fs.readFileSync(lockPath(dataDir), "utf8")) as LockFile;
    // Our own pid counts only if this process really started it (a crashed server's pid can be
    // reused by a later process, leaving a lock that names us).
    const live = lock.pid === process.pid ? startedHere.has(path.resolve(dataDir)) : isAlive(lock.pid);
    if (live) return { socketDirectory: lock.socketDirectory, port: SOCKET_PORT };
  } catch {
    // No lock, or a torn one: nobody is serving.
  }
  return undefined;
}

function chooseSocketDirectory(dataDir: string): string {
  const inDataDir = path.join(dataDir, "run");
  if (`${inDataDir}/.s.PGSQL.${SOCKET_PORT}`.length <= MAX_SOCKET_PATH) {
    fs.mkdirSync(inDataDir, { recursive: true, mode: 0o700 });
    return inDataDir;
  }
  return fs.mkdtempSync(path.join(os.tmpdir(), "assay-pg-"));
}

/**
 * Starts PGlite in a child process over the data under `dataDir/pgdata`, and resolves once it
 * accepts connections. Only one process may serve a data directory at a time.
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (findRunningEmbedded(dataDir)) {
    throw new DataDirectoryInUseError(
      `The embedded database in ${dataDir} is already in use by another Assay process. Stop it, or set ASSAY_DATA_DIR to another directory.`,
    );
  }
  const socketDirectory = chooseSocketDirectory(dataDir);
  const socketPath = path.join(socketDirectory, `.s.PGSQL.${SOCKET_PORT}`);
  const { script, execArgv } = embeddedServerCommand();
  const child: ChildProcess = fork(script, [path.join(dataDir, "pgdata"), socketPath], {
    execArgv,
    env: embeddedServerEnvironment(process.env),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });

  await new Promise<void>((resolve, reject) => {
    const onMessage = (message: { type?: string; message?: string }) => {
      if (message.type === "ready") {
        cleanup();
        resolve();
      } else if (message.type === "error") {
        cleanup();
        reject(new Error(`embedded database failed to start: ${message.message}`));
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`embedded database exited during start (code ${code})`));
    };
    const cleanup = () => {
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    child.on("message", onMessage);
    child.on("exit", onExit);
  });

  const lock: LockFile = { pid: process.pid, socketDirectory };
  fs.writeFileSync(lockPath(dataDir), JSON.stringify(lock), { mode: 0o600 });
  startedHere.add(path.resolve(dataDir));

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= new Promise<void>((resolve) => {
      fs.rmSync(lockPath(dataDir), { force: true });
      startedHere.delete(path.resolve(dataDir));
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      if (child.connected) child.send({ type: "stop" });
      else child.kill("SIGTERM");
    });
    return stopped;
  };
  return { socketDirectory, port: SOCKET_PORT, stop };
}
