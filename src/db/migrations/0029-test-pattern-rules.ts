import { type Kysely, sql } from "kysely";

/**
 * A TEST_PATTERN ignore rule may come without a glob: it then ignores its issue in the files the
 * configuration's `test_patterns` name (docs/workflows.md "Ignore rules"), the contract's meaning
 * of the type. Until now every rule but FOREVER had to have one (0002's unnamed CHECK, which
 * PostgreSQL named `ignore_rules_check1`). PATTERN still needs its glob, FOREVER still has none.
 * Rules stored before keep their globs, and with them their meaning.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE ignore_rules
      DROP CONSTRAINT ignore_rules_check1,
      ADD CONSTRAINT ignore_rules_glob_of_type CHECK (
        CASE type WHEN 'FOREVER' THEN glob_pattern IS NULL WHEN 'PATTERN' THEN glob_pattern IS NOT NULL ELSE true END
      )`.execute(db);
}

/** Rules made without a glob are kept; the old CHECK then holds for new rows only. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE ignore_rules
      DROP CONSTRAINT ignore_rules_glob_of_type,
      ADD CONSTRAINT ignore_rules_check1 CHECK ((type = 'FOREVER') = (glob_pattern IS NULL)) NOT VALID`.execute(
    db,
  );
}
