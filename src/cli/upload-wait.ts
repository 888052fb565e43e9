import { setTimeout as sleep } from "node:timers/promises";
import { CliError, EXIT_FAILED, EXIT_OK, OutcomeUnknownError } from "./command.ts";
import { queryGraphql } from "./upload-request.ts";

/**
 * `assay upload --wait`: after the upload is accepted, follow its artifact and the artifact's
 * check through the API until processing settled them, then read the result in one request
 * (docs/ingestion.md "What it does and prints"). Polling backs off from one second to ten, so a
 * long queue costs a few requests a minute.
 */

/** Check states that are a verdict: the check passed. */
const PASSING = new Set(["SUCCESS", "SKIPPED"]);
/**
 * Check states that are a verdict: the check did not pass. NEUTRAL is among them: processing
 * stored nothing of what the check was sent (every result outside the repository...), so it
 * judged nothing, and a gate that passed would hide that.
 */
const FAILING = new Set(["FAILURE", "NEUTRAL", "TIMEOUT", "ARTIFACT_TIMEOUT", "CANCEL"]);

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 10_000;
const GROWTH = 1.6;

/**
 * Polled until settled: the uploaded artifact's state, its check's (the artifact names its own
 * check, so no shortcode has to match) and the run's.
 */
const STATE_QUERY =
  "query AssayUploadState($runUid: UUID!, $artifactId: ID!) { artifact: node(id: $artifactId) { ... on Artifact { status check { status } } } run(runUid: $runUid) { status } }";

/** Read once when settled: the artifact, its check's verdict, summary and metrics, and the run. */
const RESULT_QUERY = `query AssayUploadResult($runUid: UUID!, $artifactId: ID!) {
  artifact: node(id: $artifactId) { ... on Artifact {
    kind status format error readCount storedCount skippedCount skipped { reason count } warnings
    check {
      status analyzer { shortcode }
      summary { occurrencesIntroduced occurrencesResolved occurrencesSuppressed
        occurrenceDistributionByCategory { category introduced }
        occurrenceDistributionBySeverity { severity introduced } }
      metrics { shortcode name unit items { key latestValueDisplay threshold thresholdStatus } }
    }
  } }
  run(runUid: $runUid) { runUid status }
}`;

/**
 * The query behind the printed link: the run, each check's totals and its first findings. The
 * link is the GET form of this query on `/graphql/`: a browser opens it in the playground, as a
 * tab to run with the token the browser keeps, and `curl` with the token answers it.
 */
const LINK_QUERY =
  "query AssayRun($runUid: UUID!) { run(runUid: $runUid) { runUid status commitOid branchName checks { edges { node { analyzer { shortcode } status summary { occurrencesIntroduced occurrencesResolved } issues(first: 50) { totalCount edges { node { path beginLine category severity title } } } } } } } }";

/** What polling sees: the artifact's state, the run's, and its check's when it has one for the analyzer. */
export interface UploadState {
  artifactStatus: string | null;
  runStatus: string;
  checkStatus: string | null;
}

/** What processing made of the uploaded report. */
export interface ArtifactResult {
  kind: string;
  status: string;
  format: string | null;
  error: string | null;
  readCount: number | null;
  storedCount: number | null;
  skippedCount: number | null;
  skipped: Array<{ reason: string; count: number }>;
  warnings: string[];
}

/** A metric the check recorded, one line per item. */
export interface MetricResult {
  shortcode: string;
  name: string;
  unit: string | null;
  /** `value` as the server displays it (`83.4%`); null when the check recorded none. */
  items: Array<{
    key: string;
    value: string | null;
    threshold: number | null;
    thresholdStatus: string | null;
  }>;
}

/** The check's result, read once processing settled it. */
export interface CheckResult {
  analyzer: string;
  status: string;
  introduced: number;
  resolved: number;
  suppressed: number;
  /** New findings by category, categories without any left out. */
  newByCategory: Array<{ category: string; count: number }>;
  /** New findings by severity (each finding's own), from CRITICAL to MINOR, severities without any left out. */
  newBySeverity: Array<{ severity: string; count: number }>;
  metrics: MetricResult[];
}

