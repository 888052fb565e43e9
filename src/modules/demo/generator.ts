import type { Kysely } from "kysely";
import type { Database } from "../../db/types.ts";
import { findAnalyzerIdsByShortcodes } from "../catalog/builtin-catalog-store.ts";
import { ANALYZERS, upsertCatalog } from "../catalog/catalog-data.ts";
import { findIssueShortcodesOfAnalyzers } from "../catalog/catalog-store.ts";
import {
  type AccountsPlan,
  type PlannedAccount,
  type PlannedMembership,
  type PlannedSuppression,
  type PlannedUser,
  planAccounts,
} from "./account-plan.ts";
import type { SbomUploader } from "./demo-sbom.ts";
import { column as c, insertRows, insertRowsReturningIds } from "./demo-store.ts";
import type { HistoryParameters, RepositoryPlan } from "./plan-types.ts";
import { type RowCounts, type WriterContext, writeRepositoryPlans } from "./plan-writer.ts";
import { KeySpace } from "./random.ts";
import { planRepository } from "./repository-plan.ts";

/**
 * The deterministic data generator. Given a size, a seed and a clock it fills every table of the
 * read model: the catalog, users, accounts, memberships, team suppressions, and for each
 * repository its runs, checks, occurrences, metrics, coverage, settings and ignore rules, written
 * in bulk; its pull requests, branch heads and webhook secret through the webhook code, and its
 * SBOMs through the SBOM ingestion, which makes its packages, targets, SCA checks and
 * vulnerability occurrences (the advisories are imported first by the caller, see demo-seed.ts).
 *
 * Determinism: the same seed, size, scale and `now` give the same bulk-written rows, keys
 * included (see {@link KeySpace}); rows the real code writes get the real code's random keys
 * (and the demo token, webhook secrets and delivery ids are random), but their content is
 * deterministic too. Repositories are planned one by one from their own random streams, so
 * generating in chunks changes nothing.
 */

/** The sizes `demo seed --size` accepts. */
export const DEMO_SIZES = ["small", "large"] as const;
export type DemoSize = (typeof DEMO_SIZES)[number];

/** The seed `npm start` and `demo seed` use unless told otherwise. */
export const DEFAULT_SEED = 20261121;

/** What a size generates. */
export interface SizeParameters extends HistoryParameters {
  /** Teams generated besides the demo's. */
  generatedTeams: number;
  /** Repositories generated besides the demo's eight. */
  generatedRepositories: number;
}

/**
 * The parameters of a size. `scale` (large only) multiplies the generated teams and repositories:
 * tests run `large` at a small scale; 1 gives over 1,000 repositories and 1,000,000 occurrences.
 */
export function sizeParameters(size: DemoSize, scale = 1): SizeParameters {
  if (size === "small") {
    return {
      generatedTeams: 0,
      generatedRepositories: 0,
      historyDays: 120,
      mainRuns: [8, 12],
      pullRequests: [2, 4],
      runsPerPullRequest: [1, 3],
      findingsScale: 0.35,
    };
  }
  if (!(scale > 0)) throw new RangeError("scale must be positive");
  return {
    generatedTeams: Math.max(1, Math.round(80 * scale)),
    generatedRepositories: Math.max(1, Math.round(1000 * scale)),
    historyDays: 365,
    mainRuns: [10, 24],
    pullRequests: [3, 9],
    runsPerPullRequest: [1, 3],
    findingsScale: 0.8,
  };
}

/** Options of {@link generateData}. */
export interface GenerateOptions {
  size: DemoSize;
  seed?: number;
  scale?: number;
  now?: Date;
  /** Repositories planned and written per step (memory stays flat for any size). */
  chunkSize?: number;
  onProgress?: (message: string) => void;
}

/** What generating needs from the caller besides the options. */
export interface GenerateDependencies {
  /** Encrypts the repositories' webhook secrets (ASSAY_TOKEN_PEPPER). */
  pepper: string;
  /** The SBOM ingestion (src/ingestion/sca/sbom-upload.ts), passed in by the wiring. */
  uploadSbom: SbomUploader;
}

/** What {@link generateData} wrote. */
export interface GeneratedData {
  /** Rows inserted per table (the catalog and advisories are upserted and not counted). */
  counts: RowCounts;
  /** The demo user's id, for the caller's token. */
  demoUserId: string;
}

/** The plans of repositories `from` to `to` (exclusive): pure, for tests and for the writer. */
export function planRepositories(
  accounts: AccountsPlan,
  params: SizeParameters,
  seed: number,
  now: Date,
  range: { from: number; to: number } = { from: 0, to: accounts.repositories.length },
): RepositoryPlan[] {
  const keys = new KeySpace(seed);
  return accounts.repositories
    .slice(range.from, range.to)
    .map((spec) => planRepository(spec, params, seed, now, keys));
}

/** The accounts side of a size: pure, for tests and for the writer. */
export function planSize(options: Pick<GenerateOptions, "size" | "seed" | "scale" | "now">): {
  accounts: AccountsPlan;
  params: SizeParameters;
  seed: number;
  now: Date;
} {
  const seed = options.seed ?? DEFAULT_SEED;
  const now = options.now ?? new Date();
  const params = sizeParameters(options.size, options.scale);
  const accounts = planAccounts(seed, new KeySpace(seed), now, {
    teams: params.generatedTeams,
    repositories: params.generatedRepositories,
  });
  return { accounts, params, seed, now };
}

