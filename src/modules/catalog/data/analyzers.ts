import { CXX_ISSUES } from "./issues-cxx.ts";
import { GO_ISSUES, RUST_ISSUES } from "./issues-go-rust.ts";
import { DOCKER_ISSUES, SHELL_ISSUES, TERRAFORM_ISSUES } from "./issues-infra.ts";
import { JAVASCRIPT_ISSUES } from "./issues-javascript.ts";
import { JAVA_ISSUES, KOTLIN_ISSUES, SCALA_ISSUES } from "./issues-jvm.ts";
import { COVERAGE_ISSUES, SECRETS_ISSUES, SQL_ISSUES, SWIFT_ISSUES } from "./issues-misc.ts";
import { PYTHON_ISSUES } from "./issues-python.ts";
import { CSHARP_ISSUES, PHP_ISSUES, RUBY_ISSUES } from "./issues-web.ts";
import type { IssueDefinition } from "./rule.ts";

/** One analyzer of the catalog and its rules. */
export interface AnalyzerDefinition {
  shortcode: string;
  name: string;
  description: string;
  version: string;
  /** A JSON Schema (draft 2020-12) of the `meta` options the analyzer accepts. */
  metaSchema: Record<string, unknown>;
  /** Options shown in the example configuration, as `key = value` TOML lines. */
  exampleMeta: string[];
  issues: IssueDefinition[];
}

/** A small JSON Schema object of the given properties, none required, nothing else allowed. */
function options(properties: Record<string, Record<string, unknown>>): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties,
    additionalProperties: false,
  };
}

const runtime = (versions: string[], description: string) => ({
  type: "string",
  enum: versions,
  description,
});
const patterns = (description: string) => ({ type: "array", items: { type: "string" }, description });

