/**
 * A node:test reporter for `npm test`: one JSON line per finished test with its file, name,
 * whether it is a suite, its depth and its duration (the `FinishedTest` of
 * scripts/test-registration.ts), read by `filesWithoutTests` and `slowestFiles` after the run,
 * and the run's totals, which decide whether it passed (`readRunReport`). One reporter for both:
 * node 20 warns of an EventEmitter leak (MaxListenersExceededWarning) from three reporters on.
 * Plain JavaScript: node:test loads reporters without the TypeScript loader.
 */

/** The run's totals, as node:test reports them at its end: `pass 38`, `fail 0`, ... */
const TOTAL = /^(tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/;

/**
 * Yields one JSON line per `test:pass` or `test:fail` event, and one per total of the run
 * (`{"total":"pass","count":38}`, from the diagnostics the runner itself sends at the end, which
 * name no file).
 * @param {AsyncIterable<{ type: string, data: { file?: string, name: string, message?: string, nesting: number, details?: { type?: string, duration_ms?: number } } }>} source
 */
export default async function* registeredTestsReporter(source) {
  for await (const event of source) {
    if (event.type === "test:diagnostic") {
      const total =
        event.data.file === undefined && event.data.nesting === 0 && TOTAL.exec(event.data.message);
      if (total) yield `${JSON.stringify({ total: total[1], count: Number(total[2]) })}\n`;
      continue;
    }
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const finished = {
      file: event.data.file,
      name: event.data.name,
      isSuite: event.data.details?.type === "suite",
      nesting: event.data.nesting,
      durationMs: event.data.details?.duration_ms ?? 0,
    };
    yield `${JSON.stringify(finished)}\n`;
  }
}
