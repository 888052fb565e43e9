import type { CoverageCounts } from "./types.ts";

/**
 * Reading the totals a report declares about itself (docs/ingestion-coverage.md "Declared
 * totals"). They are only compared with what the detail holds, never used as figures, so a value
 * that is missing or not a whole number means "nothing declared" rather than a refusal.
 */

/** `{ covered, total }` from two attributes holding whole numbers; undefined when either is not one. */
export function declaredCounts(
  attributes: Readonly<Record<string, string>>,
  coveredName: string,
  totalName: string,
): CoverageCounts | undefined {
  const covered = wholeNumber(attributes[coveredName]);
  const total = wholeNumber(attributes[totalName]);
  return covered === undefined || total === undefined ? undefined : { covered, total };
}

function wholeNumber(text: string | undefined): number | undefined {
  const trimmed = text?.trim();
  return trimmed !== undefined && /^\d{1,15}$/.test(trimmed) ? Number(trimmed) : undefined;
}
