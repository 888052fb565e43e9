import type {
  AccountSubscriptionPlan,
  AccountType,
  IdeSubscriptionPlan,
  TeamMemberRole,
  VcsProvider,
} from "../../db/types.ts";
import { ANALYZERS } from "../catalog/catalog-data.ts";
import type { IssueRef, RepositorySpec } from "./plan-types.ts";
import { type KeySpace, Random } from "./random.ts";
import { FIRST_NAMES, LAST_NAMES, PROFILES, profileNamed, repositoryName, teamLogin } from "./vocabulary.ts";

/**
 * Users, accounts, memberships and team suppressions: the demo's fixed people and teams, plus, for
 * larger sizes, generated teams of generated people with repositories spread over them (a few
 * large teams, many small ones).
 */

/** The e-mail of the demo user the demo token belongs to. */
export const DEMO_USER_EMAIL = "ada@acme-labs.example";
/** The demo team's login. */
export const DEMO_TEAM_LOGIN = "acme-labs";

const DAY = 86_400_000;

export interface PlannedUser {
  key: string;
  email: string;
  firstName: string;
  lastName: string;
  analyticsId: string;
  idePlan: IdeSubscriptionPlan | null;
  createdAt: Date;
}

export interface PlannedAccount {
  key: string;
  login: string;
  provider: VcsProvider;
  type: AccountType;
  plan: AccountSubscriptionPlan;
  createdAt: Date;
}

export interface PlannedMembership {
  key: string;
  accountKey: string;
  userKey: string;
  role: TeamMemberRole;
  isOwner: boolean;
  joinedAt: Date;
}

export interface PlannedSuppression {
  key: string;
  accountKey: string;
  issue: IssueRef;
  userKey: string | null;
  createdAt: Date;
}

/** Everything above the repositories. */
export interface AccountsPlan {
  users: PlannedUser[];
  accounts: PlannedAccount[];
  memberships: PlannedMembership[];
  suppressions: PlannedSuppression[];
  repositories: RepositorySpec[];
  demoUserKey: string;
}

const PEOPLE: Array<{ first: string; last: string; email: string; role: TeamMemberRole }> = [
  { first: "Ada", last: "Lovelace", email: DEMO_USER_EMAIL, role: "ADMIN" },
  { first: "Grace", last: "Hopper", email: "grace@acme-labs.example", role: "ADMIN" },
  { first: "Alan", last: "Turing", email: "alan@acme-labs.example", role: "MEMBER" },
  { first: "Katherine", last: "Johnson", email: "katherine@acme-labs.example", role: "MEMBER" },
  { first: "Edsger", last: "Dijkstra", email: "edsger@acme-labs.example", role: "CONTRIBUTOR" },
];

/** The demo's repositories: name, profile, analyzers, visibility and open pull-request branches. */
const DEMO_REPOSITORIES: Array<{
  account: "acme-labs" | "ada-lovelace" | "globex";
  name: string;
  profile: string;
  analyzers: string[];
  isPrivate: boolean;
  openBranches: string[];
}> = [
  {
    account: "acme-labs",
    name: "api-gateway",
    profile: "go-service",
    analyzers: ["go", "docker", "shell", "secrets", "test-coverage"],
    isPrivate: true,
    openBranches: ["feat/rate-limits", "fix/timeout-handling"],
  },
  {
    account: "acme-labs",
    name: "web-dashboard",
    profile: "node-app",
    analyzers: ["javascript", "docker", "secrets", "test-coverage"],
    isPrivate: true,
    openBranches: ["feat/dark-mode"],
  },
  {
    account: "acme-labs",
    name: "billing-service",
    profile: "java-service",
    analyzers: ["java", "docker", "sql", "secrets", "test-coverage"],
    isPrivate: true,
    openBranches: ["chore/upgrade-deps", "feat/invoices-v2"],
  },
  {
    account: "acme-labs",
    name: "infra-terraform",
    profile: "infrastructure",
    analyzers: ["terraform", "shell", "docker", "secrets"],
    isPrivate: true,
    openBranches: [],
  },
  {
    account: "acme-labs",
    name: "open-sdk-python",
    profile: "python-service",
    analyzers: ["python", "secrets", "test-coverage"],
    isPrivate: false,
    openBranches: ["docs/examples"],
  },
  {
    account: "acme-labs",
    name: "sensor-firmware",
    profile: "firmware",
    analyzers: ["cxx", "shell", "secrets", "test-coverage"],
    isPrivate: true,
    openBranches: [],
  },
  {
    account: "ada-lovelace",
    name: "notebooks",
    profile: "python-service",
    analyzers: ["python", "test-coverage"],
    isPrivate: false,
    openBranches: [],
  },
  {
    account: "globex",
    name: "secret-project",
    profile: "rust-crate",
    analyzers: ["rust", "secrets", "test-coverage"],
    isPrivate: true,
    openBranches: ["feat/telemetry"],
  },
];