/** Every analyzer Assay knows about, in the order lists show them. */
export const ANALYZERS: AnalyzerDefinition[] = [
  {
    shortcode: "python",
    name: "Python",
    description:
      "Finds bug risks, anti-patterns, security problems and type errors in Python code, with docstring coverage.",
    version: "3.12.4",
    metaSchema: options({
      runtime_version: runtime(["3.x.x", "2.x.x"], "Major Python version the code targets."),
      max_line_length: { type: "integer", minimum: 79, maximum: 200, default: 88 },
      type_checker: { type: "string", enum: ["mypy"], description: "Run a type checker too." },
      skip_doc_coverage: patterns("Kinds of objects excluded from documentation coverage."),
    }),
    exampleMeta: ['runtime_version = "3.x.x"', "max_line_length = 100", 'type_checker = "mypy"'],
    issues: PYTHON_ISSUES,
  },
  {
    shortcode: "javascript",
    name: "JavaScript",
    description: "Checks JavaScript and TypeScript, including React, Vue and Node.js code.",
    version: "2.18.0",
    metaSchema: options({
      plugins: {
        type: "array",
        items: { type: "string", enum: ["react", "vue", "angular", "ember", "meteor"] },
      },
      environment: { type: "array", items: { type: "string", enum: ["nodejs", "browser", "jest", "mocha"] } },
      dialect: { type: "string", enum: ["typescript", "flow"] },
      skip_doc_coverage: patterns("Kinds of declarations excluded from documentation coverage."),
    }),
    exampleMeta: ['plugins = ["react"]', 'environment = ["nodejs", "browser"]', 'dialect = "typescript"'],
    issues: JAVASCRIPT_ISSUES,
  },
  {
    shortcode: "go",
    name: "Go",
    description: "Static checks, security rules and idiom checks for Go modules.",
    version: "1.9.2",
    metaSchema: options({
      import_root: { type: "string", description: "The module path, e.g. github.com/acme/app." },
      cgo_enabled: { type: "boolean", default: false },
    }),
    exampleMeta: ['import_root = "github.com/acme-labs/api-gateway"'],
    issues: GO_ISSUES,
  },
  {
    shortcode: "java",
    name: "Java",
    description: "Bug, security and performance checks for Java projects built with Maven or Gradle.",
    version: "1.14.0",
    metaSchema: options({
      runtime_version: runtime(["8", "11", "17", "21"], "Java version the code targets."),
    }),
    exampleMeta: ['runtime_version = "17"'],
    issues: JAVA_ISSUES,
  },
  {
    shortcode: "scala",
    name: "Scala",
    description: "Checks Scala 2 and Scala 3 code for bug risks and unidiomatic constructs.",
    version: "0.9.1",
    metaSchema: options({ scala_version: runtime(["2.13", "3"], "Scala version of the sources.") }),
    exampleMeta: ['scala_version = "3"'],
    issues: SCALA_ISSUES,
  },
  {
    shortcode: "kotlin",
    name: "Kotlin",
    description: "Checks Kotlin code for null-safety, coroutine and style problems.",
    version: "0.7.3",
    metaSchema: options({ runtime_version: runtime(["1.9", "2.0"], "Kotlin language version.") }),
    exampleMeta: ['runtime_version = "2.0"'],
    issues: KOTLIN_ISSUES,
  },
  {
    shortcode: "ruby",
    name: "Ruby",
    description: "Lint, performance and Rails security checks for Ruby.",
    version: "1.6.0",
    metaSchema: options({ rails: { type: "boolean", description: "Enable the Rails-specific rules." } }),
    exampleMeta: ["rails = true"],
    issues: RUBY_ISSUES,
  },
  {
    shortcode: "rust",
    name: "Rust",
    description: "Correctness, performance and unsafe-code checks for Rust crates.",
    version: "1.3.5",
    metaSchema: options({ msrv: { type: "string", pattern: "^1\\.\\d+(\\.\\d+)?$" } }),
    exampleMeta: ['msrv = "1.74"'],
    issues: RUST_ISSUES,
  },
  {
    shortcode: "php",
    name: "PHP",
    description: "Static analysis and security checks for PHP applications.",
    version: "1.4.2",
    metaSchema: options({ bootstrap_files: patterns("Files to load before analysis.") }),
    exampleMeta: ['bootstrap_files = ["vendor/autoload.php"]'],
    issues: PHP_ISSUES,
  },
  {
    shortcode: "csharp",
    name: "C#",
    description: "Checks C# and .NET code for bugs, security problems and performance pitfalls.",
    version: "1.2.0",
    metaSchema: options({}),
    exampleMeta: [],
    issues: CSHARP_ISSUES,
  },
  {
    shortcode: "cxx",
    name: "C & C++",
    description: "Memory-safety, concurrency and MISRA C:2012 checks for C and C++.",
    version: "1.1.0",
    metaSchema: options({
      misra_compliance: { type: "boolean", default: false, description: "Enable the MISRA C:2012 rules." },
      cpp_standard: { type: "string", enum: ["c11", "c17", "c++17", "c++20"] },
    }),
    exampleMeta: ["misra_compliance = true", 'cpp_standard = "c11"'],
    issues: CXX_ISSUES,
  },
  {
    shortcode: "swift",
    name: "Swift",
    description: "Checks Swift code for crashes, retain cycles and insecure settings.",
    version: "0.5.0",
    metaSchema: options({}),
    exampleMeta: [],
    issues: SWIFT_ISSUES,
  },
  {
    shortcode: "docker",
    name: "Docker",
    description: "Lints Dockerfiles for reproducibility, image size and security.",
    version: "1.0.7",
    metaSchema: options({ dockerfile_paths: patterns("Dockerfiles outside the default locations.") }),
    exampleMeta: ['dockerfile_paths = ["docker/*.Dockerfile"]'],
    issues: DOCKER_ISSUES,
  },
  {
    shortcode: "terraform",
    name: "Terraform",
    description: "Finds insecure and fragile infrastructure definitions in Terraform modules.",
    version: "1.2.1",
    metaSchema: options({}),
    exampleMeta: [],
    issues: TERRAFORM_ISSUES,
  },
  {
    shortcode: "shell",
    name: "Shell",
    description: "Finds quoting bugs and unsafe constructs in POSIX sh and Bash scripts.",
    version: "1.0.3",
    metaSchema: options({
      dialect: { type: "string", enum: ["sh", "bash", "dash", "ksh"], default: "bash" },
    }),
    exampleMeta: ['dialect = "bash"'],
    issues: SHELL_ISSUES,
  },
  {
    shortcode: "sql",
    name: "SQL",
    description: "Lints SQL files and migrations for risky statements and slow queries.",
    version: "0.8.0",
    metaSchema: options({
      dialect: { type: "string", enum: ["postgres", "mysql", "sqlite", "bigquery", "snowflake"] },
      max_line_length: { type: "integer", minimum: 40, maximum: 300 },
    }),
    exampleMeta: ['dialect = "postgres"'],
    issues: SQL_ISSUES,
  },
  {
    shortcode: "secrets",
    name: "Secrets",
    description: "Detects credentials, keys and tokens committed to the repository.",
    version: "1.5.0",
    metaSchema: options({}),
    exampleMeta: [],
    issues: SECRETS_ISSUES,
  },
  {
    shortcode: "test-coverage",
    name: "Test Coverage",
    description: "Receives coverage reports from CI and tracks line, branch and condition coverage.",
    version: "1.0.0",
    metaSchema: options({}),
    exampleMeta: [],
    issues: COVERAGE_ISSUES,
  },
  {
    shortcode: "sca",
    name: "Dependency Scanning",
    description:
      "Receives SBOMs (CycloneDX or SPDX) from CI and tracks the repository's third-party packages, their licences and their known vulnerabilities.",
    version: "1.0.0",
    metaSchema: options({}),
    exampleMeta: [],
    issues: [],
  },
];

