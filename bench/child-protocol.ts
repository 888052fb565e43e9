/**
 * How bench/run.ts talks to a server it forks (bench/server.ts, bench/apollo-server.ts): the child
 * sends `{ type: "ready", url }` once it listens, or `{ type: "error", message }` and exits 1 when
 * it cannot start; it stops gracefully on `{ type: "stop" }`, SIGTERM or SIGINT, or when the
 * parent goes away.
 */

/** A started server: where it answers GraphQL, and how it stops. */
export interface BenchChild {
  url: string;
  stop(): Promise<void>;
}

/** Starts the child's server with `start` and serves the protocol around it. */
export function runBenchChild(start: () => Promise<BenchChild>): void {
  start().then(
    (child) => {
      let stopping = false;
      const stop = async (): Promise<void> => {
        if (stopping) return;
        stopping = true;
        try {
          await child.stop();
        } finally {
          process.exit(0);
        }
      };
      process.on("message", (message: { type?: string }) => {
        if (message?.type === "stop") void stop();
      });
      process.on("disconnect", () => void stop());
      process.on("SIGTERM", () => void stop());
      process.on("SIGINT", () => void stop());
      process.send?.({ type: "ready", url: child.url });
    },
    (error: unknown) => {
      process.send?.({ type: "error", message: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    },
  );
}