/** Rules teams typically silence: style and documentation nits. */
const SUPPRESSIBLE: IssueRef[] = ANALYZERS.flatMap((a) =>
  a.issues
    .filter((i) => i.category === "STYLE" || i.category === "DOCUMENTATION")
    .map((i) => `${a.shortcode}:${i.shortcode}`),
);

class AccountsBuilder {
  readonly plan: AccountsPlan = {
    users: [],
    accounts: [],
    memberships: [],
    suppressions: [],
    repositories: [],
    demoUserKey: "",
  };
  private readonly nextKey: Record<string, () => string>;
  private readonly emails = new Set<string>();
  private readonly logins = new Set<string>();

  constructor(
    readonly rand: Random,
    keys: KeySpace,
    private readonly now: number,
  ) {
    this.nextKey = Object.fromEntries(
      ["users", "accounts", "memberships", "team_suppressed_issues"].map((t) => [t, keys.counter(t, 0)]),
    );
  }

  user(first: string, last: string, email: string, idePlan: IdeSubscriptionPlan | null): PlannedUser {
    const user: PlannedUser = {
      key: this.nextKey.users!(),
      email,
      firstName: first,
      lastName: last,
      analyticsId: this.rand.uuid(),
      idePlan,
      createdAt: new Date(this.now - this.rand.int(400, 900) * DAY),
    };
    this.emails.add(email.toLowerCase());
    this.plan.users.push(user);
    return user;
  }

  account(
    login: string,
    provider: VcsProvider,
    type: AccountType,
    plan: AccountSubscriptionPlan,
  ): PlannedAccount {
    const account: PlannedAccount = {
      key: this.nextKey.accounts!(),
      login,
      provider,
      type,
      plan,
      createdAt: new Date(this.now - this.rand.int(380, 700) * DAY),
    };
    this.logins.add(login.toLowerCase());
    this.plan.accounts.push(account);
    return account;
  }

  member(account: PlannedAccount, user: PlannedUser, role: TeamMemberRole, isOwner: boolean): void {
    this.plan.memberships.push({
      key: this.nextKey.memberships!(),
      accountKey: account.key,
      userKey: user.key,
      role,
      isOwner,
      joinedAt: new Date(account.createdAt.getTime() + this.rand.int(0, 300) * DAY),
    });
  }

  suppress(account: PlannedAccount, issue: IssueRef, user: PlannedUser | null, daysAgo: number): void {
    this.plan.suppressions.push({
      key: this.nextKey.team_suppressed_issues!(),
      accountKey: account.key,
      issue,
      userKey: user?.key ?? null,
      createdAt: new Date(this.now - daysAgo * DAY),
    });
  }

  uniqueEmail(first: string, last: string, domain: string): string {
    const base = `${first}.${last}`.toLowerCase();
    let email = `${base}@${domain}`;
    for (let n = 2; this.emails.has(email); n++) email = `${base}${n}@${domain}`;
    return email;
  }

  uniqueLogin(make: (n: number) => string): string {
    let login = make(0);
    for (let n = 2; this.logins.has(login.toLowerCase()); n++) login = make(n);
    return login;
  }

  members(account: PlannedAccount): string[] {
    return this.plan.memberships.filter((m) => m.accountKey === account.key).map((m) => m.userKey);
  }

  suppressionsOf(account: PlannedAccount): RepositorySpec["teamSuppressions"] {
    return this.plan.suppressions
      .filter((s) => s.accountKey === account.key)
      .map((s) => ({ issue: s.issue, createdAt: s.createdAt }));
  }
}

/** The demo's people, teams and repositories (the same at every size). */
function planDemo(b: AccountsBuilder): void {
  const users = PEOPLE.map((p) => b.user(p.first, p.last, p.email, p.role === "ADMIN" ? "PRO" : null));
  b.plan.demoUserKey = users[0]!.key;
  const team = b.account(DEMO_TEAM_LOGIN, "GITHUB", "TEAM", "BUSINESS");
  for (const [i, p] of PEOPLE.entries()) b.member(team, users[i]!, p.role, i === 0);
  const personal = b.account("ada-lovelace", "GITHUB", "INDIVIDUAL", "FREE");
  b.member(personal, users[0]!, "ADMIN", true);
  const hedy = b.user("Hedy", "Lamarr", "hedy@globex.example", null);
  const globex = b.account("globex", "GITLAB", "TEAM", "FREE");
  b.member(globex, hedy, "ADMIN", true);
  b.suppress(team, "python:FLK-E501", users[1]!, 40);
  b.suppress(team, "docker:DOK-DL3008", users[0]!, 75);
  b.suppress(globex, "rust:RS-W1015", hedy, 20);
  const accounts = { "acme-labs": team, "ada-lovelace": personal, globex };
  for (const repo of DEMO_REPOSITORIES) {
    const account = accounts[repo.account];
    b.plan.repositories.push({
      index: b.plan.repositories.length,
      accountKey: account.key,
      accountLogin: account.login,
      provider: account.provider,
      name: repo.name,
      profile: profileNamed(repo.profile),
      analyzers: repo.analyzers,
      isPrivate: repo.isPrivate,
      defaultBranch: "main",
      openBranches: repo.openBranches,
      memberKeys: b.members(account),
      teamSuppressions: b.suppressionsOf(account),
    });
  }
}

