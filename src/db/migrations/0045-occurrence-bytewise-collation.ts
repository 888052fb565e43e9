import { type Kysely, sql } from "kysely";

/**
 * The text columns of `occurrences` that its indexes and the API's order read (`key`, `path`, and
 * the three fingerprints) compare bytewise (`COLLATE "C"`) whatever the database's own collation.
 *
 * - The order: a check's findings and an issue's come by path, line and key; the embedded database
 *   is always `C`, so a PostgreSQL database made with a language's collation (`en_US.UTF-8`, the
 *   default of many installations) gave the same findings in another order (`src/B.ts` after
 *   `src/a.ts`), unlike git's order of paths and unlike the merge of pages that assumes bytewise
 *   order (src/mcp/tools-runs.ts `byPathThenLine`).
 * - The cost: each of the five indexes over these columns compared them by the language's rules at
 *   every insert, about a third of PostgreSQL's time per finding on `en_US.UTF-8`
 *   (docs/benchmarks.md "Findings' text columns compared bytewise").
 *
 * Changing a column's collation keeps the table's rows where they are and rebuilds the indexes
 * over the column (about 4 s a million findings), then the columns' statistics are gathered
 * again; on a database already `C` (the embedded one, or PostgreSQL made with `C` or `C.UTF-8`)
 * the order stays what it was.
 */
const COLUMNS = ["key", "path", "fingerprint", "former_fingerprint", "deferred_former_fingerprint"];

export async function up(db: Kysely<unknown>): Promise<void> {
  const changes = COLUMNS.map((column) => sql`ALTER COLUMN ${sql.ref(column)} TYPE text COLLATE "C"`);
  await sql`ALTER TABLE occurrences ${sql.join(changes)}`.execute(db);
  // The change drops the columns' statistics, and nothing would gather them again until a tenth
  // of the table has changed: the planner would guess at every lookup by fingerprint meanwhile.
  await sql`ANALYZE occurrences (${sql.join(COLUMNS.map((column) => sql.ref(column)))})`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const changes = COLUMNS.map((column) => sql`ALTER COLUMN ${sql.ref(column)} TYPE text COLLATE "default"`);
  await sql`ALTER TABLE occurrences ${sql.join(changes)}`.execute(db);
}
