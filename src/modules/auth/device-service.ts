import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import type { DeviceType } from "../../db/types-auth-flows.ts";
import { AssayError, badUserInput, ErrorCode } from "../../graphql/errors.ts";
import {
  formatUserCode,
  generateDeviceCode,
  generateUserCode,
  isWellFormedDeviceCode,
  normaliseUserCode,
} from "./device-codes.ts";
import {
  decideDevice,
  deleteDeviceAuthorizationsExpiredBefore,
  insertDeviceAuthorization,
  lockDecidableDeviceByUserCode,
  lockDeviceByCode,
  markDeviceExchanged,
  recordDevicePoll,
} from "./device-store.ts";
import { hashPat } from "./pat.ts";
import { type IssuedToken, validTokenName } from "./pat-service.ts";
import { createToken } from "./token-service.ts";

/**
 * Device login, after RFC 8628: a client without a token registers (`registerDevice`), shows the
 * user code, and polls (`requestPatWithDeviceCode`) while a signed-in user approves the code
 * (`approveDevice`); the first poll after approval receives a new personal access token, and the
 * device code is spent. Both codes are stored only as HMAC-SHA256 under the token pepper.
 */

/** Lifetime of a device login, in seconds (`expiresIn`). */
export const DEVICE_CODE_SECONDS = 900;

/** Least interval between two polls, in seconds (`interval`). */
export const POLL_INTERVAL_SECONDS = 5;

/** What a poll that comes too soon adds to the interval, in seconds (RFC 8628 §3.5 `slow_down`). */
export const SLOW_DOWN_STEP_SECONDS = 5;

/** Lifetime of a token issued through device login, in days. */
export const DEVICE_TOKEN_DAYS = 90;

// Expired logins are kept a day, so a late poll still learns "expired" rather than "unknown".
const KEEP_EXPIRED_MS = 86_400_000;
const CODE_ATTEMPTS = 5;

/** The answer of `registerDevice`. */
export interface RegisteredDevice {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresIn: number;
  interval: number;
}

/** Starts a device login for a `deviceType` client. */
export async function registerDevice(
  tx: Kysely<Database>,
  options: { pepper: string; publicUrl: string; deviceType: DeviceType; now?: Date },
): Promise<RegisteredDevice> {
  const now = options.now ?? new Date();
  await deleteDeviceAuthorizationsExpiredBefore(tx, new Date(now.getTime() - KEEP_EXPIRED_MS));
  for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
    const deviceCode = generateDeviceCode();
    const userCode = generateUserCode();
    const stored = await insertDeviceAuthorization(tx, {
      deviceCodeHash: hashPat(deviceCode, options.pepper),
      userCodeHash: hashPat(userCode, options.pepper),
      deviceType: options.deviceType,
      intervalSeconds: POLL_INTERVAL_SECONDS,
      expiresAt: new Date(now.getTime() + DEVICE_CODE_SECONDS * 1000),
    });
    if (!stored) continue;
    const shown = formatUserCode(userCode);
    const verificationUri = `${options.publicUrl}/device`;
    return {
      deviceCode,
      userCode: shown,
      verificationUri,
      verificationUriComplete: `${verificationUri}?user_code=${shown}`,
      expiresIn: DEVICE_CODE_SECONDS,
      interval: POLL_INTERVAL_SECONDS,
    };
  }
  // 20^8 codes and a handful open at a time: five collisions in a row mean something is broken.
  throw new Error("could not draw a free user code");
}

/**
 * Approves or denies the open device login with `userCode`, as `userId`. Unknown, malformed,
 * expired, already exchanged, or decided by someone else: BAD_USER_INPUT naming `userCode`, all
 * alike. Deciding again the same way changes nothing; the person who approved may still deny
 * before the client has collected its token, but a denial is final.
 */
