import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import { encodeGlobalId } from "../../graphql/global-id.ts";
import {
  findArtifactKeysByIds,
  findProcessedArtifactIdsOfCheck,
} from "../../modules/artifacts/artifact-store.ts";
import { countCheckFindingsByState } from "../../modules/checks/issue-count-store.ts";
import {
  deleteOccurrencesReportedElsewhere,
  type ReportedElsewhere,
} from "../../modules/checks/occurrence-write-store.ts";
import type { ProcessStep } from "../types.ts";
import { checkFindingPages } from "./finding-pages.ts";

/**
 * The same findings reported twice to one check (docs/ingestion.md "The same findings reported
 * twice"): a finding of a report is left out when another published finding of its check has its
 * fingerprint, and the artifact's result says how many and which artifact holds them. Rows are
 * left out before they are written, against the check's findings as staging read them before the
 * first row (or, for a check holding too many to remember, looked up by PostgreSQL as each batch
 * is written), and at publication again when the check gained a published artifact meanwhile.
 */

/**
 * A check holding more findings than this is not read into memory before a report is staged into
 * it (about 120 bytes a finding): PostgreSQL then looks each of the report's rows up as it is
 * written.
 */
const MAX_REMEMBERED_HELD = 200_000;

/** The artifact that holds a finding (null for findings of no artifact, such as the demo's). */
export interface Holder {
  artifactId: string | null;
  artifactKey: string | null;
}

/** What staging saw of the check before it wrote a row. */
export interface CheckAsStaged {
  /** The check's other PROCESSED artifacts, in order. */
  artifactIds: readonly string[];
  /** How many findings the check showed (not RESOLVED), by its issue counts. */
  holds: number;
  /**
   * The check's findings a row of the report must not repeat, by fingerprint, each with the
   * artifact holding it (empty when the check showed none); null when there were more than could
   * be remembered, and PostgreSQL looks each row up as it is written.
   */
  held: ReadonlyMap<string, Holder> | null;
}

/**
 * Reads what the check shows before `artifactId` is staged into it, a page per step: its
 * published artifacts first, then the findings they hold, while few enough to remember. The
 * findings a check holds only grow while a report is staged (published rows are deleted only with
 * their run), and those of an artifact published after its artifacts were read are left out at
 * publication ({@link leaveOutAtPublication}).
 */
export async function readCheckAsStaged(
  step: ProcessStep,
  checkId: string,
  artifactId: string,
  {
    pageSize,
    remembered = MAX_REMEMBERED_HELD,
    worthReading = Number.POSITIVE_INFINITY,
  }: { pageSize: number; remembered?: number | undefined; worthReading?: number | undefined },
): Promise<CheckAsStaged> {
  const { artifactIds, holds } = await step(async (tx) => {
    const counts = await countCheckFindingsByState(tx, checkId);
    return {
      artifactIds: (await findProcessedArtifactIdsOfCheck(tx, checkId)).filter((id) => id !== artifactId),
      holds: counts.introduced + counts.existing,
    };
  });
  if (holds === 0) return { artifactIds, holds, held: new Map() };
  if (holds > Math.min(remembered, worthReading)) return { artifactIds, holds, held: null };
  // One holder object per artifact, its key filled in once all are known: a finding costs its map entry only.
  const holders = new Map<string | null, { artifactId: string | null; artifactKey: string | null }>();
  const held = new Map<string, Holder>();
  let count = 0;
  for await (const rows of checkFindingPages(step, checkId, pageSize, { heldApartFrom: artifactId })) {
    count += rows.length;
    if (count > remembered) return { artifactIds, holds, held: null };
    for (const row of rows) {
      if (held.has(row.fingerprint)) continue;
      let holder = holders.get(row.artifactId);
      if (holder === undefined) {
        holder = { artifactId: row.artifactId, artifactKey: null };
        holders.set(row.artifactId, holder);
      }
      held.set(row.fingerprint, holder);
    }
  }
  const ids = [...holders.keys()].filter((id): id is string => id !== null);
  const keys =
    ids.length === 0 ? new Map<string, string>() : await step((tx) => findArtifactKeysByIds(tx, ids));
  for (const holder of holders.values())
    if (holder.artifactId !== null) holder.artifactKey = keys.get(holder.artifactId) ?? null;
  return { artifactIds, holds, held };
}

/**
 * At `artifactId`'s publication: when the check gained a published artifact since `staged` was
 * read, deletes the artifact's rows whose findings the check now holds, and answers them. The
 * run's lock, which every publication takes first, keeps another from publishing meanwhile.
 */
export async function leaveOutAtPublication(
  tx: Kysely<Database>,
  checkId: string,
  artifactId: string,
  staged: CheckAsStaged,
): Promise<ReportedElsewhere[]> {
  const now = (await findProcessedArtifactIdsOfCheck(tx, checkId)).filter((id) => id !== artifactId);
  const gained = now.some((id) => !staged.artifactIds.includes(id));
  return gained ? deleteOccurrencesReportedElsewhere(tx, checkId, artifactId) : [];
}

/** The findings of one report left out as already reported, by the artifact that holds them. */
export class AlreadyReported {
  private readonly byHolder = new Map<string | null, ReportedElsewhere>();

  /** Adds one finding left out because `holder` holds it. */
  addOne(holder: Holder, suppressed: boolean): void {
    const known = this.byHolder.get(holder.artifactId);
    if (known === undefined)
      this.byHolder.set(holder.artifactId, { ...holder, findings: 1, suppressed: suppressed ? 1 : 0 });
    else {
      known.findings += 1;
      if (suppressed) known.suppressed += 1;
    }
  }

  /** Adds findings left out, as a store answered them. */
  add(rows: readonly ReportedElsewhere[]): void {
    for (const row of rows) {
      const known = this.byHolder.get(row.artifactId);
      if (known === undefined) this.byHolder.set(row.artifactId, { ...row });
      else {
        known.findings += row.findings;
        known.suppressed += row.suppressed;
      }
    }
  }

  /** These findings and `rows` together, leaving this one as it is. */
  with(rows: readonly ReportedElsewhere[]): AlreadyReported {
    const all = new AlreadyReported();
    all.add([...this.byHolder.values()]);
    all.add(rows);
    return all;
  }

  /** Findings left out. */
  get findings(): number {
    return this.sum("findings");
  }

  /** Suppressed findings among those left out. */
  get suppressed(): number {
    return this.sum("suppressed");
  }

  /** One sentence per artifact holding some of them, in upload order. */
  warnings(): string[] {
    return [...this.byHolder.values()]
      .sort((a, b) => Number(a.artifactId ?? 0) - Number(b.artifactId ?? 0))
      .map(({ artifactKey, findings }) => {
        const where =
          artifactKey === null
            ? "among the check's findings"
            : `reported by artifact ${encodeGlobalId("Artifact", artifactKey)} of this check`;
        return `${findings} result(s) were already ${where} (the same findings, by fingerprint) and were not counted again.`;
      });
  }

  private sum(field: "findings" | "suppressed"): number {
    let total = 0;
    for (const row of this.byHolder.values()) total += row[field];
    return total;
  }
}
