import { resolveCoveragePath } from "./paths.ts";
import {
  type CoverageCounts,
  type CoverageErrorLocation,
  type CoverageFormat,
  CoverageFormatError,
  type CoveragePathOptions,
  type CoverageReport,
  type CoverageTotals,
  type DeclaredMeasure,
  type DeclaredTotalsMismatch,
  type FileCoverage,
  type LineCoverage,
} from "./types.ts";

interface LineState {
  hits: number | null;
  branches?: CoverageCounts;
  conditions?: CoverageCounts;
  /** Identified branch outcomes (LCOV's `block,branch`), so repeated records merge outcome by outcome. */
  outcomes?: Map<string, number>;
}

/** A file's own summary (LCOV LF/LH, BRF/BRH), used only when the report gives no line detail. */
export interface FileSummary {
  lines?: CoverageCounts;
  branches?: CoverageCounts;
}

/** Handle on one file being accumulated; obtained from {@link CoverageAccumulator.file}. */
export interface FileHandle {
  /** Repository-relative, or the resolved path of a file outside the repository. */
  readonly path: string;
  readonly outside: boolean;
}

interface FileState extends FileHandle {
  lines: Map<number, LineState>;
  summary: FileSummary;
  /** LCOV branch outcomes on no line (`BRDA:0,…`), by id: in the file's totals, on none of its lines. */
  outcomes?: Map<string, number>;
}

/**
 * Collects what a parser reads, file by file and line by line, merging a file or line the report
 * mentions more than once: hit counts add up (each record is a separate run or class), branch and
 * condition counts keep the larger covered and total (the same branch point seen twice), and LCOV
 * branch outcomes merge by their ids. Files outside the repository are kept apart, and the
 * report's declared totals that disagree with its detail are collected. `build` then computes the
 * totals.
 */
export class CoverageAccumulator {
  private readonly files = new Map<string, FileState>();
  private readonly mismatches: DeclaredTotalsMismatch[] = [];

  constructor(
    private readonly format: CoverageFormat,
    private readonly pathOptions: CoveragePathOptions,
  ) {}

  /**
   * The file for a path as the report writes it, created on first use. It lies outside the
   * repository by the rule of `resolveCoveragePath`, unless the parser knows better (`outside`).
   */
  file(rawPath: string, where: CoverageErrorLocation, outside?: boolean): FileHandle {
    const resolved = resolveCoveragePath(rawPath, this.pathOptions);
    return this.placedFile(resolved.path, where, outside ?? resolved.outside);
  }

  /**
   * The file for a path the parser has already placed with the report's path options (a
   * Cobertura filename joined with its source, a Go profile's file in its module), which must not
   * be placed a second time: a relative path would go into the report's directory again.
   */
  placedFile(path: string, where: CoverageErrorLocation, outside: boolean): FileHandle {
    if (path === "" || path === ".") {
      throw new CoverageFormatError(this.format, "a file has an empty path", where);
    }
    const id = `${outside ? "outside" : "inside"}\u0000${path}`;
    let state = this.files.get(id);
    if (state === undefined) {
      state = { path, outside, lines: new Map(), summary: {} };
      this.files.set(id, state);
    }
    return state;
  }

  /**
   * Records a total the report declares (for `path`, or for the whole report when null) when it
   * differs from the same measure counted from the detail.
   */
  compareDeclared(
    path: string | null,
    measure: DeclaredMeasure,
    source: string,
    declared: CoverageCounts,
    counted: CoverageCounts,
  ): void {
    if (declared.covered === counted.covered && declared.total === counted.total) return;
    this.mismatches.push({ path, measure, source, declared: { ...declared }, counted: { ...counted } });
  }

  /** Totals over every file read so far, those outside the repository included (for report-wide declarations). */
  totalsOfAll(): CoverageTotals {
    return sumTotals([...this.files.values()].map((state) => finishFile(state).totals));
  }

  /** Adds an execution count for a line. */
  addHits(file: FileHandle, line: number, hits: number): void {
    const state = this.line(file, line);
    state.hits = (state.hits ?? 0) + hits;
  }

  /** Records branch outcomes covered / total for a line. */
  addBranches(file: FileHandle, line: number, counts: CoverageCounts): void {
    const state = this.line(file, line);
    state.branches = mergeCounts(state.branches, counts);
  }

  /** Records condition outcomes covered / total for a line. */
  addConditions(file: FileHandle, line: number, counts: CoverageCounts): void {
    const state = this.line(file, line);
    state.conditions = mergeCounts(state.conditions, counts);
  }

  /** Records how often one identified branch outcome (LCOV BRDA, an OpenClover decision's true or false) was taken. */
  addBranchOutcome(file: FileHandle, line: number, id: string, taken: number): void {
    const state = this.line(file, line);
    state.outcomes ??= new Map();
    state.outcomes.set(id, (state.outcomes.get(id) ?? 0) + taken);
  }

  /** Records an LCOV branch outcome of the file that names no line (`BRDA:0,…`). */
  addFileBranchOutcome(file: FileHandle, id: string, taken: number): void {
    const state = file as FileState;
    state.outcomes ??= new Map();
    state.outcomes.set(id, (state.outcomes.get(id) ?? 0) + taken);
  }

  /** Keeps a file's own summary counts, merged by sum over repeated records. */
  addSummary(file: FileHandle, summary: FileSummary): void {
    const state = file as FileState;
    if (summary.lines) state.summary.lines = sumCounts(state.summary.lines, summary.lines);
    if (summary.branches) state.summary.branches = sumCounts(state.summary.branches, summary.branches);
  }