export async function decideDeviceLogin(
  tx: Kysely<Database>,
  options: { pepper: string; userId: string; userCode: string; approve: boolean; now?: Date },
): Promise<void> {
  const now = options.now ?? new Date();
  const normalised = normaliseUserCode(options.userCode);
  const row =
    normalised === null
      ? undefined
      : await lockDecidableDeviceByUserCode(tx, hashPat(normalised, options.pepper), options.userId, now);
  if (!row || (row.status !== "PENDING" && row.user_id !== options.userId)) {
    throw badUserInput(
      "No device login is waiting for this code. It may have expired (codes last 15 minutes); start again on the device.",
      "userCode",
    );
  }
  const status = options.approve ? "APPROVED" : "DENIED";
  if (row.status === status) return;
  if (row.status === "DENIED") {
    throw badUserInput("This device login was denied; start again on the device.", "userCode");
  }
  await decideDevice(tx, row.id, { status, userId: options.userId, at: now });
}

/** What a poll found; only "issued" carries a token. Errors are raised after the poll is recorded. */
export type DevicePoll =
  | { kind: "issued"; issued: IssuedToken }
  | { kind: "pending" }
  | { kind: "slow-down"; interval: number }
  | { kind: "denied" }
  | { kind: "expired" }
  | { kind: "invalid" };

/**
 * One poll with `deviceCode`. The login's row is locked, so of concurrent polls at most one can
 * find it approved and collect the token; the others then find the code spent. The poll's time
 * (and a lengthened interval after a poll that came too soon) is written in `tx` whatever the
 * outcome, so the caller must commit before raising the outcome's error (see {@link pollError}).
 */
export async function pollDeviceLogin(
  tx: Kysely<Database>,
  options: { pepper: string; deviceCode: string; description: string | null | undefined; now?: Date },
): Promise<DevicePoll> {
  const now = options.now ?? new Date();
  if (!isWellFormedDeviceCode(options.deviceCode)) return { kind: "invalid" };
  const row = await lockDeviceByCode(tx, hashPat(options.deviceCode, options.pepper));
  if (!row || row.status === "EXCHANGED") return { kind: "invalid" };
  if (row.status === "DENIED") return { kind: "denied" };
  if (row.expires_at.getTime() <= now.getTime()) return { kind: "expired" };
  const tooSoon =
    row.last_polled_at !== null && now.getTime() - row.last_polled_at.getTime() < row.interval_seconds * 1000;
  const interval = tooSoon ? row.interval_seconds + SLOW_DOWN_STEP_SECONDS : row.interval_seconds;
  await recordDevicePoll(tx, row.id, { at: now, intervalSeconds: interval });
  if (tooSoon) return { kind: "slow-down", interval };
  if (row.status === "PENDING" || row.user_id === null) return { kind: "pending" };
  const name = tokenNameOf(options.description, row.device_type);
  const issued = await createToken(tx, options.pepper, {
    userId: row.user_id,
    name,
    expiresInDays: DEVICE_TOKEN_DAYS,
    now,
  });
  await markDeviceExchanged(tx, row.id, issued.row.id);
  return { kind: "issued", issued };
}

/** The token's name: the client's `description`, or "Device login (CLI)" and the like. */
export function tokenNameOf(description: string | null | undefined, deviceType: DeviceType): string {
  if (description === null || description === undefined || description.trim() === "") {
    return `Device login (${deviceType})`;
  }
  return validTokenName(description, "description");
}

/** The error a poll that issued nothing answers with, `extensions.code` named after RFC 8628 §3.5. */
export function pollError(poll: Exclude<DevicePoll, { kind: "issued" }>): AssayError {
  switch (poll.kind) {
    case "pending":
      return new AssayError(
        "The device login has not been approved yet; poll again after the interval.",
        ErrorCode.AUTHORIZATION_PENDING,
      );
    case "slow-down":
      return new AssayError(
        `Polling too fast; wait at least ${poll.interval} seconds between polls.`,
        ErrorCode.SLOW_DOWN,
        { extensions: { interval: poll.interval } },
      );
    case "denied":
      return new AssayError("The device login was denied.", ErrorCode.ACCESS_DENIED);
    case "expired":
      return new AssayError(
        "The device code has expired; start again with registerDevice.",
        ErrorCode.EXPIRED_TOKEN,
      );
    case "invalid":
      return badUserInput(
        "This device code is not valid: it was never issued or has already been exchanged for a token.",
        "deviceCode",
      );
  }
}