/** Everything `--wait` prints and decides on. */
export interface WaitOutcome {
  runUid: string;
  runStatus: string;
  /** Null when the run has no check of the analyzer (`changes` uploads). */
  check: CheckResult | null;
  /** Null only when the server answered no artifact. */
  artifact: ArtifactResult | null;
  link: string;
}

/**
 * The wait before poll number `attempt` (from 0): 1 s growing by 1.6 up to 10 s, give or take
 * 10 % so CI jobs that uploaded together do not poll in step.
 */
export function pollDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * GROWTH ** attempt);
  return Math.round(base * (0.9 + 0.2 * random()));
}

/**
 * True when the state is final: the artifact is processed (or failed) and its check is no longer
 * pending. A check can settle on another artifact before this one is processed, so both are asked.
 * Changed lines have no check: their artifact alone decides, since the run may wait for other
 * analyzers' uploads. Without an answer about the artifact, the check, else the run, decides.
 */
export function isSettled(state: UploadState): boolean {
  if (state.artifactStatus === "QUEUED") return false;
  if (state.checkStatus === null && state.artifactStatus !== null) return true;
  const status = state.checkStatus ?? state.runStatus;
  return PASSING.has(status) || FAILING.has(status);
}

/**
 * The exit code of a settled upload: 1 when its artifact failed to process; else 0 when its check
 * passed (without a check: when the artifact was processed, else when the run passed); else 1.
 */
export function verdictOf(outcome: Pick<WaitOutcome, "check" | "runStatus" | "artifact">): number {
  if (outcome.artifact?.status === "FAILED") return EXIT_FAILED;
  if (!outcome.check && outcome.artifact) return EXIT_OK;
  const status = outcome.check?.status ?? outcome.runStatus;
  return PASSING.has(status) ? EXIT_OK : EXIT_FAILED;
}

/** The GET form of {@link LINK_QUERY} for this run on the server's `/graphql/`. */
export function runLink(url: string, runUid: string): string {
  const parameters = new URLSearchParams({ query: LINK_QUERY, variables: JSON.stringify({ runUid }) });
  return `${url}/graphql/?${parameters}`;
}

/** The clock and timer of {@link pollUntilSettled}; tests give fake ones. */
export interface PollClock {
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
}

const REAL_CLOCK: PollClock = { now: Date.now, sleep: (ms) => sleep(ms), random: Math.random };

/**
 * Calls `poll` with backoff (see {@link pollDelayMs}) until it answers a settled state or
 * `timeoutMs` passed. A failure that says nothing about the report (unreachable server, 5xx, 429:
 * {@link OutcomeUnknownError}) is retried like a pending answer; any other error ends the wait.
 * Running out of time is an {@link OutcomeUnknownError} naming the last state or failure.
 */
export async function pollUntilSettled(
  poll: () => Promise<UploadState>,
  timeoutMs: number,
  describe: (state: UploadState | null, lastError: Error | null) => string,
  clock: PollClock = REAL_CLOCK,
): Promise<UploadState> {
  const deadline = clock.now() + timeoutMs;
  let state: UploadState | null = null;
  let lastError: Error | null = null;
  for (let attempt = 0; ; attempt++) {
    const left = deadline - clock.now();
    if (left <= 0) throw new OutcomeUnknownError(describe(state, lastError));
    await clock.sleep(Math.min(pollDelayMs(attempt, clock.random), left));
    try {
      state = await poll();
      lastError = null;
    } catch (error) {
      if (!(error instanceof OutcomeUnknownError)) throw error;
      lastError = error;
      continue;
    }
    if (isSettled(state)) return state;
  }
}

/** The upload `--wait` follows. */
export interface WaitTarget {
  url: string;
  token: string;
  runUid: string;
  /** The artifact's global id. */
  artifactId: string;
  analyzer: string;
  timeoutSeconds: number;
}

