import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import type { SarifToolError } from "../../formats/sarif/types.ts";
import { isUnstorableText } from "../../graphql/variables.ts";
import {
  deleteArtifactAnalyzedPaths,
  insertArtifactAnalyzedPaths,
} from "../../modules/artifacts/artifact-analyzed-path-store.ts";
import { MAX_UNANALYZED_PATHS } from "../sarif-validate.ts";
import type { ProcessStep } from "../types.ts";

/**
 * The files an artifact's report says its tool analyzed (`artifact_analyzed_paths`,
 * docs/ingestion.md "Status"): those it gave a finding in, whatever became of the finding, and
 * those its runs list among their `artifacts` (ESLint lists every file it linted), less those a
 * notification of the tool names: a file ESLint could not parse, or was given and ignored, is
 * listed too. The files are written a batch per step while the report is read, so memory holds
 * one batch however many files the report lists; the named ones are left out at publication,
 * since a notification may come after the list (ESLint writes its invocations last).
 */
export class AnalyzedFiles {
  private batch = new Set<string>();
  private readonly named = new Set<string>();
  private tooManyNamed = false;

  constructor(
    private readonly artifactId: string,
    private readonly batchSize: number,
  ) {}

  /** Notes a file the tool analyzed. True when a batch is full: {@link write} it then. */
  add(path: string): boolean {
    // A path PostgreSQL cannot store names no stored finding either.
    if (!isUnstorableText(path)) this.batch.add(path);
    return this.batch.size >= this.batchSize;
  }

  /** Notes a file a notification of the tool names (below `error`): not analyzed, whatever else says so. */
  name(path: string): void {
    if (this.named.size < MAX_UNANALYZED_PATHS) this.named.add(path);
    else this.tooManyNamed = true;
  }

  /** Notes the files an error of the tool says it could not analyze. */
  nameUnanalyzed(error: SarifToolError): void {
    if (error.configuration === true) return;
    if (error.unanalyzedPath !== undefined) this.name(error.unanalyzedPath);
    for (const path of error.alsoUnanalyzed ?? []) this.name(path);
  }

  /** Writes the files noted since the last batch, in a step of their own. */
  async write(step: ProcessStep): Promise<void> {
    if (this.batch.size === 0) return;
    const paths = [...this.batch];
    this.batch = new Set();
    await step((tx) => insertArtifactAnalyzedPaths(tx, this.artifactId, paths));
  }

  /**
   * At publication, leaves out the files the tool's notifications named. When they named more
   * than {@link MAX_UNANALYZED_PATHS}, which files the tool analyzed is not known, and the
   * artifact keeps none: a file another shard could not analyze keeps its base findings.
   */
  async publish(tx: Kysely<Database>): Promise<void> {
    await deleteArtifactAnalyzedPaths(tx, this.artifactId, this.tooManyNamed ? undefined : [...this.named]);
  }
}
