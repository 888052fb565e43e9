/**
 * Arrays sent as one parameter, in the text PostgreSQL's `array_in` reads (`{…}`). node-postgres
 * makes that text in JavaScript, quoting and escaping each element with two regular expressions;
 * for the batch insert of findings (13 arrays of 5,000) that was about a microsecond of Node's
 * time a row (docs/benchmarks.md "Occurrence keys in creation order"). `JSON.stringify` makes the
 * same text natively whenever JSON escapes nothing but `"` and `\`: both write `"a\"b"`, and
 * `null`, numbers and `true`/`false` bare, which `array_in` reads as NULL, numbers and booleans.
 * Any other escape (`\n`, `\u0001`, a lone surrogate's `\ud800`) means something else to
 * `array_in` (a backslash there only quotes the next character), so such an array, and one with a
 * number JSON cannot write (NaN, ±Infinity), is handed to node-postgres as before.
 */

type Element = string | number | boolean | null;

/** `values` as array text when JSON writes it exactly so; otherwise `values`, for node-postgres. */
export function arrayParameter<T extends Element>(values: readonly T[]): string | readonly T[] {
  for (const value of values) if (typeof value === "number" && !Number.isFinite(value)) return values;
  const json = JSON.stringify(values);
  if (OTHER_ESCAPE.test(json)) return values;
  return `{${json.slice(1, -1)}}`;
}

/**
 * An escape other than `\"` and `\\`: after any run of escaped backslashes, a backslash followed by
 * anything but `"` or another backslash.
 */
const OTHER_ESCAPE = /(?<!\\)(?:\\\\)*\\[^"\\]/;
