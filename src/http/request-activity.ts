/**
 * The API requests this process is serving, so that background work can give way to them. The
 * embedded database is one session: while the worker writes a step of a large report, every API
 * statement waits, and a request of six statements can wait six steps. Before each step the
 * worker waits, for a bounded time, until no request is being served (docs/ingestion.md
 * "Processing in steps").
 */
export class RequestActivity {
  private active = 0;
  private readonly waiters = new Set<() => void>();

  /** Counts a request as being served until the returned function is called (once or more). */
  begin(): () => void {
    this.active += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.active -= 1;
      if (this.active > 0) return;
      for (const wake of [...this.waiters]) wake();
    };
  }

  /** Resolves once no request is being served, or after `maxWaitMs`, whichever comes first. */
  quiet(maxWaitMs: number): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, maxWaitMs);
      this.waiters.add(wake);
    });
  }
}
