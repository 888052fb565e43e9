import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import { encodeGlobalId } from "../../graphql/global-id.ts";
import { findProcessedArtifactIdsOfCheck } from "../../modules/artifacts/artifact-store.ts";
import { countCheckFindingsByState } from "../../modules/checks/issue-count-store.ts";
import {
  deleteOccurrencesReportedElsewhere,
  type ReportedElsewhere,
} from "../../modules/checks/occurrence-write-store.ts";

/**
 * The same findings reported twice to one check (docs/ingestion.md "The same findings reported
 * twice"): a finding of a report is left out when another published finding of its check has its
 * fingerprint, and the artifact's result says how many and which artifact holds them. Rows are
 * left out as each batch is written (the check's published findings are looked up then), and at
 * publication again when the check gained a published artifact meanwhile.
 */

/** What staging saw of the check before it wrote a row. */
export interface CheckAsStaged {
  /** The check's other PROCESSED artifacts, in order. */
  artifactIds: readonly string[];
  /** True when the check showed findings (not RESOLVED ones): each row must then be looked up. */
  holdsFindings: boolean;
}

/** Reads what the check shows before `artifactId` is staged into it. */
export async function readCheckAsStaged(
  tx: Kysely<Database>,
  checkId: string,
  artifactId: string,
): Promise<CheckAsStaged> {
  const artifactIds = (await findProcessedArtifactIdsOfCheck(tx, checkId)).filter((id) => id !== artifactId);
  const counts = await countCheckFindingsByState(tx, checkId);
  return { artifactIds, holdsFindings: counts.introduced + counts.existing > 0 };
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
