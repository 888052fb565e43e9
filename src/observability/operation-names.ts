/**
 * Bounds the GraphQL operation names used as metric labels and span names: a name is kept while
 * fewer than {@link MAX_OPERATION_NAMES} distinct ones have been seen, so a client inventing names
 * cannot grow the number of series without bound.
 */

/** Distinct operation names kept; later new names count as "other". */
export const MAX_OPERATION_NAMES = 100;
const OPERATION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** The bounded names of one server. */
export class OperationNames {
  private readonly seen = new Set<string>();

  constructor(private readonly max = MAX_OPERATION_NAMES) {}

  /**
   * `name` itself while the set of names stays small; "anonymous" for no name, "other" for a name
   * that is not a plain GraphQL name of up to 64 characters or that comes past the cap.
   */
  label(name: string | undefined): string {
    if (name === undefined || name === "") return "anonymous";
    if (!OPERATION_NAME.test(name)) return "other";
    if (this.seen.has(name)) return name;
    if (this.seen.size >= this.max) return "other";
    this.seen.add(name);
    return name;
  }
}
