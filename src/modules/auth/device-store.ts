import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import type {
  DeviceAuthorizationRow,
  DeviceAuthorizationStatus,
  DeviceType,
} from "../../db/types-auth-flows.ts";

/** SQL of device login (docs/api.md, "Tokens and device login"). Codes arrive already hashed. */

/**
 * Stores a new device login; undefined when its user code is already taken by an open login
 * (the caller draws another code). Nothing else can conflict: device codes are 256 random bits.
 */
export function insertDeviceAuthorization(
  db: Kysely<Database>,
  row: {
    deviceCodeHash: Buffer;
    userCodeHash: Buffer;
    deviceType: DeviceType;
    intervalSeconds: number;
    expiresAt: Date;
  },
): Promise<DeviceAuthorizationRow | undefined> {
  return db
    .insertInto("device_authorizations")
    .values({
      device_code_hash: row.deviceCodeHash,
      user_code_hash: row.userCodeHash,
      device_type: row.deviceType,
      interval_seconds: row.intervalSeconds,
      expires_at: row.expiresAt,
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Deletes device logins that expired before `before`; they can no longer be used or reported. */
export async function deleteDeviceAuthorizationsExpiredBefore(
  db: Kysely<Database>,
  before: Date,
): Promise<void> {
  await db.deleteFrom("device_authorizations").where("expires_at", "<", before).execute();
}

/** The device login polled with the device code hashing to `hash`, locked for update. */
export function lockDeviceByCode(
  db: Kysely<Database>,
  hash: Buffer,
): Promise<DeviceAuthorizationRow | undefined> {
  return db
    .selectFrom("device_authorizations")
    .selectAll()
    .where("device_code_hash", "=", hash)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * The unexpired device login a person can still decide on with the user code hashing to `hash`,
 * locked for update: one that is pending or approved, or one `userId` already denied (so
 * deciding twice the same way answers the same). Newest first should several denied ones match.
 */
export function lockDecidableDeviceByUserCode(
  db: Kysely<Database>,
  hash: Buffer,
  userId: string,
  now: Date,
): Promise<DeviceAuthorizationRow | undefined> {
  return db
    .selectFrom("device_authorizations")
    .selectAll()
    .where("user_code_hash", "=", hash)
    .where("expires_at", ">", now)
    .where((eb) =>
      eb.or([
        eb("status", "in", ["PENDING", "APPROVED"]),
        eb.and([eb("status", "=", "DENIED"), eb("user_id", "=", userId)]),
      ]),
    )
    .orderBy("id", "desc")
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

/** Records a person's decision on device login `id`. */
export async function decideDevice(
  db: Kysely<Database>,
  id: string,
  decision: { status: Extract<DeviceAuthorizationStatus, "APPROVED" | "DENIED">; userId: string; at: Date },
): Promise<void> {
  await db
    .updateTable("device_authorizations")
    .set({ status: decision.status, user_id: decision.userId, decided_at: decision.at })
    .where("id", "=", id)
    .execute();
}

/** Records a poll of device login `id` at `at`, with its (possibly lengthened) interval. */
export async function recordDevicePoll(
  db: Kysely<Database>,
  id: string,
  poll: { at: Date; intervalSeconds: number },
): Promise<void> {
  await db
    .updateTable("device_authorizations")
    .set({ last_polled_at: poll.at, interval_seconds: poll.intervalSeconds })
    .where("id", "=", id)
    .execute();
}

/** Marks device login `id` exchanged for token `tokenId`; its device code is spent. */
export async function markDeviceExchanged(db: Kysely<Database>, id: string, tokenId: string): Promise<void> {
  await db
    .updateTable("device_authorizations")
    .set({ status: "EXCHANGED", token_id: tokenId })
    .where("id", "=", id)
    .execute();
}
