import { type Insertable, type Kysely, type RawBuilder, sql } from "kysely";
import type {
  AnalyzerRow,
  AnalyzersTable,
  CodeFormatterRow,
  CodeFormattersTable,
  Database,
  IssueCategory,
  IssueRow,
  IssueSeverity,
  IssuesTable,
} from "../../db/types.ts";
import type { ConnectionSource } from "../../graphql/pagination.ts";

export type NewAnalyzer = Insertable<AnalyzersTable>;
export type NewIssue = Insertable<IssuesTable>;
export type NewCodeFormatter = Insertable<CodeFormattersTable>;

/**
 * The analyzer, issue and code-formatter catalog. Analyzers and code formatters are global: every
 * user reads all of them, so their lookups take no viewer. Issues are the shared catalog's (no
 * `account_id`) and each account's own, filed by its uploads (docs/ingestion-sarif.md "An
 * account's issues are its own"): a read of issues for a viewer goes through
 * {@link issuesVisibleTo}, the one statement of who may read which.
 */

/**
 * The parent id of catalog-wide connections (`analyzers`, `codeFormatters`). Connections are
 * batched per parent row; a whole-catalog list has none, so its source carries this constant as
 * the parent column.
 */
export const CATALOG_ROOT = "0";

/** Analyzers by key. */
export function findAnalyzersByKeys(db: Kysely<Database>, keys: readonly string[]): Promise<AnalyzerRow[]> {
  return db.selectFrom("analyzers").selectAll().where("key", "in", keys).execute();
}

/** Analyzers by internal id. */
export function findAnalyzersByIds(db: Kysely<Database>, ids: readonly string[]): Promise<AnalyzerRow[]> {
  return db.selectFrom("analyzers").selectAll().where("id", "in", ids).execute();
}

/** Analyzers by shortcode. */
export function findAnalyzersByShortcodes(
  db: Kysely<Database>,
  shortcodes: readonly string[],
): Promise<AnalyzerRow[]> {
  return db.selectFrom("analyzers").selectAll().where("shortcode", "in", shortcodes).execute();
}

/**
 * The issues `viewerId` may read, as a relation with the columns of `issues`: the shared
 * catalog's, and an account's own issues (filed by its uploads) only for that account's members.
 * Another account's issue is not in it, so every read through it answers such an issue as one
 * that does not exist. Written as two branches rather than one `OR` so that each reaches its own
 * index (the shared issues' and the account issues' unique indexes, both led by the analyzer):
 * what a read costs grows with the shared issues and the viewer's accounts' own, never with the
 * number of other accounts (test/catalog-visibility-plans.test.ts).
 */
export function issuesVisibleTo(viewerId: string): RawBuilder<IssueRow> {
  return sql<IssueRow>`(
    SELECT shared.* FROM issues AS shared WHERE shared.account_id IS NULL
    UNION ALL
    SELECT own.* FROM memberships AS m JOIN issues AS own ON own.account_id = m.account_id
    WHERE m.user_id = ${viewerId}
  )`;
}

/** Issues by key that `viewerId` may read ({@link issuesVisibleTo}). */
export function findVisibleIssuesByKeys(
  db: Kysely<Database>,
  viewerId: string,
  keys: readonly string[],
): Promise<IssueRow[]> {
  return db.selectFrom(issuesVisibleTo(viewerId).as("i")).selectAll("i").where("i.key", "in", keys).execute();
}

/** Issues by internal id. */
export function findIssuesByIds(db: Kysely<Database>, ids: readonly string[]): Promise<IssueRow[]> {
  return db.selectFrom("issues").selectAll().where("id", "in", ids).execute();
}

/**
 * Per (analyzer id, shortcode) pair, the one issue `viewerId` may read ({@link issuesVisibleTo})
 * that `Analyzer.issue(shortcode:)` answers: the shared catalog's when it has the shortcode (what
 * every user reads, and what uploads file new findings under), else the first filed of the
 * viewer's accounts' own (docs/decisions.md "The catalog's lists show the viewer's accounts'
 * issues").
 */
export function findVisibleIssuesByAnalyzerAndShortcode(
  db: Kysely<Database>,
  viewerId: string,
  pairs: ReadonlyArray<{ analyzerId: string; shortcode: string }>,
): Promise<IssueRow[]> {
  if (pairs.length === 0) return Promise.resolve([]);
  return db
    .selectFrom(issuesVisibleTo(viewerId).as("i"))
    .selectAll("i")
    .distinctOn(["i.analyzer_id", "i.shortcode"])
    .where((eb) =>
      eb(
        eb.refTuple("i.analyzer_id", "i.shortcode"),
        "in",
        pairs.map((pair) => eb.tuple(pair.analyzerId, pair.shortcode)),
      ),
    )
    .orderBy("i.analyzer_id")
    .orderBy("i.shortcode")
    .orderBy(sql`i.account_id IS NOT NULL`)
    .orderBy("i.id")
    .execute();
}

