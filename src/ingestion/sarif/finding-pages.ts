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
