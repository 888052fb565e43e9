import type { ChildProcess } from "node:child_process";
import { ServerResponse } from "node:http";
import { PAT_PREFIX } from "../../src/modules/auth/pat.ts";

/**
 * The suite-wide check that no secret reaches an error answer or a log line (issue 13, item 6;
 * docs/architecture.md "Secrets in logs and errors"). It has three parts, all in this file:
 *
 * - A registry of every secret the test process has seen: the builders register what they mint,
 *   `gql` registers secret-named variables, and every answer any server in the process sends
 *   registers the credential its request carried and the secret-named fields of its data (a
 *   token, a DSN, a webhook secret, a device code), however the test sent the request.
 * - Watched text: each test server's and test logger's log lines, each server process's output,
 *   and the `errors` (and `error` fields) of every JSON answer sent in this process.
 * - Checks: a server's `stop()` fails on a leak in its log or in any answer; at exit, every
 *   watched text is checked again against the whole registry (a secret registered after the line
 *   was written, a server never stopped, a logger with no server), and a leak fails the test
 *   file through its exit code.
 *
 * Besides the registered values, anything shaped like one of our credentials (a personal access
 * token's prefix, a JWT) is a leak wherever it came from.
 */

/** Values shorter than this are not registered: they would match ordinary text by chance. */
const MIN_SECRET_LENGTH = 8;

/** Field names (in variables and in answers' data) whose string values are secrets. */
const SECRET_FIELDS = new Set([
  "accessToken",
  "deviceCode",
  "dsn",
  "refreshToken",
  "secret",
  "token",
  "userCode",
]);

/** Credential shapes that are a leak whether or not a test registered the value. */
const CREDENTIAL_SHAPES: readonly RegExp[] = [
  new RegExp(`${PAT_PREFIX}[A-Za-z0-9_-]{8,}`),
  /eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{8,}/,
];

const secrets = new Set<string>();

/** Remembers `value` as a secret that no log line or error may contain (short values are ignored). */
export function registerSecret(value: string | null | undefined): void {
  if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH) return;
  secrets.add(value);
  // A DSN (`https://<token>@host`) is a secret as a whole and by its token alone.
  const dsnToken = /^[a-z]+:\/\/([^@/]+)@/i.exec(value)?.[1];
  if (dsnToken && dsnToken.length >= MIN_SECRET_LENGTH) secrets.add(dsnToken);
}

/** Registers the string values of secret-named fields anywhere inside `value` (variables, data). */
export function registerSecretsIn(value: unknown, depth = 0): void {
  if (depth > 20 || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const item of value) registerSecretsIn(item, depth + 1);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === "string" && SECRET_FIELDS.has(key)) registerSecret(item);
    else registerSecretsIn(item, depth + 1);
  }
}

/** The secrets registered so far in this process. */
export function registeredSecrets(): ReadonlySet<string> {
  return secrets;
}

/** A line of watched text that holds a secret, with the secret masked. */
export interface Leak {
  /** What wrote the line (e.g. "log of test server 3"). */
  source: string;
  /** The line, secrets replaced by `[secret]`, cut to a readable length. */
  line: string;
}

/**
 * The lines of `text` holding one of `known` or a credential-shaped value. Pure; the check's own
 * unit test (test/secret-leaks.test.ts) shows it finds what it should.
 */
export function findLeaks(source: string, text: string, known: Iterable<string>): Leak[] {
  const values = [...known];
  const leaks: Leak[] = [];
  for (const line of text.split("\n")) {
    if (line.length === 0) continue;
    const hits = values.filter((secret) => line.includes(secret));
    const shaped = CREDENTIAL_SHAPES.some((shape) => shape.test(line));
    if (hits.length === 0 && !shaped) continue;
    let masked = line;
    for (const secret of hits) masked = masked.split(secret).join("[secret]");
    for (const shape of CREDENTIAL_SHAPES) masked = masked.replace(new RegExp(shape, "g"), "[credential]");
    leaks.push({ source, line: masked.length > 400 ? `${masked.slice(0, 400)}…` : masked });
  }
  return leaks;
}

/** Text the check reads: log lines, a process's output, or error answers. */
export class WatchedText {
  private chunks: string[] = [];

