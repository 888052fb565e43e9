import { type Kysely, sql } from "kysely";
import type { Database } from "../../src/db/types.ts";

/**
 * For tests that play two transactions against each other on PostgreSQL, one side stopped where
 * the other must wait for its locks (test/ingest-locks.test.ts, test/rebase-locks.test.ts).
 */

/** A one-time signal between the two sides of a test: `fire()` settles `fired`. */
export function signal(): { fire: () => void; fired: Promise<void> } {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fire, fired };
}

/** Sessions of `db`'s database waiting for a lock, other than the one asking. */
export async function sessionsWaitingForALock(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ waiting: number }>`
    SELECT count(*)::int AS waiting FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`.execute(db);
  return rows[0]?.waiting ?? 0;
}