/**
 * How many of each analyzer's issues that `viewerId` may read ({@link issuesVisibleTo}) fall in
 * each category; categories without issues are absent.
 */
export function countVisibleIssuesByCategory(
  db: Kysely<Database>,
  viewerId: string,
  analyzerIds: readonly string[],
): Promise<Array<{ analyzer_id: string; category: IssueCategory; count: number }>> {
  return db
    .selectFrom(issuesVisibleTo(viewerId).as("i"))
    .select(["i.analyzer_id", "i.category"])
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .where("i.analyzer_id", "in", analyzerIds)
    .groupBy(["i.analyzer_id", "i.category"])
    .execute()
    .then((rows) =>
      rows.map((row) => ({ ...row, analyzer_id: String(row.analyzer_id), count: Number(row.count) })),
    );
}

/** Code formatters by key. */
export function findCodeFormattersByKeys(
  db: Kysely<Database>,
  keys: readonly string[],
): Promise<CodeFormatterRow[]> {
  return db.selectFrom("code_formatters").selectAll().where("key", "in", keys).execute();
}

/** Code formatters by shortcode. */
export function findCodeFormattersByShortcodes(
  db: Kysely<Database>,
  shortcodes: readonly string[],
): Promise<CodeFormatterRow[]> {
  return db.selectFrom("code_formatters").selectAll().where("shortcode", "in", shortcodes).execute();
}

/** Inserts analyzers in one statement and returns the stored rows. */
export function insertAnalyzers(db: Kysely<Database>, rows: readonly NewAnalyzer[]): Promise<AnalyzerRow[]> {
  if (rows.length === 0) return Promise.resolve([]);
  return db
    .insertInto("analyzers")
    .values([...rows])
    .returningAll()
    .execute();
}

/** Inserts issues in one statement and returns the stored rows. */
export function insertIssues(db: Kysely<Database>, rows: readonly NewIssue[]): Promise<IssueRow[]> {
  if (rows.length === 0) return Promise.resolve([]);
  return db
    .insertInto("issues")
    .values([...rows])
    .returningAll()
    .execute();
}

/**
 * Sets the severity and category of each of `accountId`'s own issues in `changes` (one statement),
 * where they differ: SARIF processing grades a rule that declares no level by the levels its
 * findings had. A shared issue, or another account's, is never graded.
 */
export async function updateIssueGrades(
  db: Kysely<Database>,
  accountId: string,
  changes: ReadonlyArray<{ id: string; severity: IssueSeverity; category: IssueCategory }>,
): Promise<void> {
  if (changes.length === 0) return;
  await sql`
    UPDATE issues AS i SET severity = c.severity, category = c.category
    FROM unnest(${changes.map((c) => c.id)}::bigint[], ${changes.map((c) => c.severity)}::text[],
      ${changes.map((c) => c.category)}::text[]) AS c(id, severity, category)
    WHERE i.id = c.id AND i.account_id = ${accountId}
      AND (i.severity <> c.severity OR i.category <> c.category)
  `.execute(db);
}

/** Inserts code formatters in one statement and returns the stored rows. */
export function insertCodeFormatters(
  db: Kysely<Database>,
  rows: readonly NewCodeFormatter[],
): Promise<CodeFormatterRow[]> {
  if (rows.length === 0) return Promise.resolve([]);
  return db
    .insertInto("code_formatters")
    .values([...rows])
    .returningAll()
    .execute();
}

