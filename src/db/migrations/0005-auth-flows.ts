import type { Kysely } from "kysely";

/** Device login and session (refresh) tokens (docs/workflows.md). Tables to be added. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

/** Drops everything {@link up} created. */
export async function down(_db: Kysely<unknown>): Promise<void> {}
