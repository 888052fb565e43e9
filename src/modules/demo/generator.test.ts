import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileAffected, isAffected } from "../../formats/osv/affected.ts";
import { readOsvRecord } from "../../formats/osv/record.ts";
import { parseVersion } from "../../formats/osv/versions.ts";
import { ANALYZERS, type IssueDefinition } from "../catalog/catalog-data.ts";
import { coveragePercent } from "../metrics/metric-format.ts";
import { DEMO_USER_EMAIL } from "./account-plan.ts";
import { advisoryDataset, osvRecordOf } from "./advisories.ts";
import { globMatches } from "./findings.ts";
import { planRepositories, planSize, sizeParameters } from "./generator.ts";
import type { PlannedOccurrence, RepositoryPlan } from "./plan-types.ts";

const NOW = new Date("2026-11-21T12:00:00Z");

function plan(options: Parameters<typeof planSize>[0]) {
  const { accounts, params, seed, now } = planSize(options);
  return { accounts, plans: planRepositories(accounts, params, seed, now) };
}

const small = plan({ size: "small", now: NOW });
const all = <T>(pick: (p: RepositoryPlan) => T[]) => small.plans.flatMap(pick);

describe("the generator's plans", () => {
  test("the same seed and clock give identical data, keys included", () => {
    assert.deepEqual(plan({ size: "small", now: NOW }), small);
  });

  test("another seed keeps the demo's people and repositories but generates other history", () => {
    const other = plan({ size: "small", now: NOW, seed: 7 });
    assert.deepEqual(
      other.accounts.users.map((u) => u.email),
      small.accounts.users.map((u) => u.email),
    );
    assert.deepEqual(
      other.plans.map((p) => p.repository.name),
      small.plans.map((p) => p.repository.name),
    );
    assert.notDeepEqual(
      other.plans.flatMap((p) => p.occurrences.map((o) => o.fingerprint)),
      all((p) => p.occurrences.map((o) => o.fingerprint)),
    );
  });

  test("small is the demo: its accounts, and a few thousand occurrences at most", () => {
    assert.equal(small.accounts.users[0]?.email, DEMO_USER_EMAIL);
    assert.deepEqual(
      small.accounts.accounts.map((a) => a.login),
      ["acme-labs", "ada-lovelace", "globex"],
    );
    const occurrences = all((p) => p.occurrences).length;
    assert.ok(occurrences > 1000 && occurrences < 6000, `${occurrences} occurrences`);
  });

  test("every kind of row is generated", () => {
    const counts = {
      pullRequests: all((p) => p.pullRequests).length,
      runs: all((p) => p.runs).length,
      checks: all((p) => p.checks).length,
      occurrences: all((p) => p.occurrences).length,
      metricItems: all((p) => p.metricItems).length,
      metricValues: all((p) => p.metricValues).length,
      coverageReports: all((p) => p.coverageReports).length,
      coverageFiles: all((p) => p.coverageReports.flatMap((r) => r.files)).length,
      metricSettings: all((p) => p.settings.metrics).length,
      categorySettings: all((p) => p.settings.categories).length,
      prioritySettings: all((p) => p.settings.priorities).length,
      ignoreRules: all((p) => p.ignoreRules).length,
      sboms: all((p) => p.sboms).length,
      suppressions: small.accounts.suppressions.length,
    };
    for (const [name, count] of Object.entries(counts)) assert.ok(count > 0, `no ${name}`);
  });

  test("keys are unique within each table", () => {
    for (const [table, keys] of Object.entries({
      runs: all((p) => p.runs.map((r) => r.key)),
      checks: all((p) => p.checks.map((c) => c.key)),
      occurrences: all((p) => p.occurrences.map((o) => o.key)),
      metricValues: all((p) => p.metricValues.map((v) => v.key)),
      users: small.accounts.users.map((u) => u.key),
    })) {
      assert.equal(new Set(keys).size, keys.length, table);
    }
  });

  test("every finding's state agrees with its base run's findings", () => {
    for (const p of small.plans) {
      const byCommit = new Map(p.runs.map((r) => [r.commitOid, r]));
      const occurrencesOf = groupBy(p.occurrences, (o) => o.checkKey);
      const checkOf = new Map(p.checks.map((c) => [`${c.runKey}/${c.analyzer}`, c]));
      for (const check of p.checks) {
        const run = p.runs.find((r) => r.key === check.runKey)!;
        if (run.status !== "SUCCESS" && run.status !== "FAILURE") continue;
        const mine = occurrencesOf.get(check.key) ?? [];
        if (run.baseOid === null) {
          assert.ok(
            mine.every((o) => o.state === "INTRODUCED"),
            "a first run introduces everything",
          );
          continue;
        }
        const base = byCommit.get(run.baseOid)!;
        assert.ok(base.status === "SUCCESS" || base.status === "FAILURE", "the base run was analyzed");
        const baseCheck = checkOf.get(`${base.key}/${check.analyzer}`)!;
        const inBase = new Set(
          (occurrencesOf.get(baseCheck.key) ?? [])
            .filter((o) => o.state !== "RESOLVED")
            .map((o) => o.fingerprint),
        );
        for (const o of mine) {
          assert.equal(o.state === "INTRODUCED", !inBase.has(o.fingerprint), `${o.state} ${o.fingerprint}`);
        }
        const carried = new Set(mine.filter((o) => o.state !== "INTRODUCED").map((o) => o.fingerprint));
        assert.deepEqual(carried, inBase, "every base finding is either still there or resolved");
      }
    }
  });

  test("a fingerprint keeps its issue and file for the finding's whole life", () => {
    const seen = new Map<string, string>();
    for (const o of all((p) => p.occurrences)) {
      const identity = `${o.issue} ${o.path}`;
      assert.equal(seen.get(o.fingerprint) ?? identity, identity);
      seen.set(o.fingerprint, identity);
    }
  });

  test("pull-request runs are on their pull request's branch and based where the pull-request code will base them", () => {
    for (const p of [...small.plans, ...plan({ size: "large", scale: 0.01, now: NOW }).plans]) {
      for (const run of p.runs.filter((r) => r.pullRequestKey !== null)) {
        const pr = p.pullRequests.find((x) => x.key === run.pullRequestKey)!;
        assert.equal(run.branch, pr.branch);
        const base = p.runs.find((r) => r.commitOid === run.baseOid)!;
        assert.equal(base.branch, p.repository.defaultBranch);
        assert.ok(pr.createdAt <= run.createdAt && base.createdAt <= run.createdAt);
        const fork = p.runs.find((r) => r.commitOid === pr.mergeBaseOid)!;
        assert.ok(fork.createdAt <= pr.createdAt);
        if (p.repository.provider === "GITLAB") {
          // GitLab reports the merge base: its run is the base.
          assert.equal(run.baseOid, pr.mergeBaseOid);
        } else {
          // Otherwise the base branch's newest analysed run when the run was uploaded.
          const newest = p.runs
            .filter(
              (r) =>
                r.branch === p.repository.defaultBranch &&
                (r.status === "SUCCESS" || r.status === "FAILURE") &&
                r.createdAt <= run.createdAt,
            )
            .at(-1)!;
          assert.equal(run.baseOid, newest.commitOid);
        }
      }
      const mainRuns = p.runs.filter((r) => r.branch === p.repository.defaultBranch);
      assert.equal(p.repository.latestCommitOid, mainRuns.at(-1)?.commitOid);
    }
  });

  test("ignore rules meet the table's constraints and silence what they match once they exist", () => {
    for (const p of small.plans) {
      const checks = new Map(p.checks.map((c) => [c.key, c]));
      for (const rule of p.ignoreRules) {
        assert.equal(rule.level === "FILE", rule.filePath !== null);
        assert.equal(rule.type === "FOREVER", rule.globPattern === null);
        const matched = p.occurrences.filter(
          (o) =>
            o.issue === rule.issue &&
            checks.get(o.checkKey)!.createdAt >= rule.createdAt &&
            (rule.filePath === null
              ? rule.globPattern === null || globMatches(rule.globPattern, o.path)
              : o.path === rule.filePath),
        );
        assert.ok(
          matched.every((o) => o.isSuppressed),
          `rule ${rule.key}`,
        );
      }
    }
  });

  test("checks fail exactly when they introduce an unsilenced critical finding or a major security one", () => {
    const severity = new Map<string, IssueDefinition>(
      ANALYZERS.flatMap((a) => a.issues.map((i) => [`${a.shortcode}:${i.shortcode}`, i] as const)),
    );
    for (const p of small.plans) {
      const blocking = (o: PlannedOccurrence) => {
        const issue = severity.get(o.issue)!;
        const canFail =
          p.settings.categories.find((c) => c.category === issue.category)?.canFailCheck ?? true;
        const serious =
          issue.severity === "CRITICAL" ||
          (issue.severity === "MAJOR" && (issue.category === "SECURITY" || issue.category === "SECRETS"));
        return o.state === "INTRODUCED" && !o.isSuppressed && serious && canFail;
      };
      const occurrencesOf = groupBy(p.occurrences, (o) => o.checkKey);
      for (const check of p.checks.filter((c) => c.analyzer !== "test-coverage")) {
        if (check.status !== "SUCCESS" && check.status !== "FAILURE") continue;
        assert.equal(check.status === "FAILURE", (occurrencesOf.get(check.key) ?? []).some(blocking));
      }
    }
  });

  test("line coverage values are the covered share of their check's coverage report, rounded as coverage processing rounds", () => {
    for (const p of small.plans) {
      const reports = new Map(p.coverageReports.map((r) => [r.checkKey, r]));
      const lcv = p.metricItems.find((i) => i.metric === "LCV" && i.metricKey === "AGGREGATE");
      for (const value of p.metricValues.filter((v) => v.itemKey === lcv?.key)) {
        const [total, covered] = reports.get(value.checkKey!)!.lines;
        assert.equal(value.value, coveragePercent(covered, total));
      }
    }
  });

  test("every coverage report's files add up to its counts, and are its languages' source files", () => {
    let files = 0;
    for (const p of small.plans) {
      const named = new Set(p.occurrences.map((o) => o.path));
      for (const report of p.coverageReports) {
        for (const measure of ["lines", "branches", "conditions"] as const) {
          const added = [0, 1, 2, 3].map((i) =>
            report.files.reduce((sum, file) => sum + (file[measure]?.[i] ?? 0), 0),
          );
          assert.deepEqual(added, report[measure] ?? [0, 0, 0, 0], `${p.repository.name} ${measure}`);
        }
        assert.equal(new Set(report.files.map((f) => f.path)).size, report.files.length);
        assert.ok(
          report.files.some((f) => named.has(f.path)),
          `${p.repository.name}: files its findings name`,
        );
        files += report.files.length;
      }
    }
    assert.ok(files > 0);
  });

  test("each advisory's OSV record, as the import reads it, affects exactly the versions the dataset says", () => {
    const { packages, vulnerabilities } = advisoryDataset();
    for (const v of vulnerabilities) {
      const record = readOsvRecord(JSON.parse(JSON.stringify(osvRecordOf(v))));
      const pkg = packages[v.packageIndex]!;
      assert.equal(record.affected.length, 1, v.identifier);
      const compiled = compileAffected(record.affected[0]!);
      const affected = pkg.versions.filter((version) =>
        isAffected(compiled, version, parseVersion(pkg.ecosystem, version)),
      );
      assert.deepEqual(new Set(affected), v.affected, `${v.identifier} on ${pkg.name}`);
      assert.ok(record.cvssV3 !== null && record.severity !== null, v.identifier);
    }
  });

  test("invented advisories cannot pass for real ones: DEMO ids, CVE aliases outside the assigned numbers, no real links", () => {
    const { vulnerabilities } = advisoryDataset();
    for (const v of vulnerabilities) {
      assert.match(v.identifier, /^DEMO-\d{4}-[2-9cfghjmpqrvwx]{4}-[2-9cfghjmpqrvwx]{4}$/);
      for (const alias of v.aliases) {
        const match = /^CVE-\d{4}-(\d+)$/.exec(alias);
        assert.ok(match && Number(match[1]) >= 9_000_000, `${v.identifier}: alias ${alias}`);
      }
      for (const url of v.referenceUrls) assert.equal(new URL(url).hostname, "advisories.example.com");
    }
    assert.ok(vulnerabilities.some((v) => v.aliases.length > 0));
  });

  test("every SBOM is a run's: pinned package versions of one target, some direct", () => {
    const runs = new Set(all((p) => p.runs.map((r) => r.key)));
    const scaChecks = new Set(all((p) => p.checks.filter((c) => c.analyzer === "sca").map((c) => c.key)));
    const { packages } = advisoryDataset();
    for (const sbom of all((p) => p.sboms)) {
      assert.ok(runs.has(sbom.runKey) && scaChecks.has(sbom.checkKey));
      assert.ok(sbom.packages.some((p) => p.direct));
      for (const p of sbom.packages) {
        assert.equal(packages[p.index]!.ecosystem, sbom.target.ecosystem);
        assert.ok(packages[p.index]!.versions.includes(p.version));
      }
    }
  });
});