/**
 * Generates a size into `trx`, which the caller runs as one transaction. Refuses nothing: the
 * caller checks that the demo is not there yet (its logins and e-mails are unique).
 */
export async function generateData(
  trx: Kysely<Database>,
  options: GenerateOptions,
  deps: GenerateDependencies,
): Promise<GeneratedData> {
  const started = Date.now();
  const { accounts, params, seed, now } = planSize(options);
  const progress = options.onProgress ?? (() => {});
  await upsertCatalog(trx);
  const ctx = await writerContext(trx, await writeAccounts(trx, accounts), deps);
  const counts: RowCounts = {
    users: accounts.users.length,
    accounts: accounts.accounts.length,
    memberships: accounts.memberships.length,
    team_suppressed_issues: accounts.suppressions.length,
  };
  const total = accounts.repositories.length;
  const chunk = options.chunkSize ?? 25;
  for (let from = 0; from < total; from += chunk) {
    const plans = planRepositories(accounts, params, seed, now, { from, to: Math.min(total, from + chunk) });
    await writeRepositoryPlans(trx, plans, ctx, counts);
    if (total > chunk) {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      progress(
        `${Math.min(total, from + chunk)}/${total} repositories, ${(counts.occurrences ?? 0).toLocaleString("en")} occurrences (${seconds} s)`,
      );
    }
  }
  return { counts, demoUserId: ctx.userIds.get(accounts.demoUserKey)! };
}

async function writeAccounts(trx: Kysely<Database>, plan: AccountsPlan) {
  const userIds = await insertRowsReturningIds<PlannedUser>(
    trx,
    "users",
    [
      c("key", "text", (u) => u.key),
      c("email", "text", (u) => u.email),
      c("first_name", "text", (u) => u.firstName),
      c("last_name", "text", (u) => u.lastName),
      c("analytics_id", "uuid", (u) => u.analyticsId),
      c("ide_subscription_plan", "text", (u) => u.idePlan),
      c("created_at", "timestamptz", (u) => u.createdAt),
      c("updated_at", "timestamptz", (u) => u.createdAt),
    ],
    plan.users,
  );
  const accountIds = await insertRowsReturningIds<PlannedAccount>(
    trx,
    "accounts",
    [
      c("key", "text", (a) => a.key),
      c("login", "text", (a) => a.login),
      c("vcs_provider", "text", (a) => a.provider),
      c("type", "text", (a) => a.type),
      c("subscription_plan", "text", (a) => a.plan),
      c("avatar_url", "text", (a) => `https://avatars.assay.example/${a.login}.png`),
      c("vcs_url", "text", (a) => `${providerHost(a.provider)}/${a.login}`),
      c("created_at", "timestamptz", (a) => a.createdAt),
      c("updated_at", "timestamptz", (a) => a.createdAt),
    ],
    plan.accounts,
  );
  await insertRows<PlannedMembership>(
    trx,
    "memberships",
    [
      c("key", "text", (m) => m.key),
      c("account_id", "bigint", (m) => accountIds.get(m.accountKey)!),
      c("user_id", "bigint", (m) => userIds.get(m.userKey)!),
      c("role", "text", (m) => m.role),
      c("is_owner", "boolean", (m) => m.isOwner),
      c("joined_at", "timestamptz", (m) => m.joinedAt),
    ],
    plan.memberships,
  );
  return { plan, userIds, accountIds };
}

async function writerContext(
  trx: Kysely<Database>,
  written: Awaited<ReturnType<typeof writeAccounts>>,
  deps: GenerateDependencies,
): Promise<WriterContext> {
  const analyzerIds = await findAnalyzerIdsByShortcodes(
    trx,
    ANALYZERS.map((a) => a.shortcode),
  );
  const issues = await findIssueShortcodesOfAnalyzers(trx, [...analyzerIds.values()]);
  const issueIds = new Map(issues.map((i) => [`${i.analyzer}:${i.shortcode}`, i.id]));
  const ctx: WriterContext = {
    accountIds: written.accountIds,
    userIds: written.userIds,
    analyzerIds,
    issueIds,
    pepper: deps.pepper,
    uploadSbom: deps.uploadSbom,
    accountSecrets: new Map(),
  };
  await insertRows<PlannedSuppression>(
    trx,
    "team_suppressed_issues",
    [
      c("key", "text", (s) => s.key),
      c("account_id", "bigint", (s) => ctx.accountIds.get(s.accountKey)!),
      c("issue_id", "bigint", (s) => ctx.issueIds.get(s.issue)!),
      c("user_id", "bigint", (s) => (s.userKey === null ? null : ctx.userIds.get(s.userKey)!)),
      c("created_at", "timestamptz", (s) => s.createdAt),
    ],
    written.plan.suppressions,
  );
  return ctx;
}

function providerHost(provider: string): string {
  if (provider === "GITLAB") return "https://gitlab.com";
  if (provider === "BITBUCKET") return "https://bitbucket.org";
  return "https://github.com";
}
