import { createHash, randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { AnalysisRunStatus, Database, TeamMemberRole } from "../../db/types.ts";
import { newRowKey } from "../../graphql/global-id.ts";
import { insertAccount, upsertMembership } from "../accounts/account-store.ts";
import { createToken } from "../auth/token-service.ts";
import { insertRepository } from "../repositories/repository-store.ts";
import { insertRun } from "../runs/run-store.ts";
import { insertUser } from "../users/user-store.ts";

/** The e-mail of the demo user the demo token belongs to. */
export const DEMO_USER_EMAIL = "ada@acme-labs.example";
/** The demo team's login. */
export const DEMO_TEAM_LOGIN = "acme-labs";

const PEOPLE: Array<{ first: string; last: string; email: string; role: TeamMemberRole }> = [
  { first: "Ada", last: "Lovelace", email: DEMO_USER_EMAIL, role: "ADMIN" },
  { first: "Grace", last: "Hopper", email: "grace@acme-labs.example", role: "ADMIN" },
  { first: "Alan", last: "Turing", email: "alan@acme-labs.example", role: "MEMBER" },
  { first: "Katherine", last: "Johnson", email: "katherine@acme-labs.example", role: "MEMBER" },
  { first: "Edsger", last: "Dijkstra", email: "edsger@acme-labs.example", role: "CONTRIBUTOR" },
];

const REPOSITORIES = [
  { name: "api-gateway", isPrivate: true, branches: ["feat/rate-limits", "fix/timeout-handling"] },
  { name: "web-dashboard", isPrivate: true, branches: ["feat/dark-mode"] },
  { name: "billing-service", isPrivate: true, branches: ["chore/upgrade-deps", "feat/invoices-v2"] },
  { name: "infra-terraform", isPrivate: true, branches: [] },
  { name: "open-sdk-python", isPrivate: false, branches: ["docs/examples"] },
];

/** A deterministic 40-hex-digit commit SHA, so the demo data is the same on every machine. */
function commitSha(seed: string): string {
  return createHash("sha1").update(seed).digest("hex");
}

/** Cheap deterministic pseudo-random numbers (mulberry32) for realistic but stable data. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** True when the database already holds the demo team. */
export async function hasDemoData(db: Kysely<Database>): Promise<boolean> {
  const row = await db
    .selectFrom("accounts")
    .select("id")
    .where("login", "=", DEMO_TEAM_LOGIN)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Seeds the demo: a team with five members, an individual account, five repositories with a
 * month of analysis runs on the default branch and feature branches, and another team the demo
 * user does not belong to (so visibility can be seen). All in one transaction. Returns the demo
 * token, which exists nowhere else in plain text.
 */
export async function seedDemo(
  db: Kysely<Database>,
  pepper: string,
  now = new Date(),
): Promise<{ token: string; email: string }> {
  return db.transaction().execute(async (trx) => {
    const users = [];
    for (const person of PEOPLE) {
      users.push(
        await insertUser(trx, {
          key: newRowKey(),
          email: person.email,
          first_name: person.first,
          last_name: person.last,
          analytics_id: randomUUID(),
          ide_subscription_plan: person.role === "ADMIN" ? "PRO" : null,
        }),
      );
    }
    const team = await insertAccount(trx, {
      key: newRowKey(),
      login: DEMO_TEAM_LOGIN,
      vcs_provider: "GITHUB",
      type: "TEAM",
      subscription_plan: "BUSINESS",
    });
    for (const [i, person] of PEOPLE.entries()) {
      await upsertMembership(trx, {
        key: newRowKey(),
        accountId: team.id,
        userId: users[i]!.id,
        role: person.role,
        isOwner: i === 0,
      });
    }
    const personal = await insertAccount(trx, {
      key: newRowKey(),
      login: "ada-lovelace",
      vcs_provider: "GITHUB",
      type: "INDIVIDUAL",
    });
    await upsertMembership(trx, {
      key: newRowKey(),
      accountId: personal.id,
      userId: users[0]!.id,
      role: "ADMIN",
      isOwner: true,
    });

    const rand = random(20261121);
    const repositories = [...REPOSITORIES.map((r) => ({ ...r, accountId: team.id }))];
    repositories.push({ name: "notebooks", isPrivate: false, branches: [], accountId: personal.id });
    for (const spec of repositories) {
      const repository = await insertRepository(trx, {
        key: newRowKey(),
        account_id: spec.accountId,
        name: spec.name,
        is_private: spec.isPrivate,
        is_activated: true,
        default_branch: "main",
        config_json: JSON.stringify({ version: 1, analyzers: [{ name: "python", enabled: true }] }),
      });
      let previousMain: string | null = null;
      const runCount = 6 + Math.floor(rand() * 6);
      for (let i = 0; i < runCount; i++) {
        const onMain = spec.branches.length === 0 || rand() < 0.6;
        const branch: string = onMain ? "main" : spec.branches[Math.floor(rand() * spec.branches.length)]!;
        const createdAt = new Date(now.getTime() - (runCount - i) * (2 + rand() * 3) * 86_400_000);
        const commit = commitSha(`${spec.name}:${i}`);
        const roll = rand();
        const status: AnalysisRunStatus =
          i === runCount - 1 && roll < 0.3
            ? "PENDING"
            : roll < 0.75
              ? "SUCCESS"
              : roll < 0.95
                ? "FAILURE"
                : "TIMEOUT";
        await insertRun(trx, {
          key: newRowKey(),
          run_uid: randomUUID(),
          repository_id: repository.id,
          branch_name: branch,
          base_oid: previousMain,
          commit_oid: commit,
          status,
          created_at: createdAt,
          updated_at: new Date(createdAt.getTime() + 90_000),
          finished_at:
            status === "PENDING" ? null : new Date(createdAt.getTime() + 60_000 + rand() * 240_000),
        });
        if (onMain) previousMain = commit;
      }
      if (previousMain) {
        await trx
          .updateTable("repositories")
          .set({ latest_commit_oid: previousMain })
          .where("id", "=", repository.id)
          .execute();
      }
    }

    // Another team on the same server that the demo user cannot see.
    const other = await insertUser(trx, {
      key: newRowKey(),
      email: "hedy@globex.example",
      first_name: "Hedy",
      last_name: "Lamarr",
      analytics_id: randomUUID(),
    });
    const globex = await insertAccount(trx, {
      key: newRowKey(),
      login: "globex",
      vcs_provider: "GITLAB",
      type: "TEAM",
    });
    await upsertMembership(trx, {
      key: newRowKey(),
      accountId: globex.id,
      userId: other.id,
      role: "ADMIN",
      isOwner: true,
    });
    await insertRepository(trx, {
      key: newRowKey(),
      account_id: globex.id,
      name: "secret-project",
      default_branch: "main",
    });

    const { token } = await createToken(trx, pepper, {
      userId: users[0]!.id,
      name: "demo",
      expiresInDays: 365,
      now,
    });
    return { token, email: DEMO_USER_EMAIL };
  });
}