  /** The finished report: the repository's files and those outside it, each ordered by path. */
  build(): CoverageReport {
    const byPath = (a: FileState, b: FileState) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
    const states = [...this.files.values()].sort(byPath);
    const files = states.filter((state) => !state.outside).map(finishFile);
    const excluded = states
      .filter((state) => state.outside)
      .map((state) => ({ path: state.path, totals: finishFile(state).totals }));
    // A file outside the repository is not counted: its own totals say nothing about the figures.
    const outside = new Set(excluded.map((file) => file.path));
    return {
      format: this.format,
      files,
      totals: sumTotals(files.map((f) => f.totals)),
      excluded,
      mismatches: this.mismatches.filter((mismatch) => mismatch.path === null || !outside.has(mismatch.path)),
    };
  }

  private line(file: FileHandle, line: number): LineState {
    const lines = (file as FileState).lines;
    let state = lines.get(line);
    if (state === undefined) {
      state = { hits: null };
      lines.set(line, state);
    }
    return state;
  }
}

function finishFile(state: FileState): FileCoverage {
  const lines: LineCoverage[] = [...state.lines.entries()]
    .sort(([a], [b]) => a - b)
    .map(([line, s]) => {
      const entry: LineCoverage = { line, hits: s.hits };
      const branches = s.outcomes ? mergeCounts(s.branches, countOutcomes(s.outcomes)) : s.branches;
      if (branches) entry.branches = branches;
      if (s.outcomes && !s.branches) entry.outcomes = outcomesInIdOrder(s.outcomes);
      if (s.conditions) entry.conditions = s.conditions;
      return entry;
    });
  const totals: CoverageTotals = {
    lines: { covered: 0, total: 0 },
    branches: { covered: 0, total: 0 },
    conditions: null,
  };
  let hasLineDetail = false;
  let hasBranchDetail = false;
  for (const entry of lines) {
    if (entry.hits !== null) {
      hasLineDetail = true;
      totals.lines.total += 1;
      if (entry.hits > 0) totals.lines.covered += 1;
    }
    if (entry.branches) {
      hasBranchDetail = true;
      totals.branches = sumCounts(totals.branches, entry.branches);
    }
    if (entry.conditions) totals.conditions = sumCounts(totals.conditions ?? undefined, entry.conditions);
  }
  if (state.outcomes) {
    hasBranchDetail = true;
    totals.branches = sumCounts(totals.branches, countOutcomes(state.outcomes));
  }
  if (!hasLineDetail && state.summary.lines) totals.lines = state.summary.lines;
  if (!hasBranchDetail && state.summary.branches) totals.branches = state.summary.branches;
  return { path: state.path, lines, totals };
}

/** Each outcome taken or not, ordered by id: comma-separated parts, numbers compared as numbers. */
function outcomesInIdOrder(outcomes: Map<string, number>): boolean[] {
  return [...outcomes.entries()].sort(([a], [b]) => compareIds(a, b)).map(([, taken]) => taken > 0);
}

function compareIds(a: string, b: string): number {
  const left = a.split(",");
  const right = b.split(",");
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] ?? "";
    const y = right[i] ?? "";
    if (x === y) continue;
    if (/^\d+$/.test(x) && /^\d+$/.test(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return 0;
}

function countOutcomes(outcomes: Map<string, number>): CoverageCounts {
  let covered = 0;
  for (const taken of outcomes.values()) if (taken > 0) covered += 1;
  return { covered, total: outcomes.size };
}

function mergeCounts(a: CoverageCounts | undefined, b: CoverageCounts): CoverageCounts {
  if (a === undefined) return { ...b };
  return { covered: Math.max(a.covered, b.covered), total: Math.max(a.total, b.total) };
}

function sumCounts(a: CoverageCounts | undefined, b: CoverageCounts): CoverageCounts {
  return { covered: (a?.covered ?? 0) + b.covered, total: (a?.total ?? 0) + b.total };
}

/** Adds up totals; conditions stay null unless some part has them. */
export function sumTotals(parts: CoverageTotals[]): CoverageTotals {
  const totals: CoverageTotals = {
    lines: { covered: 0, total: 0 },
    branches: { covered: 0, total: 0 },
    conditions: null,
  };
  for (const part of parts) {
    totals.lines = sumCounts(totals.lines, part.lines);
    totals.branches = sumCounts(totals.branches, part.branches);
    if (part.conditions) totals.conditions = sumCounts(totals.conditions ?? undefined, part.conditions);
  }
  return totals;
}

/**
 * Reads a non-negative integer count, or throws naming what it is and where. Accepts plain
 * decimal digits only (`1e3`, `0x10`, `1.5` are rejected); values beyond 2^53 are clamped.
 */
export function readCount(
  format: CoverageFormat,
  raw: string | undefined,
  what: string,
  where: CoverageErrorLocation,
): number {
  const text = raw?.trim();
  if (text === undefined || text === "") {
    throw new CoverageFormatError(format, `${what} is missing`, where);
  }
  if (/^-\d+$/.test(text)) throw new CoverageFormatError(format, `${what} is negative: ${text}`, where);
  if (!/^\d+$/.test(text))
    throw new CoverageFormatError(format, `${what} is not a whole number: "${text}"`, where);
  return Math.min(Number(text), Number.MAX_SAFE_INTEGER);
}

/** Reads a 1-based line number, or throws naming where. */
export function readLineNumber(
  format: CoverageFormat,
  raw: string | undefined,
  what: string,
  where: CoverageErrorLocation,
): number {
  const line = readCount(format, raw, what, where);
  if (line < 1) throw new CoverageFormatError(format, `${what} must be 1 or more, got ${line}`, where);
  return line;
}