/** Every analyzer, by shortcode. Parent: {@link CATALOG_ROOT}. */
export const allAnalyzers: ConnectionSource = {
  name: "allAnalyzers",
  from: sql`(SELECT a.*, cast(${sql.lit(CATALOG_ROOT)} as bigint) AS catalog_root FROM analyzers a)`,
  parentColumn: "catalog_root",
  order: [
    { column: "shortcode", kind: "text" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};

/**
 * The issues of an analyzer that `viewerId` may read ({@link issuesVisibleTo}), by shortcode.
 * Parent: the analyzer id.
 */
export function visibleIssuesOfAnalyzer(viewerId: string): ConnectionSource {
  return {
    name: `visibleIssuesOfAnalyzer:${viewerId}`,
    from: issuesVisibleTo(viewerId),
    parentColumn: "analyzer_id",
    order: [
      { column: "shortcode", kind: "text" },
      { column: "key", kind: "text" },
    ],
    direction: "asc",
  };
}

/** Every code formatter, by name. Parent: {@link CATALOG_ROOT}. */
export const allCodeFormatters: ConnectionSource = {
  name: "allCodeFormatters",
  from: sql`(SELECT f.*, cast(${sql.lit(CATALOG_ROOT)} as bigint) AS catalog_root FROM code_formatters f)`,
  parentColumn: "catalog_root",
  order: [
    { column: "name", kind: "text" },
    { column: "key", kind: "text" },
  ],
  direction: "asc",
};

/** `text` with the LIKE wildcards (`%`, `_`) and the escape character itself escaped. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The filter `codeFormatters(name_Icontains:)` applies: the name contains `text`, ignoring case,
 * with every character of `text` taken literally.
 */
export function nameContainsFilter(text: string | null | undefined) {
  if (text === null || text === undefined || text === "") return undefined;
  return {
    key: `name_icontains:${text}`,
    condition: sql<boolean>`s.name ILIKE ${`%${escapeLike(text)}%`} ESCAPE '\\'`,
  };
}

/** The analyzer with this shortcode, if any. */
export function findAnalyzerByShortcode(
  db: Kysely<Database>,
  shortcode: string,
): Promise<AnalyzerRow | undefined> {
  return db.selectFrom("analyzers").selectAll().where("shortcode", "=", shortcode).executeTakeFirst();
}

/** Inserts an analyzer unless one with its shortcode exists (then nothing changes). */
export async function insertAnalyzerIfAbsent(db: Kysely<Database>, analyzer: NewAnalyzer): Promise<void> {
  await db
    .insertInto("analyzers")
    .values(analyzer)
    .onConflict((oc) => oc.column("shortcode").doNothing())
    .execute();
}

/** The columns of an account's own issue (of a COMMUNITY analyzer) that its uploads may rewrite. */
const UPDATABLE_ISSUE_COLUMNS = [
  "title",
  "description",
  "short_description",
  "category",
  "severity",
  "tags",
] as const;

/** Only issues whose fields differ are rewritten, so an unchanged rule leaves its row alone. */
function issueChanged(columns: ReadonlyArray<(typeof UPDATABLE_ISSUE_COLUMNS)[number]>) {
  const stored = columns.map((column) => sql.ref(`issues.${column}`));
  const incoming = columns.map((column) => sql.ref(`excluded.${column}`));
  return sql<boolean>`(${sql.join(stored)}) IS DISTINCT FROM (${sql.join(incoming)})`;
}

/**
 * Inserts an account's own issues in one statement (each row names its `account_id`); an issue
 * whose (analyzer, account, shortcode) exists is left alone, or with `update` has its describing
 * columns rewritten when they differ — all but its category with `keepCategory` (a category
 * guessed from a level never replaces a stored one, docs/ingestion-sarif.md "A stored category
 * stays"). Shared issues and other accounts' are never written here (docs/ingestion-sarif.md "An
 * account's issues are its own"). Answers the shortcodes this statement inserted or rewrote, each
 * with whether it inserted it.
 */
export async function upsertIssues(
  db: Kysely<Database>,
  rows: readonly NewIssue[],
  update: boolean,
  keepCategory = false,
): Promise<Array<{ shortcode: string; inserted: boolean }>> {
  const columns = UPDATABLE_ISSUE_COLUMNS.filter((column) => !keepCategory || column !== "category");
  const written = await db
    .insertInto("issues")
    .values([...rows])
    .onConflict((oc) => {
      const target = oc
        .columns(["analyzer_id", "account_id", "shortcode"])
        .where("account_id", "is not", null);
      if (!update) return target.doNothing();
      return target
        .doUpdateSet((eb) =>
          Object.fromEntries(columns.map((column) => [column, eb.ref(`excluded.${column}`)])),
        )
        .where(issueChanged(columns));
    })
    // A row the statement inserted has no deleting transaction yet (PostgreSQL's `xmax` is 0).
    .returning(["shortcode", sql<boolean>`(xmax = 0)`.as("inserted")])
    .execute();
  return written;
}

/**
 * The id, category and owner of the analyzer's issues with these shortcodes that `accountId`'s
 * uploads file findings under: the shared ones and the account's own.
 */
export function findIssueCategoriesByShortcodes(
  db: Kysely<Database>,
  analyzerId: string,
  accountId: string,
  shortcodes: readonly string[],
): Promise<Array<{ id: string; shortcode: string; category: IssueCategory; account_id: string | null }>> {
  return db
    .selectFrom("issues")
    .select(["id", "shortcode", "category", "account_id"])
    .where("analyzer_id", "=", analyzerId)
    .where("shortcode", "in", shortcodes)
    .where((eb) => eb.or([eb("account_id", "is", null), eb("account_id", "=", accountId)]))
    .execute();
}

/** The shared issues of these analyzers: each one's id and shortcode, and its analyzer's shortcode. */
export function findIssueShortcodesOfAnalyzers(
  db: Kysely<Database>,
  analyzerIds: readonly string[],
): Promise<Array<{ id: string; shortcode: string; analyzer: string }>> {
  return db
    .selectFrom("issues as i")
    .innerJoin("analyzers as a", "a.id", "i.analyzer_id")
    .select(["i.id", "i.shortcode", "a.shortcode as analyzer"])
    .where("i.analyzer_id", "in", analyzerIds)
    .where("i.account_id", "is", null)
    .execute();
}
