/**
 * Whether the database could be reached, as the API sees it: errors that mean "no connection"
 * (rather than a bad statement) are told apart here so that a request failing on them gets 503
 * instead of 500, and an outage is logged once when it starts and once when it ends.
 */

/** Node's socket errors for a server that is gone or unreachable. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENOTFOUND",
]);
/**
 * PostgreSQL SQLSTATEs of the server going away (Appendix A): class 08 "connection exception",
 * and 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now.
 */
const SERVER_GONE_STATES = new Set(["57P01", "57P02", "57P03"]);
/** What node-postgres says when the pool or a connection fails without a code. */
const DRIVER_MESSAGES =
  /timeout exceeded when trying to connect|connection terminated|terminating connection|Connection terminated unexpectedly|Client has encountered a connection error/i;

/** True when `error` (or what it wraps) means the database cannot be reached right now. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== "object") return false;
  const { code, message, cause, originalError, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    originalError?: unknown;
    errors?: unknown;
  };
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code) || SERVER_GONE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (typeof message === "string" && DRIVER_MESSAGES.test(message)) return true;
  // Node reports a refused dual-stack connect as an AggregateError of one error per address.
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1) || isDatabaseUnavailable(originalError, depth + 1);
}

/** The two lines an outage logs: when it starts, and when it ends. */
export interface OutageMessages {
  down: string;
  up: string;
}

/** The API's lines: requests are what an outage fails. */
const REQUEST_OUTAGE: OutageMessages = {
  down: "database unavailable: requests get 503 until it answers again",
  up: "database available again",
};

/**
 * Remembers whether the database is down: `failed` logs one warning when an outage starts,
 * `succeeded` one line when a statement works again; in between, nothing more is logged.
 */
export class DatabaseAvailability {
  private downSince: number | undefined;
  private failures = 0;

  constructor(
    private readonly logger: { warn(fields: object, message: string): void },
    private readonly messages: OutageMessages = REQUEST_OUTAGE,
  ) {}

  /** Something (a request, a poll) failed because the database could not be reached. */
  failed(error: unknown): void {
    this.failures++;
    if (this.downSince !== undefined) return;
    this.downSince = Date.now();
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn({ reason }, this.messages.down);
  }

  /** A statement ran: ends an outage, if there was one. */
  succeeded(): void {
    if (this.downSince === undefined) return;
    const downForMs = Date.now() - this.downSince;
    this.logger.warn({ downForMs, failures: this.failures }, this.messages.up);
    this.downSince = undefined;
    this.failures = 0;
  }

  /** True between a failure and the next success. */
  get isDown(): boolean {
    return this.downSince !== undefined;
  }
}
