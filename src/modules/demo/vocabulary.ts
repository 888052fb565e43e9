import type { Ecosystem, MetricKey } from "../../db/types.ts";
import type { Random } from "./random.ts";

/** Splits a space-separated list of words. */
function words(text: string): string[] {
  return text.split(" ");
}

/** Words the generator builds names, paths and titles from. */

export const FIRST_NAMES = words(
  "Amara Bruno Chen Dalia Elif Farid Greta Hiro Ines Jonas Kavya Liam Mira Nikolai Olga Priya " +
    "Quentin Rosa Sven Tariq Uma Viktor Wen Ximena Yusuf Zofia Aiko Bjorn Carmen Dmitri Esme " +
    "Felix Hana Ivan Joao Leila",
);

export const LAST_NAMES = words(
  "Abara Berg Costa Dubois Eriksen Fischer Garcia Haddad Ito Jansen Kowalski Laine Moreau " +
    "Novak Okafor Petrov Quist Rossi Sato Tanaka Urban Varga Weber Xu Yilmaz Zimmer Alvarez " +
    "Brandt Castillo Dahl Ekstrom Ferreira",
);

const LOGIN_FIRST = words(
  "north blue iron bright silver red quiet swift deep open green solar lunar stone cedar " +
    "copper polar amber rapid clear",
);
const LOGIN_SECOND = words(
  "harbor forge labs works systems cloud data grid wave peak river field signal orbit stack " +
    "bridge path hive point line",
);

/** A team login such as `iron-harbor`; `n` > 0 appends a number to keep it unique. */
export function teamLogin(rand: Random, n: number): string {
  const base = `${rand.pick(LOGIN_FIRST)}-${rand.pick(LOGIN_SECOND)}`;
  return n > 0 ? `${base}-${n}` : base;
}

const REPO_SUBJECTS = words(
  "payments search identity inventory catalog checkout notifications analytics reporting " +
    "scheduler ingest billing gateway storefront ledger pricing shipping messaging profile " +
    "media recommendations audit onboarding support metrics",
);
const REPO_SUFFIXES = [
  "api",
  "service",
  "worker",
  "app",
  "web",
  "sdk",
  "cli",
  "pipeline",
  "infra",
  "core",
  "ui",
];

/** A repository name such as `ledger-worker`. */
export function repositoryName(rand: Random): string {
  return `${rand.pick(REPO_SUBJECTS)}-${rand.pick(REPO_SUFFIXES)}`;
}

const MODULES = words(
  "auth billing users orders config client handlers cache events reports search storage " +
    "notifications webhooks permissions pagination exporters validators sessions invoices " +
    "accounts metrics queue scheduler parser retry mailer",
);
const LAYERS = ["api", "models", "services", "utils", "db", "cli", "tasks", "core", "adapters", "domain"];

const pascal = (word: string) => word.replace(/(^|[-_])(\w)/g, (_m, _s, c: string) => c.toUpperCase());

