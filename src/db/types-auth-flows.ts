import type { ColumnType, Generated, Selectable } from "kysely";
import type { CreatedAt, ForeignKey, Id, NullableTimestamp, Timestamp } from "./types.ts";

/** Tables of migration 0005-auth-flows: device login and session (refresh) tokens. */

/** The contract's `DeviceType`: what kind of client asked to log in. */
export type DeviceType = "CLI" | "IDE";

/** Where a device login stands: waiting, decided by a user, or exchanged for its token. */
export type DeviceAuthorizationStatus = "PENDING" | "APPROVED" | "DENIED" | "EXCHANGED";

type NullableForeignKey = ColumnType<
  string | null,
  string | number | bigint | null | undefined,
  string | number | bigint | null
>;

export interface DeviceAuthorizationsTable {
  id: Generated<Id>;
  device_code_hash: Buffer;
  user_code_hash: Buffer;
  device_type: DeviceType;
  status: ColumnType<
    DeviceAuthorizationStatus,
    DeviceAuthorizationStatus | undefined,
    DeviceAuthorizationStatus
  >;
  /** Who approved or denied it. */
  user_id: NullableForeignKey;
  /** The personal access token the exchange issued. */
  token_id: NullableForeignKey;
  interval_seconds: number;
  created_at: CreatedAt;
  expires_at: Timestamp;
  last_polled_at: NullableTimestamp;
  decided_at: NullableTimestamp;
}

/** Why a session ended: revoked by its holder, or a rotated refresh token was presented again. */
export type SessionRevokedReason = "REVOKED" | "REUSED";

export interface SessionsTable {
  id: Generated<Id>;
  key: string;
  user_id: ForeignKey;
  created_at: CreatedAt;
  revoked_at: NullableTimestamp;
  revoked_reason: ColumnType<
    SessionRevokedReason | null,
    SessionRevokedReason | null | undefined,
    SessionRevokedReason | null
  >;
}

export interface RefreshTokensTable {
  id: Generated<Id>;
  session_id: ForeignKey;
  token_hash: Buffer;
  created_at: CreatedAt;
  expires_at: Timestamp;
  rotated_at: NullableTimestamp;
}

export interface AuthFlowTables {
  device_authorizations: DeviceAuthorizationsTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
}

export type DeviceAuthorizationRow = Selectable<DeviceAuthorizationsTable>;
export type SessionRow = Selectable<SessionsTable>;
export type RefreshTokenRow = Selectable<RefreshTokensTable>;
