/**
 * A node:test reporter for `npm test`: one JSON line per finished test with its file, name,
 * whether it is a suite, its depth and its duration (the `FinishedTest` of
 * scripts/test-registration.ts), read by `filesWithoutTests` and `slowestFiles` after the run. Plain JavaScript: node:test loads reporters without the
 * TypeScript loader.
 */

/**
 * Yields one JSON line per `test:pass` or `test:fail` event.
 * @param {AsyncIterable<{ type: string, data: { file?: string, name: string, nesting: number, details?: { type?: string, duration_ms?: number } } }>} source
 */
export default async function* registeredTestsReporter(source) {
  for await (const event of source) {
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