/** Generated teams, people and repositories for sizes beyond the demo. */
function planGenerated(b: AccountsBuilder, teams: number, repositories: number): void {
  const r = b.rand;
  const demoUser = b.plan.users[0]!;
  const teamAccounts: PlannedAccount[] = [];
  const individuals: PlannedAccount[] = [];
  for (let t = 0; t < teams; t++) {
    const provider = r.weighted<VcsProvider>(["GITHUB", "GITLAB", "BITBUCKET"], [7, 2, 1]);
    const login = b.uniqueLogin((n) => teamLogin(r, n));
    const plan = r.weighted<AccountSubscriptionPlan>(
      ["FREE", "STARTER", "BUSINESS", "ENTERPRISE"],
      [3, 3, 2, 1],
    );
    const team = b.account(login, provider, "TEAM", plan);
    teamAccounts.push(team);
    const size = r.int(3, 25);
    for (let m = 0; m < size; m++) {
      const first = r.pick(FIRST_NAMES);
      const last = r.pick(LAST_NAMES);
      const user = b.user(
        first,
        last,
        b.uniqueEmail(first, last, `${login}.example`),
        r.chance(0.1) ? "PRO" : null,
      );
      const role =
        m === 0 ? "ADMIN" : r.weighted<TeamMemberRole>(["ADMIN", "MEMBER", "CONTRIBUTOR"], [15, 70, 15]);
      b.member(team, user, role, m === 0);
      if (r.chance(0.06)) {
        const personal = b.account(
          b.uniqueLogin((n) => `${first}-${last}${n > 0 ? n : ""}`.toLowerCase()),
          provider,
          "INDIVIDUAL",
          "FREE",
        );
        b.member(personal, user, "ADMIN", true);
        individuals.push(personal);
      }
    }
    // The demo user belongs to a few generated teams, so the demo token sees large data too.
    if (t < 5) b.member(team, demoUser, "MEMBER", false);
    if (r.chance(0.5)) {
      const admins = b.plan.memberships.filter((m) => m.accountKey === team.key && m.role === "ADMIN");
      const admin = b.plan.users.find((u) => u.key === r.pick(admins).userKey) ?? null;
      for (const issue of r.sample(SUPPRESSIBLE, r.int(1, 3))) b.suppress(team, issue, admin, r.int(5, 200));
    }
  }
  const weights = teamAccounts.map((_, t) => 1 / (t + 1) ** 0.8);
  const namesTaken = new Map<string, Set<string>>();
  for (let i = 0; i < repositories; i++) {
    const account =
      individuals.length > 0 && r.chance(0.08) ? r.pick(individuals) : r.weighted(teamAccounts, weights);
    const profile = r.weighted(
      PROFILES,
      PROFILES.map((p) => p.weight),
    );
    const taken = namesTaken.get(account.key) ?? new Set<string>();
    namesTaken.set(account.key, taken);
    let name = repositoryName(r);
    for (let n = 2; taken.has(name); n++) name = `${repositoryName(r)}-${n}`;
    taken.add(name);
    const analyzers = [
      profile.primary,
      ...profile.analyzers,
      ...profile.optional.filter(([, p]) => r.chance(p)).map(([a]) => a),
      ...(profile.coverage.length > 0 && r.chance(0.8) ? ["test-coverage"] : []),
    ];
    b.plan.repositories.push({
      index: b.plan.repositories.length,
      accountKey: account.key,
      accountLogin: account.login,
      provider: account.provider,
      name,
      profile,
      analyzers: [...new Set(analyzers)],
      isPrivate: r.chance(0.85),
      defaultBranch: r.weighted(["main", "master", "develop"], [85, 12, 3]),
      openBranches: [],
      memberKeys: b.members(account),
      teamSuppressions: b.suppressionsOf(account),
    });
  }
}

/** Plans the accounts side: the demo, plus `teams` generated teams holding `repositories` repositories. */
export function planAccounts(
  seed: number,
  keys: KeySpace,
  now: Date,
  generated: { teams: number; repositories: number },
): AccountsPlan {
  const builder = new AccountsBuilder(Random.derive(seed, "accounts"), keys, now.getTime());
  planDemo(builder);
  if (generated.repositories > 0)
    planGenerated(builder, Math.max(1, generated.teams), generated.repositories);
  return builder.plan;
}