interface CheckNode {
  status: string;
  analyzer: { shortcode: string };
  summary: {
    occurrencesIntroduced: number;
    occurrencesResolved: number;
    occurrencesSuppressed: number;
    occurrenceDistributionByCategory: Array<{ category: string; introduced: number }>;
    occurrenceDistributionBySeverity: Array<{ severity: string; introduced: number }>;
  };
  metrics: Array<{
    shortcode: string;
    name: string;
    unit: string | null;
    items: Array<{
      key: string;
      latestValueDisplay: string | null;
      threshold: number | null;
      thresholdStatus: string | null;
    }>;
  }>;
}

interface RunAnswer {
  runUid?: string;
  status: string;
}

function runOf(data: Record<string, unknown>): RunAnswer {
  const run = data.run as RunAnswer | null | undefined;
  if (!run) throw new CliError("the server's answer has no run");
  return run;
}

/** The `artifact` alias of an answer; null when the node is not an artifact the token can see. */
function artifactOf<Artifact>(data: Record<string, unknown>): Artifact | null {
  const artifact = data.artifact as (Artifact & { status?: string }) | null | undefined;
  return artifact?.status === undefined ? null : artifact;
}

function checkResultOf(node: CheckNode): CheckResult {
  return {
    analyzer: node.analyzer.shortcode,
    status: node.status,
    introduced: node.summary.occurrencesIntroduced,
    resolved: node.summary.occurrencesResolved,
    suppressed: node.summary.occurrencesSuppressed,
    newByCategory: node.summary.occurrenceDistributionByCategory.map((d) => ({
      category: d.category,
      count: d.introduced,
    })),
    newBySeverity: node.summary.occurrenceDistributionBySeverity.map((d) => ({
      severity: d.severity,
      count: d.introduced,
    })),
    metrics: node.metrics.map((metric) => ({
      shortcode: metric.shortcode,
      name: metric.name,
      unit: metric.unit,
      items: metric.items.map((item) => ({
        key: item.key,
        value: item.latestValueDisplay,
        threshold: item.threshold,
        thresholdStatus: item.thresholdStatus,
      })),
    })),
  };
}

/**
 * Waits until the upload's check is settled, then reads its result. Raises
 * {@link OutcomeUnknownError} when it is not settled within the timeout.
 */
export async function waitForUpload(target: WaitTarget, clock: PollClock = REAL_CLOCK): Promise<WaitOutcome> {
  const variables = { runUid: target.runUid, artifactId: target.artifactId };
  const link = runLink(target.url, target.runUid);
  const readOutcome = async (): Promise<WaitOutcome> => {
    const data = await queryGraphql(target.url, target.token, RESULT_QUERY, variables);
    const run = runOf(data);
    const artifact = artifactOf<ArtifactResult & { check: CheckNode | null }>(data);
    return {
      runUid: run.runUid ?? target.runUid,
      runStatus: run.status,
      check: artifact?.check ? checkResultOf(artifact.check) : null,
      artifact,
      link,
    };
  };
  let outcome: WaitOutcome | undefined;
  await pollUntilSettled(
    async () => {
      const data = await queryGraphql(target.url, target.token, STATE_QUERY, variables);
      const artifact = artifactOf<{ status: string; check: { status: string } | null }>(data);
      const state = {
        artifactStatus: artifact?.status ?? null,
        runStatus: runOf(data).status,
        checkStatus: artifact?.check?.status ?? null,
      };
      // Read here, so a failure of this read is retried like a failed poll.
      if (isSettled(state)) outcome = await readOutcome();
      return state;
    },
    target.timeoutSeconds * 1000,
    (state, lastError) => {
      const what =
        state && isSettled(state)
          ? `the ${target.analyzer} check ended ${state.checkStatus ?? state.runStatus}, but its result could not be read`
          : state?.artifactStatus === "QUEUED"
            ? `the ${target.analyzer} report was still QUEUED, waiting to be processed,`
            : state?.checkStatus
              ? `the ${target.analyzer} check was still ${state.checkStatus}`
              : `the run was still ${state?.runStatus ?? "not answered"}`;
      const why = lastError ? `; the last poll failed: ${lastError.message}` : "";
      return `${what} after ${target.timeoutSeconds} s, so whether it passes is not known (raise --timeout, or follow ${link})${why}`;
    },
    clock,
  );
  if (!outcome) throw new CliError("the result of a settled upload was not read");
  return outcome;
}
