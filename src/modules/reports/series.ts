/**
 * The arithmetic of report histories (docs/reports.md): a scope's value at an instant is the sum,
 * over its slots, of the counts of each slot's latest fact created before that instant. A slot is
 * what a newer fact replaces: one analyzer of a repository for its findings (its current check),
 * a repository for the insights. Pure functions; the store supplies the facts.
 */

/** What one fact (a check of a run, a run, a recorded value) contributes to a report: named counts. */
export interface RunCounts {
  /** What a newer fact replaces: a repository, or an analyzer of a repository. */
  slot: string;
  /** When the run was created, in epoch milliseconds. */
  at: number;
  /** The run key, which breaks ties between runs created at the same instant. */
  key: string;
  counts: ReadonlyMap<string, number>;
}

const DAY_MS = 86_400_000;

/** The longest range `values(startDate, endDate)` accepts, in days (both ends included). */
export const MAX_RANGE_DAYS = 366;

function compareRuns(a: RunCounts, b: RunCounts): number {
  return a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/**
 * The scope's counts at each instant (exclusive: a fact created exactly at an instant does not
 * count yet), each slot's latest fact before it summed, for instants in any order. One sweep over
 * the facts sorted by time, keeping running totals, so the cost is facts + instants rather than
 * their product.
 */
export function countsAt(
  runs: readonly RunCounts[],
  instants: readonly number[],
): Array<Map<string, number>> {
  const sorted = [...runs].sort(compareRuns);
  const order = instants.map((instant, index) => ({ instant, index })).sort((a, b) => a.instant - b.instant);
  const answers: Array<Map<string, number>> = new Array(instants.length);
  const latest = new Map<string, RunCounts>();
  const totals = new Map<string, number>();
  const add = (counts: ReadonlyMap<string, number>, sign: number) => {
    for (const [name, value] of counts) totals.set(name, (totals.get(name) ?? 0) + sign * value);
  };
  let next = 0;
  for (const { instant, index } of order) {
    while (next < sorted.length && sorted[next]!.at < instant) {
      const run = sorted[next++]!;
      const previous = latest.get(run.slot);
      if (previous) add(previous.counts, -1);
      add(run.counts, 1);
      latest.set(run.slot, run);
    }
    answers[index] = new Map(totals);
  }
  return answers;
}

/**
 * The facts with the count `name` replaced by its running total over each slot's facts up to and
 * including that one, in time order. A count that each run adds to (events, such as
 * findings resolved) becomes a level, which the sweep can sum; its growth over a day is then what
 * the runs of that day added.
 */
export function accumulated(runs: readonly RunCounts[], name: string): RunCounts[] {
  const totals = new Map<string, number>();
  return [...runs].sort(compareRuns).map((run) => {
    const total = (totals.get(run.slot) ?? 0) + (run.counts.get(name) ?? 0);
    totals.set(run.slot, total);
    return { ...run, counts: new Map(run.counts).set(name, total) };
  });
}

/** The scope's counts now: every slot's latest fact. */
export function currentCounts(runs: readonly RunCounts[]): Map<string, number> {
  return countsAt(runs, [Number.POSITIVE_INFINITY])[0]!;
}

/**
 * The days from `startDate` to `endDate` (YYYY-MM-DD, both included), each with the instants that
 * start it (its midnight UTC) and end it (midnight UTC of the next day). Throws a RangeError when the range is reversed or longer
 * than {@link MAX_RANGE_DAYS}.
 */
export function daysBetween(
  startDate: string,
  endDate: string,
): Array<{ date: string; start: number; end: number }> {
  const start = Date.parse(`${startDate}T00:00:00Z`);
  const end = Date.parse(`${endDate}T00:00:00Z`);
  if (end < start) throw new RangeError("endDate must not be before startDate");
  const count = (end - start) / DAY_MS + 1;
  if (count > MAX_RANGE_DAYS) throw new RangeError(`The range may span at most ${MAX_RANGE_DAYS} days`);
  return Array.from({ length: count }, (_, i) => {
    const day = start + i * DAY_MS;
    return { date: new Date(day).toISOString().slice(0, 10), start: day, end: day + DAY_MS };
  });
}

/** `Trend`: a past value and how the current value compares with it. */
export interface TrendValue {
  label: string;
  /** Null when the report stores nothing to compare (issues autofixed). */
  value: number | null;
  changePercentage: number | null;
}

/** The periods trends compare with, in months. */
export const TREND_MONTHS = [1, 3, 6, 12] as const;

/** `now` moved back by whole calendar months (UTC), clamped to the end of a shorter month. */
export function monthsBefore(now: Date, months: number): Date {
  const target = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(now.getUTCDate(), lastDay));
  target.setUTCHours(now.getUTCHours(), now.getUTCMinutes(), now.getUTCSeconds(), now.getUTCMilliseconds());
  return target;
}

/**
 * Percentage change from `then` to `now`, to two decimals, a half away from zero (a rise and a
 * fall of the same size read the same); null when `then` is 0 (no base). Counts are divided as
 * integers, so that no binary fraction decides a half: 800 to 1,001 is +25.125%, answered 25.13.
 */
export function changePercentage(now: number, then: number): number | null {
  if (then === 0) return null;
  if (Number.isSafeInteger(now) && Number.isSafeInteger(then)) {
    const numerator = (BigInt(now) - BigInt(then)) * 10_000n;
    const divisor = BigInt(then);
    const magnitude = abs(numerator);
    const whole = magnitude / abs(divisor);
    const rounded = (magnitude % abs(divisor)) * 2n >= abs(divisor) ? whole + 1n : whole;
    const negative = numerator < 0n !== divisor < 0n;
    return Number(negative ? -rounded : rounded) / 100;
  }
  const hundredths = ((now - then) / then) * 10_000;
  return (Math.sign(hundredths) * Math.round(Math.abs(hundredths))) / 100;
}

function abs(value: bigint): bigint {
  return value < 0n ? -value : value;
}

/** A trend's label: `1 month ago`, `3 months ago`, ... */
export function trendLabel(months: number): string {
  return months === 1 ? "1 month ago" : `${months} months ago`;
}

/**
 * The trends of one number read from the counts (a named count, or a value derived from several):
 * now against 1, 3, 6 and 12 months ago. A null reading (nothing to read then) has no change.
 */
export function trendsOf(
  runs: readonly RunCounts[],
  read: (counts: ReadonlyMap<string, number>) => number | null,
  now: Date,
): TrendValue[] {
  const instants = TREND_MONTHS.map((months) => monthsBefore(now, months).getTime());
  const [current, ...past] = countsAt(runs, [Number.POSITIVE_INFINITY, ...instants]);
  const value = read(current!);
  return TREND_MONTHS.map((months, i) => {
    const then = read(past[i]!);
    return {
      label: trendLabel(months),
      value: then,
      changePercentage: value === null || then === null ? null : changePercentage(value, then),
    };
  });
}
