import { type Kysely, sql } from "kysely";

/**
 * Occurrences keep their parents (check, artifact, issue) checked per statement instead of per row.
 *
 * A foreign key checks each inserted row with a query of its own (a lookup of the parent and a
 * KEY SHARE lock on it). Ingestion writes a report's findings 5,000 rows a statement, all of one
 * check and one artifact and of a few dozen issues, so the three keys of `occurrences` made three
 * lookups per finding: about 8 µs of PostgreSQL's 26 µs per row written (docs/benchmarks.md,
 * "Ingestion at the table's limit"). The same guarantees are now kept by triggers that work on a
 * statement's rows at once:
 *
 * - after an INSERT, each distinct parent the new rows name is locked FOR KEY SHARE (as a foreign
 *   key's check locks it, so the parent cannot be deleted before the inserting transaction ends)
 *   and a row naming a parent that does not exist fails the statement with the error a foreign key
 *   raises (SQLSTATE 23503);
 * - an UPDATE that changes a parent column is checked the same way, row by row (nothing updates
 *   those columns today; the trigger does not fire for the state updates that do happen);
 * - deleting checks or artifacts deletes their occurrences (ON DELETE CASCADE), and deleting an
 *   issue that occurrences name fails (the default NO ACTION).
 *
 * The constraints' names stay in the messages, so an error reads as it did. The indexes the
 * foreign keys relied on for deletes (`occurrences_check_order_idx` leads with `check_id`,
 * `occurrences_artifact_idx`, `occurrences_issue_idx`) serve the triggers' deletes the same way.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);

  // The error a foreign key raises for a row whose parent does not exist.
  await run(sql`
    CREATE FUNCTION occurrences_refuse_missing_parent(constraint_name text, key_column text, parent_table text, missing bigint)
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'insert or update on table "occurrences" violates foreign key constraint "%"', constraint_name
        USING ERRCODE = 'foreign_key_violation',
          DETAIL = format('Key (%s)=(%s) is not present in table "%s".', key_column, missing, parent_table),
          TABLE = 'occurrences', CONSTRAINT = constraint_name;
    END $$`);

  // Each parent table in turn: lock the rows named, in id order (as two writers sharing parents
  // then wait for each other rather than deadlock), then refuse the first id that has no row.
  // Static statements, so PL/pgSQL plans them once per session.
  await run(sql`
    CREATE FUNCTION occurrences_check_inserted_parents() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      missing bigint;
    BEGIN
      PERFORM 1 FROM checks WHERE id IN (SELECT check_id FROM new_rows) ORDER BY id FOR KEY SHARE;
      SELECT n.id INTO missing FROM (SELECT DISTINCT check_id AS id FROM new_rows) AS n
        WHERE NOT EXISTS (SELECT 1 FROM checks AS p WHERE p.id = n.id) LIMIT 1;
      IF missing IS NOT NULL THEN
        PERFORM occurrences_refuse_missing_parent('occurrences_check_id_fkey', 'check_id', 'checks', missing);
      END IF;
      PERFORM 1 FROM artifacts WHERE id IN (SELECT artifact_id FROM new_rows) ORDER BY id FOR KEY SHARE;
      SELECT n.id INTO missing FROM (SELECT DISTINCT artifact_id AS id FROM new_rows WHERE artifact_id IS NOT NULL) AS n
        WHERE NOT EXISTS (SELECT 1 FROM artifacts AS p WHERE p.id = n.id) LIMIT 1;
      IF missing IS NOT NULL THEN
        PERFORM occurrences_refuse_missing_parent('occurrences_artifact_id_fkey', 'artifact_id', 'artifacts', missing);
      END IF;
      PERFORM 1 FROM issues WHERE id IN (SELECT issue_id FROM new_rows) ORDER BY id FOR KEY SHARE;
      SELECT n.id INTO missing FROM (SELECT DISTINCT issue_id AS id FROM new_rows) AS n
        WHERE NOT EXISTS (SELECT 1 FROM issues AS p WHERE p.id = n.id) LIMIT 1;
      IF missing IS NOT NULL THEN
        PERFORM occurrences_refuse_missing_parent('occurrences_issue_id_fkey', 'issue_id', 'issues', missing);
      END IF;
      RETURN NULL;
    END $$`);

  await run(sql`
    CREATE FUNCTION occurrences_check_updated_parents() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM checks WHERE id = NEW.check_id FOR KEY SHARE;
      IF NOT FOUND THEN
        PERFORM occurrences_refuse_missing_parent('occurrences_check_id_fkey', 'check_id', 'checks', NEW.check_id);
      END IF;
      IF NEW.artifact_id IS NOT NULL THEN
        PERFORM 1 FROM artifacts WHERE id = NEW.artifact_id FOR KEY SHARE;
        IF NOT FOUND THEN
          PERFORM occurrences_refuse_missing_parent('occurrences_artifact_id_fkey', 'artifact_id', 'artifacts', NEW.artifact_id);
        END IF;
      END IF;
      PERFORM 1 FROM issues WHERE id = NEW.issue_id FOR KEY SHARE;
      IF NOT FOUND THEN
        PERFORM occurrences_refuse_missing_parent('occurrences_issue_id_fkey', 'issue_id', 'issues', NEW.issue_id);
      END IF;
      RETURN NULL;
    END $$`);

  await run(sql`
    CREATE FUNCTION occurrences_delete_with_checks() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM occurrences WHERE check_id IN (SELECT id FROM old_rows);
      RETURN NULL;
    END $$`);

  await run(sql`
    CREATE FUNCTION occurrences_delete_with_artifacts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM occurrences WHERE artifact_id IN (SELECT id FROM old_rows);
      RETURN NULL;
    END $$`);

  await run(sql`
    CREATE FUNCTION occurrences_refuse_deleted_issues() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      named bigint;
    BEGIN
      SELECT o.issue_id INTO named FROM occurrences AS o WHERE o.issue_id IN (SELECT id FROM old_rows) LIMIT 1;
      IF named IS NOT NULL THEN
        RAISE EXCEPTION 'update or delete on table "issues" violates foreign key constraint "occurrences_issue_id_fkey" on table "occurrences"'
          USING ERRCODE = 'foreign_key_violation',
            DETAIL = format('Key (id)=(%s) is still referenced from table "occurrences".', named),
            TABLE = 'issues', CONSTRAINT = 'occurrences_issue_id_fkey';
      END IF;
      RETURN NULL;
    END $$`);

  await run(sql`ALTER TABLE occurrences DROP CONSTRAINT occurrences_check_id_fkey`);
  await run(sql`ALTER TABLE occurrences DROP CONSTRAINT occurrences_artifact_id_fkey`);
  await run(sql`ALTER TABLE occurrences DROP CONSTRAINT occurrences_issue_id_fkey`);

  await run(sql`
    CREATE TRIGGER occurrences_parents_inserted AFTER INSERT ON occurrences
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION occurrences_check_inserted_parents()`);
  await run(sql`
    CREATE TRIGGER occurrences_parents_updated AFTER UPDATE OF check_id, artifact_id, issue_id ON occurrences
    FOR EACH ROW
    WHEN (OLD.check_id IS DISTINCT FROM NEW.check_id OR OLD.artifact_id IS DISTINCT FROM NEW.artifact_id
      OR OLD.issue_id IS DISTINCT FROM NEW.issue_id)
    EXECUTE FUNCTION occurrences_check_updated_parents()`);
  await run(sql`
    CREATE TRIGGER occurrences_of_deleted_checks AFTER DELETE ON checks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
    EXECUTE FUNCTION occurrences_delete_with_checks()`);
  await run(sql`
    CREATE TRIGGER occurrences_of_deleted_artifacts AFTER DELETE ON artifacts
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
    EXECUTE FUNCTION occurrences_delete_with_artifacts()`);
  await run(sql`
    CREATE TRIGGER occurrences_of_deleted_issues AFTER DELETE ON issues
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
    EXECUTE FUNCTION occurrences_refuse_deleted_issues()`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (query: ReturnType<typeof sql>) => query.execute(db);
  await run(sql`DROP TRIGGER IF EXISTS occurrences_of_deleted_issues ON issues`);
  await run(sql`DROP TRIGGER IF EXISTS occurrences_of_deleted_artifacts ON artifacts`);
  await run(sql`DROP TRIGGER IF EXISTS occurrences_of_deleted_checks ON checks`);
  await run(sql`DROP TRIGGER IF EXISTS occurrences_parents_updated ON occurrences`);
  await run(sql`DROP TRIGGER IF EXISTS occurrences_parents_inserted ON occurrences`);
  await run(sql`
    ALTER TABLE occurrences
      ADD CONSTRAINT occurrences_check_id_fkey FOREIGN KEY (check_id) REFERENCES checks (id) ON DELETE CASCADE,
      ADD CONSTRAINT occurrences_artifact_id_fkey FOREIGN KEY (artifact_id) REFERENCES artifacts (id) ON DELETE CASCADE,
      ADD CONSTRAINT occurrences_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES issues (id)`);
  for (const name of [
    "occurrences_refuse_deleted_issues",
    "occurrences_delete_with_artifacts",
    "occurrences_delete_with_checks",
    "occurrences_check_updated_parents",
    "occurrences_check_inserted_parents",
  ]) {
    await run(sql`DROP FUNCTION IF EXISTS ${sql.raw(name)}()`);
  }
  await run(sql`DROP FUNCTION IF EXISTS occurrences_refuse_missing_parent(text, text, text, bigint)`);
}