  constructor(readonly source: string) {
    watched.push(this);
  }

  /** Adds written text (any number of whole or partial lines). */
  add(text: string): void {
    this.chunks.push(text);
  }

  /** All text written so far. */
  get text(): string {
    if (this.chunks.length > 1) this.chunks = [this.chunks.join("")];
    return this.chunks[0] ?? "";
  }

  /** The leaks in this text against every secret registered so far. */
  leaks(): Leak[] {
    return findLeaks(this.source, this.text, secrets);
  }
}

const watched: WatchedText[] = [];

/** The `errors` and `error` fields of every JSON answer the servers of this process sent. */
const answers = new WatchedText("error answers");

/** A failure message listing `leaks`. */
export function describeLeaks(leaks: readonly Leak[]): string {
  return `${leaks.length} line(s) contain a secret or a credential (they must never reach a log line or an error):\n${leaks
    .map((leak) => `  ${leak.source}: ${leak.line}`)
    .join("\n")}`;
}

/** Fails when `texts` (and the error answers of this process) hold a registered secret. */
export function assertNoSecretLeaks(...texts: WatchedText[]): void {
  const leaks = [...texts, answers].flatMap((text) => text.leaks());
  if (leaks.length > 0) throw new Error(describeLeaks(leaks));
}

/**
 * Watches a server process's stdout and stderr (its log lines), checked at exit like every other
 * watched text; returns the text so a test can check it sooner.
 */
export function watchChildOutput(child: ChildProcess, source: string): WatchedText {
  const text = new WatchedText(source);
  child.stdout?.on("data", (chunk: Buffer | string) => text.add(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer | string) => text.add(chunk.toString()));
  return text;
}

/** What of an answer's body the check keeps: its errors, and `error` strings inside its data. */
function errorPartsOf(body: unknown, depth = 0): string[] {
  if (depth > 20 || body === null || typeof body !== "object") return [];
  if (Array.isArray(body)) return body.flatMap((item) => errorPartsOf(item, depth + 1));
  return Object.entries(body).flatMap(([key, item]) => {
    if (key === "errors" || (key === "error" && typeof item === "string")) {
      return [JSON.stringify(item)];
    }
    return errorPartsOf(item, depth + 1);
  });
}

/**
 * Reads an answer on its way out: registers the credential its request carried and the secrets
 * in its data, and keeps its error parts for the check.
 */
function inspectAnswer(res: ServerResponse, chunk: unknown): void {
  const headers = res.req?.headers ?? {};
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "")?.[1];
  // Only long ones: tests send short junk ("undefined", "garbage") that is no one's credential.
  if (bearer && bearer.trim().length >= 16) registerSecret(bearer.trim());
  const gitlabToken = headers["x-gitlab-token"];
  registerSecret(typeof gitlabToken === "string" ? gitlabToken : undefined);
  if (typeof chunk !== "string" && !Buffer.isBuffer(chunk)) return;
  const text = chunk.toString();
  if (!text.startsWith("{") && !text.startsWith("[")) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return;
  }
  const data = body !== null && typeof body === "object" ? (body as { data?: unknown }).data : undefined;
  registerSecretsIn(data);
  const parts = errorPartsOf(body);
  if (parts.length > 0) answers.add(`${parts.join("\n")}\n`);
}

// Every server in a test process answers through ServerResponse#end (sendJson and the GraphQL
// endpoints send each JSON answer in one call), so reading it there misses no answer, whichever
// way the test made the request.
const originalEnd = ServerResponse.prototype.end;
ServerResponse.prototype.end = function end(this: ServerResponse, ...args: unknown[]): ServerResponse {
  try {
    inspectAnswer(this, typeof args[0] === "function" ? undefined : args[0]);
  } catch {
    // The check must never break the server it watches; a body it cannot read is not an error answer.
  }
  return Reflect.apply(originalEnd, this, args) as ServerResponse;
} as typeof originalEnd;

// The last word: whatever was not checked at a server's stop, or leaked after it, fails the file.
process.on("exit", () => {
  const leaks = watched.flatMap((text) => text.leaks());
  if (leaks.length === 0) return;
  process.stderr.write(`\nsecret leak check: ${describeLeaks(leaks)}\n`);
  process.exitCode = 1;
});
