/** A `CoverageFile` as tests select it: every field, the figures of each measure in full. */

/** The selection of a `CoverageFile` that {@link CoverageFileOut} describes. */
export const FILE_FIELDS = `path key reportCount lineCoverage branchCoverage conditionCoverage uncoveredLines
  lines { total covered new newCovered } branches { total covered new newCovered }
  conditions { total covered new newCovered }`;

/** `CoverageFileCounts`: one measure of one file. */
export interface FileCounts {
  total: number;
  covered: number;
  new: number | null;
  newCovered: number | null;
}

/** A `CoverageFile` selected with {@link FILE_FIELDS}. */
export interface CoverageFileOut {
  path: string;
  key: string;
  reportCount: number;
  lineCoverage: number | null;
  branchCoverage: number | null;
  conditionCoverage: number | null;
  uncoveredLines: number[];
  lines: FileCounts;
  branches: FileCounts;
  conditions: FileCounts | null;
}