/** Source files of one language: the paths the analyzer's findings point into. */
const FILE_SHAPES: Record<string, (rand: Random, project: string) => string> = {
  python: (r, p) =>
    r.chance(0.25)
      ? `tests/${r.pick(LAYERS)}/test_${r.pick(MODULES)}.py`
      : `src/${p.replaceAll("-", "_")}/${r.pick(LAYERS)}/${r.pick(MODULES)}.py`,
  javascript: (r) =>
    r.pick([
      () => `src/components/${pascal(r.pick(MODULES))}${r.pick(["List", "Form", "Panel", "Card", ""])}.tsx`,
      () => `src/hooks/use${pascal(r.pick(MODULES))}.ts`,
      () => `src/lib/${r.pick(MODULES)}.ts`,
      () => `src/pages/${r.pick(MODULES)}/index.tsx`,
      () => `server/routes/${r.pick(MODULES)}.js`,
      () => `src/__tests__/${pascal(r.pick(MODULES))}.test.tsx`,
    ])(),
  go: (r, p) =>
    r.pick([
      () => `internal/${r.pick(MODULES)}/${r.pick(MODULES)}.go`,
      () => `internal/${r.pick(MODULES)}/${r.pick(MODULES)}_test.go`,
      () => `pkg/${r.pick(MODULES)}/${r.pick(LAYERS)}.go`,
      () => `cmd/${p}/main.go`,
    ])(),
  java: (r, p) => {
    const pkg = `src/${r.chance(0.2) ? "test" : "main"}/java/com/${p.split("-")[0]}/${r.pick(LAYERS)}`;
    return `${pkg}/${pascal(r.pick(MODULES))}${r.pick(["Service", "Controller", "Repository", "Mapper", ""])}.java`;
  },
  scala: (r, p) => `src/main/scala/${p.split("-")[0]}/${r.pick(LAYERS)}/${pascal(r.pick(MODULES))}.scala`,
  kotlin: (r, p) =>
    `app/src/main/kotlin/com/${p.split("-")[0]}/${r.pick(LAYERS)}/${pascal(r.pick(MODULES))}${r.pick(["ViewModel", "Repository", "Screen", ""])}.kt`,
  ruby: (r) =>
    r.pick([
      () => `app/models/${r.pick(MODULES)}.rb`,
      () => `app/controllers/${r.pick(MODULES)}_controller.rb`,
      () => `app/services/${r.pick(MODULES)}_service.rb`,
      () => `lib/${r.pick(MODULES)}.rb`,
      () => `spec/models/${r.pick(MODULES)}_spec.rb`,
    ])(),
  rust: (r) =>
    r.pick([
      () => `src/${r.pick(MODULES)}.rs`,
      () => `src/${r.pick(LAYERS)}/mod.rs`,
      () => `crates/${r.pick(MODULES)}/src/lib.rs`,
      () => `crates/${r.pick(MODULES)}/src/${r.pick(MODULES)}.rs`,
    ])(),
  php: (r) =>
    r.pick([
      () => `app/Http/Controllers/${pascal(r.pick(MODULES))}Controller.php`,
      () => `app/Models/${pascal(r.pick(MODULES))}.php`,
      () => `src/${pascal(r.pick(LAYERS))}/${pascal(r.pick(MODULES))}Service.php`,
      () => `tests/Feature/${pascal(r.pick(MODULES))}Test.php`,
    ])(),
  csharp: (r, p) =>
    `src/${pascal(p)}/${pascal(r.pick(LAYERS))}/${pascal(r.pick(MODULES))}${r.pick(["Service", "Controller", "Handler", ""])}.cs`,
  cxx: (r) =>
    r.pick([
      () => `src/${r.pick(MODULES)}.c`,
      () => `src/drivers/${r.pick(["uart", "spi", "i2c", "adc", "gpio", "flash", "can", "usb"])}.c`,
      () => `src/hal/${r.pick(["clock", "timer", "dma", "power", "watchdog"])}.c`,
      () => `include/${r.pick(MODULES)}.h`,
      () => `lib/${r.pick(["ringbuf", "crc", "fifo", "json", "base64"])}.c`,
    ])(),
  swift: (r, p) =>
    `Sources/${pascal(p)}/${pascal(r.pick(MODULES))}${r.pick(["View", "Model", "Store", ""])}.swift`,
  docker: (r) =>
    r.pick(["Dockerfile", "docker/dev.Dockerfile", "docker/worker.Dockerfile", "deploy/Dockerfile.prod"]),
  terraform: (r) =>
    r.pick([
      () =>
        `modules/${r.pick(["network", "database", "storage", "iam", "cluster", "dns", "monitoring"])}/main.tf`,
      () => `environments/${r.pick(["prod", "staging", "dev"])}/main.tf`,
      () => r.pick(["main.tf", "variables.tf", "outputs.tf", "providers.tf"]),
    ])(),
  shell: (r) =>
    `scripts/${r.pick(["deploy", "bootstrap", "release", "backup", "migrate", "lint", "build", "setup-dev", "rotate-logs", "seed-db"])}.sh`,
  sql: (r) =>
    r.chance(0.7)
      ? `migrations/${String(r.int(1, 240)).padStart(4, "0")}_${r.pick(["add", "alter", "create", "backfill"])}_${r.pick(MODULES)}.sql`
      : `db/queries/${r.pick(MODULES)}.sql`,
  secrets: (r) =>
    r.pick([
      ".env.example",
      "config/production.yml",
      "docker-compose.yml",
      "deploy/values.yaml",
      "README.md",
      "scripts/deploy.sh",
      "config/settings.json",
    ]),
};