/** The `.deepsource.toml`-style block that enables `analyzer` with its example options. */
export function exampleConfigOf(analyzer: AnalyzerDefinition): string {
  const lines = ["[[analyzers]]", `name = "${analyzer.shortcode}"`];
  if (analyzer.exampleMeta.length > 0) {
    lines.push("", "  [analyzers.meta]", ...analyzer.exampleMeta.map((line) => `  ${line}`));
  }
  return `${lines.join("\n")}\n`;
}

/** Where analyzer and formatter logos are served from (a placeholder host; see docs/read-model.md). */
export const LOGO_BASE_URL = "https://static.assay.example/logos";

/** One code formatter (transformer) of the catalog. */
export interface FormatterDefinition {
  shortcode: string;
  name: string;
  description: string;
  /** The analyzer whose language it formats, if Assay has one. */
  analyzer: string | null;
}

/** Every code formatter Assay knows about. */
export const FORMATTERS: FormatterDefinition[] = [
  { shortcode: "black", name: "Black", description: "Opinionated Python formatter.", analyzer: "python" },
  { shortcode: "isort", name: "isort", description: "Sorts and groups Python imports.", analyzer: "python" },
  {
    shortcode: "yapf",
    name: "YAPF",
    description: "Configurable Python formatter based on a style.",
    analyzer: "python",
  },
  {
    shortcode: "autopep8",
    name: "autopep8",
    description: "Rewrites Python code to follow PEP 8.",
    analyzer: "python",
  },
  {
    shortcode: "ruff-format",
    name: "Ruff formatter",
    description: "Fast Black-compatible Python formatter.",
    analyzer: "python",
  },
  {
    shortcode: "prettier",
    name: "Prettier",
    description: "Formats JavaScript, TypeScript, CSS, JSON and Markdown.",
    analyzer: "javascript",
  },
  {
    shortcode: "standardjs",
    name: "StandardJS",
    description: "JavaScript style with automatic fixes and no configuration.",
    analyzer: "javascript",
  },
  { shortcode: "gofmt", name: "gofmt", description: "The standard Go formatter.", analyzer: "go" },
  { shortcode: "gofumpt", name: "gofumpt", description: "A stricter superset of gofmt.", analyzer: "go" },
  { shortcode: "rustfmt", name: "rustfmt", description: "The standard Rust formatter.", analyzer: "rust" },
  { shortcode: "scalafmt", name: "scalafmt", description: "Code formatter for Scala.", analyzer: "scala" },
  {
    shortcode: "ktlint",
    name: "ktlint",
    description: "Kotlin linter with a built-in formatter.",
    analyzer: "kotlin",
  },
  {
    shortcode: "swift-format",
    name: "swift-format",
    description: "Formatting for Swift source code.",
    analyzer: "swift",
  },
  {
    shortcode: "clang-format",
    name: "ClangFormat",
    description: "Formats C, C++ and Objective-C.",
    analyzer: "cxx",
  },
  {
    shortcode: "rubocop",
    name: "RuboCop",
    description: "Ruby style checker with autocorrection.",
    analyzer: "ruby",
  },
  {
    shortcode: "php-cs-fixer",
    name: "PHP CS Fixer",
    description: "Fixes PHP code to follow coding standards.",
    analyzer: "php",
  },
  {
    shortcode: "dotnet-format",
    name: "dotnet format",
    description: "Applies .editorconfig style to C# projects.",
    analyzer: "csharp",
  },
  {
    shortcode: "terraform-fmt",
    name: "terraform fmt",
    description: "Canonical formatting for Terraform files.",
    analyzer: "terraform",
  },
  { shortcode: "shfmt", name: "shfmt", description: "Formats shell scripts.", analyzer: "shell" },
  {
    shortcode: "sqlfluff",
    name: "SQLFluff",
    description: "Dialect-aware SQL linter and formatter.",
    analyzer: "sql",
  },
];