describe("the large size", () => {
  test("at full scale promises over a thousand repositories", () => {
    const params = sizeParameters("large");
    assert.ok(params.generatedRepositories >= 1000);
    assert.ok(params.generatedTeams >= 50);
  });

  test("at a reduced scale keeps the demo, scales the generated part, and averages enough occurrences per repository for a million at full scale", () => {
    const { accounts, params, seed, now } = planSize({ size: "large", scale: 0.05, now: NOW });
    assert.equal(accounts.repositories.length, 8 + 50);
    assert.ok(accounts.accounts.some((a) => a.login === "acme-labs"));
    const demoUser = accounts.demoUserKey;
    assert.ok(
      accounts.memberships.filter((m) => m.userKey === demoUser).length > 3,
      "the demo user joins generated teams",
    );
    const generated = planRepositories(accounts, params, seed, now, {
      from: 8,
      to: accounts.repositories.length,
    });
    const average = generated.reduce((sum, p) => sum + p.occurrences.length, 0) / generated.length;
    assert.ok(
      average * sizeParameters("large").generatedRepositories >= 1_000_000,
      `${average} per repository`,
    );
  });

  test("planning in chunks gives the same repositories as planning at once", () => {
    const { accounts, params, seed, now } = planSize({ size: "large", scale: 0.01, now: NOW });
    const whole = planRepositories(accounts, params, seed, now);
    const parts = [
      ...planRepositories(accounts, params, seed, now, { from: 0, to: 7 }),
      ...planRepositories(accounts, params, seed, now, { from: 7, to: accounts.repositories.length }),
    ];
    assert.deepEqual(parts, whole);
  });
});

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k) ?? [];
    list.push(row);
    groups.set(k, list);
  }
  return groups;
}
