/**
 * Requests read in one turn of the event loop are run together, after the turn's reads.
 *
 * Each socket's bytes come in an I/O callback of their own. A request run from its callback has
 * its answer written before the next socket is read, so on a loaded server reads and writes
 * alternate request by request, and that costs about twice the CPU a request, for a query that
 * makes no statement, of the same requests read first and then run one after another
 * (docs/benchmarks.md "A turn's requests run together"). So the GraphQL endpoint notes the turn a
 * request was read in ({@link turnOfRead}) and, before running it, asks
 * {@link waitForTurnsOtherRequests}: the first request run in a turn runs at once; a later one
 * read in the same turn waits for that turn's check phase (one `setImmediate` for all of them).
 *
 * A request alone in its turn waits for nothing (deferring it too made a lone client's requests
 * slower). Nor does one that already waited for I/O since it was read (the rate limit's Redis
 * command, a body in several packets): it resumes with the requests that waited with it, in one
 * callback, where nothing is read between them.
 */

/** Counts the turns that read a request; `turn` is the current one's. */
let turn = 0;
/** Whether the current turn's end is scheduled (a request was read in it). */
let ending = false;
/** Requests of the current turn run so far. */
let runs = 0;
/** The wait of the turn's later requests, and what ends it. */
let waiting: Promise<void> | undefined;
let endWaiting: (() => void) | undefined;

function endTurn(): void {
  turn += 1;
  ending = false;
  runs = 0;
  const end = endWaiting;
  waiting = undefined;
  endWaiting = undefined;
  end?.();
}

/** Notes a request read now; answers the turn it was read in, for {@link waitForTurnsOtherRequests}. */
export function turnOfRead(): number {
  if (!ending) {
    ending = true;
    setImmediate(endTurn);
  }
  return turn;
}

/**
 * Notes a request about to run, read in turn `readIn`. Answers undefined when it runs now (the
 * first of its turn, or read in an earlier turn); otherwise a promise that settles once the turn's
 * I/O callbacks have run.
 */
export function waitForTurnsOtherRequests(readIn: number): Promise<void> | undefined {
  if (readIn !== turn) return undefined;
  runs += 1;
  if (runs === 1) return undefined;
  waiting ??= new Promise((resolve) => {
    endWaiting = resolve;
  });
  return waiting;
}
