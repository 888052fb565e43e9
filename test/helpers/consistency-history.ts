import assert from "node:assert/strict";
import { globMatches } from "../../src/modules/settings/glob.ts";
import {
  ANALYSED,
  everyNode,
  inRepository,
  labelOf,
  listedOf,
  type Query,
  type RepositoryRef,
  runsOf,
} from "./consistency-reads.ts";

/**
 * Findings across a repository's runs that must agree: a run's suppressed count and the findings
 * the ignore rules and team suppressions cover (on real uploads without inline suppressions; the
 * demo suppresses a few findings inline), `Repository.issues` and `issueOccurrences` filtered
 * alike, the repository's findings and each analyzer's newest check, and each check's findings
 * against its base check's. Each check answers how many things it compared.
 */

interface FindingRow {
  shortcode: string;
  path: string;
  issue: { analyzer: { shortcode: string } };
}

/** The checks of findings across runs over `repositories`, read through `query`. */
export function historyInvariants(query: Query, repositories: readonly RepositoryRef[]) {
  /**
   * Each run's and check's `occurrencesSuppressed` against its findings that an ignore rule or a
   * team suppression made before the run covers; answers the suppressed findings counted.
   */
  async function suppressedAreTheRulesFindings(login: string, vcsProvider: string): Promise<number> {
    const { account } = await query<{
      account: {
        suppressedIssues: { edges: Array<{ node: { createdAt: string; issue: { shortcode: string } } }> };
      };
    }>(
      `query($login: String!, $vcs: VCSProvider!) { account(login: $login, vcsProvider: $vcs) {
        suppressedIssues(first: 500) { edges { node { createdAt issue { shortcode } } } } } }`,
      { login, vcs: vcsProvider },
    );
    const team = account.suppressedIssues.edges.map((edge) => edge.node);
    let suppressed = 0;
    for (const repository of repositories.filter((r) => r.login === login)) {
      const rules = await everyNode<{
        createdAt: string;
        level: string;
        type: string;
        filePath: string | null;
        globPattern: string | null;
        issue: { shortcode: string; analyzer: { shortcode: string } };
      }>(
        query,
        repository,
        "ignoreRules",
        "createdAt level type filePath globPattern issue { shortcode analyzer { shortcode } }",
      );
      assert.ok(
        rules.every((rule) => rule.type !== "TEST_PATTERN"),
        "test files are not known to this check",
      );
      for (const run of await runsOf(query, repository)) {
        const at = Date.parse(run.createdAt);
        const covered = (finding: FindingRow) =>
          team.some((s) => s.issue.shortcode === finding.shortcode && Date.parse(s.createdAt) <= at) ||
          rules.some(
            (rule) =>
              Date.parse(rule.createdAt) <= at &&
              rule.issue.shortcode === finding.shortcode &&
              rule.issue.analyzer.shortcode === finding.issue.analyzer.shortcode &&
              (rule.level === "FILE"
                ? rule.filePath === finding.path
                : rule.type !== "PATTERN" || globMatches(rule.globPattern ?? "", finding.path)),
          );
        const findings = await runFindings(run.runUid);
        let ofRun = 0;
        for (const { node: check } of run.checks.edges) {
          const mine = findings.filter((f) => f.issue.analyzer.shortcode === check.analyzer.shortcode);
          assert.equal(mine.length, listedOf(check));
          const count = mine.filter(covered).length;
          assert.equal(
            check.summary.occurrencesSuppressed,
            count,
            `run ${run.runUid} ${check.analyzer.shortcode}: suppressed`,
          );
          ofRun += count;
        }
        const { run: total } = await query<{ run: { summary: { occurrencesSuppressed: number } } }>(
          `query($uid: UUID!) { run(runUid: $uid) { summary { occurrencesSuppressed } } }`,
          { uid: run.runUid },
        );
        assert.equal(total.summary.occurrencesSuppressed, ofRun, `run ${run.runUid}: suppressed`);
        suppressed += ofRun;
      }
    }
    return suppressed;
  }

  /**
   * How many findings `Repository.issueOccurrences(analyzerIn: [analyzer])` counts: those that
   * need attention, or the silenced ones when `suppressed`.
   */
  async function occurrencesOfAnalyzer(
    repository: RepositoryRef,
    analyzer: string,
    suppressed: boolean,
  ): Promise<number> {
    const { repository: answer } = await query<{ repository: { issueOccurrences: { totalCount: number } } }>(
      inRepository(
        repository,
        `issueOccurrences(first: 1, analyzerIn: [${JSON.stringify(analyzer)}], isSuppressed: ${suppressed}) { totalCount }`,
      ),
    );
    return answer.issueOccurrences.totalCount;
  }

  /** Every finding a run lists, through its checks' `issues`: those that need attention and the silenced ones. */
  async function runFindings(runUid: string): Promise<FindingRow[]> {
    type Page = { totalCount: number; edges: Array<{ node: FindingRow }> };
    const { run } = await query<{
      run: { checks: { totalCount: number; edges: Array<{ node: { issues: Page; suppressed: Page } }> } };
    }>(
      `query($uid: UUID!) { run(runUid: $uid) { checks(first: 40) { totalCount edges { node {
        issues(first: 500) { ...findings } suppressed: issues(first: 500, isSuppressed: true) { ...findings } } } } } }
      fragment findings on AnalysisIssueConnection {
        totalCount edges { node { shortcode path issue { analyzer { shortcode } } } } }`,
      { uid: runUid },
    );
    assert.ok(run.checks.totalCount <= 40, "a run's checks fit one page");
    return run.checks.edges.flatMap(({ node }) =>
      [node.issues, node.suppressed].flatMap((page) => {
        assert.ok(page.totalCount <= 500, "a check's findings fit one page");
        return page.edges.map((edge) => edge.node);
      }),
    );
  }

  /**
   * `Repository.issues` under each filter against `issueOccurrences` filtered alike, and each
   * issue's occurrences against the repository's of that issue, once for the findings that need
   * attention and once for the silenced ones (`isSuppressed: true` on all three); answers the
   * filters compared.
   */
  async function issueFiltersMatchOccurrences(): Promise<number> {
    let compared = 0;
    for (const repository of repositories) {
      for (const suppressed of [false, true]) {
        compared += await issueFiltersMatchOccurrencesOfKind(repository, suppressed);
      }
    }
    return compared;
  }

  /** {@link issueFiltersMatchOccurrences} for one repository and one kind of finding. */
  async function issueFiltersMatchOccurrencesOfKind(
    repository: RepositoryRef,
    suppressed: boolean,
  ): Promise<number> {
    let compared = 0;
    const label = `${labelOf(repository)} (isSuppressed: ${suppressed})`;
    const kind = `isSuppressed: ${suppressed}`;
    const occurrences = await everyNode<{
      path: string;
      isSuppressed: boolean;
      issue: {
        id: string;
        category: string;
        severity: string;
        tags: string[];
        analyzer: { shortcode: string };
      };
    }>(
      query,
      repository,
      "issueOccurrences",
      "path isSuppressed issue { id category severity tags analyzer { shortcode } }",
      kind,
    );
    assert.ok(
      occurrences.every((o) => o.isSuppressed === suppressed),
      `${label}: each occurrence is of the kind asked for`,
    );
    const issuesWhere = (args: string) =>
      everyNode<{ issue: { id: string }; occurrences: { totalCount: number } }>(
        query,
        repository,
        "issues",
        `issue { id } occurrences(first: 1, ${kind}) { totalCount }`,
        args ? `${kind}, ${args}` : kind,
      );
    const perIssue = (rows: typeof occurrences) => {
      const counts = new Map<string, number>();
      for (const row of rows) counts.set(row.issue.id, (counts.get(row.issue.id) ?? 0) + 1);
      return [...counts].sort(([a], [b]) => a.localeCompare(b));
    };
    const asPairs = (issues: Array<{ issue: { id: string }; occurrences: { totalCount: number } }>) =>
      issues
        .map((row) => [row.issue.id, row.occurrences.totalCount] as [string, number])
        .sort(([a], [b]) => a.localeCompare(b));
    assert.deepEqual(asPairs(await issuesWhere("")), perIssue(occurrences), `${label}: every issue`);
    const filters: Array<[string, (row: (typeof occurrences)[number]) => boolean]> = [];
    for (const analyzer of new Set(occurrences.map((o) => o.issue.analyzer.shortcode))) {
      filters.push([
        `analyzerIn: [${JSON.stringify(analyzer)}]`,
        (o) => o.issue.analyzer.shortcode === analyzer,
      ]);
      assert.equal(
        await occurrencesOfAnalyzer(repository, analyzer, suppressed),
        occurrences.filter((o) => o.issue.analyzer.shortcode === analyzer).length,
        `${label}: issueOccurrences of ${analyzer}`,
      );
    }
    for (const category of new Set(occurrences.map((o) => o.issue.category))) {
      filters.push([`category: ${category}`, (o) => o.issue.category === category]);
    }
    for (const severity of new Set(occurrences.map((o) => o.issue.severity))) {
      filters.push([`severity: ${severity}`, (o) => o.issue.severity === severity]);
    }
    for (const tag of new Set(occurrences.flatMap((o) => o.issue.tags))) {
      filters.push([`tags: [${JSON.stringify(tag)}]`, (o) => o.issue.tags.includes(tag)]);
    }
    for (const filter of filters) {
      assert.deepEqual(
        asPairs(await issuesWhere(filter[0])),
        perIssue(occurrences.filter(filter[1])),
        `${label}: ${filter[0]}`,
      );
      compared++;
    }
    const directories = new Set(
      occurrences.flatMap((o) => o.path.split("/").map((_, n, parts) => parts.slice(0, n + 1).join("/"))),
    );
    for (const path of directories) {
      const under = (o: (typeof occurrences)[number]) => o.path === path || o.path.startsWith(`${path}/`);
      const ids = new Set(occurrences.filter(under).map((o) => o.issue.id));
      assert.deepEqual(
        asPairs(await issuesWhere(`path: ${JSON.stringify(path)}`)),
        perIssue(occurrences.filter((o) => ids.has(o.issue.id))),
        `${label}: path ${path}`,
      );
      compared++;
    }
    return compared;
  }

  /**
   * The repository's findings of each analyzer against its newest check on the default branch
   * that says what the code holds (SUCCESS or FAILURE, in an analysed run); answers the analyzers compared.
   */
  async function findingsAreNewestChecks(): Promise<number> {
    let compared = 0;
    for (const repository of repositories) {
      const label = labelOf(repository);
      const { repository: answer } = await query<{ repository: { defaultBranch: string } }>(
        inRepository(repository, "defaultBranch"),
      );
      const runs = (await runsOf(query, repository)).filter(
        (run) => run.branchName === answer.defaultBranch && ANALYSED.includes(run.status),
      );
      const analyzers = new Set(
        runs.flatMap((run) => run.checks.edges.map((edge) => edge.node.analyzer.shortcode)),
      );
      for (const analyzer of analyzers) {
        const newest = runs
          .flatMap((run) => run.checks.edges.map((edge) => edge.node))
          .find((check) => check.analyzer.shortcode === analyzer && ANALYSED.includes(check.status));
        assert.equal(
          await occurrencesOfAnalyzer(repository, analyzer, false),
          newest ? newest.issues.totalCount : 0,
          `${label}: ${analyzer}`,
        );
        assert.equal(
          await occurrencesOfAnalyzer(repository, analyzer, true),
          newest ? newest.suppressed.totalCount : 0,
          `${label}: ${analyzer}, silenced`,
        );
        compared++;
      }
    }
    return compared;
  }

  /**
   * Each check's findings against its base check's: every finding of the base is either still
   * there or resolved, so what the check lists is what the base listed, plus what it introduced,
   * minus what it resolved. New suppressed findings are listed but not counted as introduced, and
   * the summary does not tell them from suppressed ones the base had: the difference lies between
   * none and the check's suppressed ones. Answers the checks compared.
   */
  async function findingsFollowTheirBase(): Promise<number> {
    let compared = 0;
    for (const repository of repositories) {
      const runs = await runsOf(query, repository);
      runs.forEach((run, index) => {
        const baseIndex =
          run.baseOid === null
            ? -1
            : runs.findIndex(
                (r, n) => n > index && r.commitOid === run.baseOid && ANALYSED.includes(r.status),
              );
        const base = runs[baseIndex];
        for (const { node: check } of run.checks.edges) {
          if (!ANALYSED.includes(check.status)) continue;
          const before = base
            ? runs
                .slice(baseIndex)
                .filter((r) => r.branchName === base.branchName && ANALYSED.includes(r.status))
                .flatMap((r) => r.checks.edges.map((edge) => edge.node))
                .find((c) => c.analyzer.shortcode === check.analyzer.shortcode && ANALYSED.includes(c.status))
            : undefined;
          const { occurrencesIntroduced, occurrencesResolved, occurrencesSuppressed } = check.summary;
          const listed = listedOf(check);
          const listedBefore = before ? listedOf(before) : 0;
          const newSuppressed = listed - listedBefore - occurrencesIntroduced + occurrencesResolved;
          assert.ok(
            newSuppressed >= 0 && newSuppressed <= occurrencesSuppressed,
            `run ${run.runUid} ${check.analyzer.shortcode}: ${listed} listed, ${listedBefore} before, ` +
              `+${occurrencesIntroduced} -${occurrencesResolved}, ${occurrencesSuppressed} suppressed`,
          );
          compared++;
        }
      });
    }
    return compared;
  }

  return {
    suppressedAreTheRulesFindings,
    issueFiltersMatchOccurrences,
    findingsAreNewestChecks,
    findingsFollowTheirBase,
  };
}
