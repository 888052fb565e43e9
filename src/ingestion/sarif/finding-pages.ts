import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import {
  findOccurrenceFingerprintPage,
  type OccurrencePosition,
} from "../../modules/checks/occurrence-write-store.ts";
import type { ProcessStep } from "../types.ts";

type FingerprintPage = Awaited<ReturnType<typeof findOccurrenceFingerprintPage>>;

/**
 * A check's non-RESOLVED findings, a page per step, in the order of its (check, path, line, key)
 * index: the base check's, or with `heldApartFrom` those of its findings that hold a fingerprint
 * against that artifact's rows. `first` runs in the first page's step, before it is read.
 */
export async function* checkFindingPages(
  step: ProcessStep,
  checkId: string,
  pageSize: number,
  { first, heldApartFrom }: { first?: (tx: Kysely<Database>) => Promise<void>; heldApartFrom?: string } = {},
): AsyncGenerator<FingerprintPage["rows"]> {
  let after: OccurrencePosition | null = null;
  do {
    const page: FingerprintPage = await step(async (tx) => {
      if (after === null) await first?.(tx);
      return findOccurrenceFingerprintPage(tx, checkId, after, pageSize, heldApartFrom);
    });
    yield page.rows;
    after = page.next;
  } while (after !== null);
}

/**
 * Bytes a finding takes in a report, about: SARIF's results run 300 to 1,000 (a location, a
 * message, a rule id), a checkstyle `<error …/>` line 100 to 150.
 */
const REPORT_BYTES_A_FINDING = 200;

/**
 * How many of a check's findings are worth reading into memory before a report of `reportBytes`
 * is staged against them (the base's, or the check's own), rather than having PostgreSQL look
 * each of the report's rows up as it is written: reading costs every finding of the check (3-4 µs
 * of Node and PostgreSQL a finding), a lookup every row of the report (5-10 µs of PostgreSQL), so
 * a check of more than about twice the report's findings is looked up (docs/benchmarks.md "A
 * small shard into a large check"). Undefined when the report's size is not known (an artifact
 * stored before migration 0010): the findings are read, up to the readers' own limits.
 */
export function findingsWorthReading(reportBytes: string | number | null): number | undefined {
  if (reportBytes === null) return undefined;
  return 2 * Math.ceil(Number(reportBytes) / REPORT_BYTES_A_FINDING);
}