/** A source file a finding can point at, with its length in lines. */
export interface SourceFile {
  path: string;
  lines: number;
}

/** Up to `count` distinct files of `analyzer`'s language in project `project`. */
export function sourceFiles(rand: Random, analyzer: string, project: string, count: number): SourceFile[] {
  const shape = FILE_SHAPES[analyzer];
  if (!shape) return [];
  const paths = new Set<string>();
  for (let attempt = 0; attempt < count * 4 && paths.size < count; attempt++) paths.add(shape(rand, project));
  return [...paths].sort().map((path) => ({ path, lines: Math.round(20 + rand.next() ** 2 * 900) }));
}

/** A kind of repository: its analyzers, coverage languages and dependency manifests. */
export interface RepositoryProfile {
  name: string;
  /** The analyzer of the main language; the documentation and dependency metrics come from it. */
  primary: string;
  /** Analyzers that always run, besides the primary. */
  analyzers: string[];
  /** Analyzers added at random, with their probability. */
  optional: Array<[string, number]>;
  /** Languages test coverage is reported for; empty means no coverage analyzer. */
  coverage: MetricKey[];
  targets: Array<{ ecosystem: Ecosystem; manager: string; manifest: string | null; lockfile: string }>;
}

/** The repository profiles; `weight` is how often generated repositories get each. */
export const PROFILES: Array<RepositoryProfile & { weight: number }> = [
  {
    name: "python-service",
    weight: 18,
    primary: "python",
    analyzers: ["secrets"],
    optional: [
      ["docker", 0.6],
      ["shell", 0.4],
      ["sql", 0.3],
    ],
    coverage: ["PYTHON"],
    targets: [{ ecosystem: "PYPI", manager: "poetry", manifest: "pyproject.toml", lockfile: "poetry.lock" }],
  },
  {
    name: "node-app",
    weight: 20,
    primary: "javascript",
    analyzers: ["secrets"],
    optional: [
      ["docker", 0.5],
      ["shell", 0.2],
    ],
    coverage: ["JAVASCRIPT"],
    targets: [{ ecosystem: "NPM", manager: "npm", manifest: "package.json", lockfile: "package-lock.json" }],
  },
  {
    name: "go-service",
    weight: 14,
    primary: "go",
    analyzers: ["secrets"],
    optional: [
      ["docker", 0.8],
      ["shell", 0.4],
      ["sql", 0.3],
    ],
    coverage: ["GO"],
    targets: [{ ecosystem: "GO", manager: "go", manifest: "go.mod", lockfile: "go.sum" }],
  },
  {
    name: "java-service",
    weight: 12,
    primary: "java",
    analyzers: ["secrets"],
    optional: [
      ["docker", 0.6],
      ["sql", 0.5],
    ],
    coverage: ["JAVA"],
    targets: [{ ecosystem: "MAVEN", manager: "maven", manifest: "pom.xml", lockfile: "pom.xml" }],
  },
  {
    name: "rails-app",
    weight: 7,
    primary: "ruby",
    analyzers: ["secrets"],
    optional: [
      ["docker", 0.5],
      ["javascript", 0.4],
    ],
    coverage: ["RUBY"],
    targets: [{ ecosystem: "RUBYGEMS", manager: "bundler", manifest: "Gemfile", lockfile: "Gemfile.lock" }],
  },
  {
    name: "rust-crate",
    weight: 6,
    primary: "rust",
    analyzers: [],
    optional: [
      ["secrets", 0.6],
      ["shell", 0.2],
    ],
    coverage: ["RUST"],
    targets: [{ ecosystem: "CRATES_IO", manager: "cargo", manifest: "Cargo.toml", lockfile: "Cargo.lock" }],
  },
  {
    name: "php-app",
    weight: 5,
    primary: "php",
    analyzers: ["secrets"],
    optional: [
      ["docker", 0.5],
      ["javascript", 0.3],
    ],
    coverage: ["PHP"],
    targets: [
      { ecosystem: "PACKAGIST", manager: "composer", manifest: "composer.json", lockfile: "composer.lock" },
    ],
  },
  {
    name: "dotnet-service",
    weight: 5,
    primary: "csharp",
    analyzers: ["secrets"],
    optional: [
      ["docker", 0.6],
      ["sql", 0.3],
    ],
    coverage: ["CSHARP"],
    targets: [
      {
        ecosystem: "NUGET",
        manager: "nuget",
        manifest: "src/App.csproj",
        lockfile: "src/packages.lock.json",
      },
    ],
  },
  {
    name: "firmware",
    weight: 4,
    primary: "cxx",
    analyzers: ["secrets"],
    optional: [["shell", 0.5]],
    coverage: ["C_AND_CPP"],
    targets: [],
  },
  {
    name: "infrastructure",
    weight: 5,
    primary: "terraform",
    analyzers: ["shell", "secrets"],
    optional: [["docker", 0.3]],
    coverage: [],
    targets: [],
  },
  {
    name: "scala-pipeline",
    weight: 2,
    primary: "scala",
    analyzers: ["secrets"],
    optional: [["docker", 0.5]],
    coverage: ["SCALA"],
    targets: [{ ecosystem: "MAVEN", manager: "sbt", manifest: "build.sbt", lockfile: "build.sbt.lock" }],
  },
  {
    name: "android-app",
    weight: 1,
    primary: "kotlin",
    analyzers: ["secrets"],
    optional: [],
    coverage: ["KOTLIN"],
    targets: [
      {
        ecosystem: "MAVEN",
        manager: "gradle",
        manifest: "app/build.gradle.kts",
        lockfile: "gradle.lockfile",
      },
    ],
  },
  {
    name: "ios-app",
    weight: 1,
    primary: "swift",
    analyzers: ["secrets"],
    optional: [],
    coverage: ["SWIFT"],
    targets: [],
  },
];

