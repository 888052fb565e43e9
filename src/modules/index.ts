/**
 * Every domain module, in dependency order. Importing a module adds its types, fields and root
 * queries to the schema builder; `src/schema.ts` imports this file and builds the schema.
 */
import "../graphql/scalars.ts";
import "../graphql/node.ts";
import "../graphql/mutations.ts";
import "./catalog/catalog-type.ts";
import "./catalog/code-formatter-type.ts";
import "./users/user-type.ts";
import "./accounts/account-type.ts";
import "./repositories/repository-type.ts";
import "./runs/run-type.ts";
import "./repositories/repository-runs-type.ts";
import "./checks/occurrence-type.ts";
import "./checks/check-type.ts";
import "./checks/repository-issue-type.ts";
import "./artifacts/artifact-type.ts";
import "./dependencies/dependencies-type.ts";
import "./installation/installation-type.ts";
import "./metrics/metric-type.ts";
import "./metrics/check-metrics-type.ts";
import "./coverage/coverage-file-type.ts";
import "./settings/settings-type.ts";
import "./settings/ignore-rule-type.ts";
import "./settings/suppressed-issue-type.ts";
import "./pull-requests/pull-request-type.ts";
import "./pull-requests/vcs-secret-type.ts";
import "./reports/report-type.ts";
import "./reports/coverage-type.ts";
import "./reports/run-report-type.ts";
import "./reports/report-by-key-type.ts";
import "./checks/enabled-analyzers-type.ts";
import "./repositories/repository-mutations.ts";
import "./dependencies/target-mutations.ts";
import "./settings/settings-mutations.ts";
import "./settings/suppression-mutations.ts";
import "./settings/ignore-rule-mutations.ts";
import "./accounts/team-mutations.ts";
import "./auth/auth-mutations.ts";
import "./webhooks/webhook-type.ts";
import "./pull-requests/vcs-secret-mutations.ts";
import "../ingestion/upload-mutation.ts";