/** A profile by name. */
export function profileNamed(name: string): RepositoryProfile {
  const found = PROFILES.find((p) => p.name === name);
  if (!found) throw new Error(`unknown profile ${name}`);
  return found;
}

const BRANCH_KINDS = ["feat", "fix", "chore", "refactor", "docs", "perf"] as const;
const BRANCH_TOPICS = words(
  "rate-limits retry-backoff audit-log sso-login csv-export dark-mode cache-warmup pagination " +
    "webhook-signing bulk-import search-filters timezone-handling upgrade-deps invoice-pdf " +
    "health-checks graceful-shutdown feature-flags i18n error-pages tracing",
);
const TITLE_VERBS: Record<(typeof BRANCH_KINDS)[number], string> = {
  feat: "Add",
  fix: "Fix",
  chore: "Update",
  refactor: "Refactor",
  docs: "Document",
  perf: "Speed up",
};

/** A feature branch and a matching pull request title. */
export function branchAndTitle(rand: Random): { branch: string; title: string } {
  const kind = rand.pick(BRANCH_KINDS);
  const topic = rand.pick(BRANCH_TOPICS);
  return { branch: `${kind}/${topic}`, title: `${TITLE_VERBS[kind]} ${topic.replaceAll("-", " ")}` };
}

/** A pull request title for a branch name the demo fixes, e.g. `fix/timeout-handling`. */
export function titleOfBranch(branch: string): string {
  const [kind, topic = branch] = branch.split("/");
  const verb = TITLE_VERBS[kind as (typeof BRANCH_KINDS)[number]] ?? "Update";
  return `${verb} ${topic.replaceAll("-", " ")}`;
}

/** Names some findings mention in their title, e.g. "Unused import `json`". */
export const IDENTIFIERS = words(
  "json os logger config ctx tmp result response helpers utils data opts retries cache client " +
    "payload index userId session buffer timeout request",
);
